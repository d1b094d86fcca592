#!/usr/bin/env node
// The rewrite alone, in one process: every class of JAR through rewriteEntry, as a worker of
// `instrument` does it, without start-up, jar reading, hierarchy building or deflating, so that
// a change of a few percent shows through the noise of a shared machine.
//
//   node scripts/bench/rewrite.mjs [JAR] [--against OTHER/dist]... [--first N] [--rounds N] [-- instrument options]
//
// It runs `instrument` on JAR once (two workers) to capture what the workers are given: the class
// headers, class path and mode, and the classes. Then, per round, each build (this one and each
// --against, another build's dist: a worktree of an earlier commit, built) rewrites every class,
// the builds alternating and their order rotating. The first round of each build includes its JIT
// warm-up and the lazy reading of JDK classes, and the build that goes first (--first N, counting
// this one as 0) pays for what the builds share; the later rounds are the warm rewrite. All builds
// must produce the same bytes.
import { createHash } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instrumentInProcess } from './util.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const args = dash < 0 ? argv : argv.slice(0, dash);
const options = dash < 0 ? [] : argv.slice(dash + 1);
let jar = '/usr/share/java/guava.jar';
const against = [];
let first = 0;
let rounds = 7;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--against') against.push(resolve(args[++i]));
  else if (args[i] === '--first') first = Number(args[++i]);
  else if (args[i] === '--rounds') rounds = Number(args[++i]);
  else jar = resolve(args[i]);
}

/** The workers' init and every task sent to them, from one `instrument` run. */
async function capture() {
  const threads = createRequire(import.meta.url)('node:worker_threads');
  const Real = threads.Worker;
  const seen = { init: null, tasks: [] };
  threads.Worker = class extends Real {
    constructor(url, opts) {
      super(url, opts);
      seen.init ??= opts.workerData;
    }
    postMessage(task) {
      seen.tasks.push(task);
      super.postMessage(task);
    }
  };
  syncBuiltinESMExports();
  try {
    await instrumentInProcess(REPO, jar, { workers: 2, options });
  } finally {
    threads.Worker = Real;
    syncBuiltinESMExports();
  }
  if (seen.init === null) throw new Error(`${jar}: instrument started no workers (too few classes?)`);
  seen.tasks.sort((a, b) => a.index - b.index);
  return seen;
}

function rewriteAll(build, seen) {
  const hash = createHash('sha256');
  const warnings = [];
  const t0 = performance.now();
  for (const t of seen.tasks) {
    const r = build.rewriteEntry({ name: t.name, data: t.data, isClass: true }, build.program, seen.init.mode, warnings);
    if ('bytes' in r) hash.update(r.bytes);
    else hash.update(JSON.stringify(r));
  }
  return { ms: performance.now() - t0, sha: hash.digest('hex') };
}

const seen = await capture();
const builds = [];
for (const [label, dist] of [['this', join(REPO, 'dist')], ...against.map((d, n) => [`against${against.length > 1 ? n + 1 : ''}`, d])]) {
  const { buildProgram, rewriteEntry } = await import(join(dist, 'instrument/rewrite.js'));
  const i = seen.init;
  builds.push({ label, rewriteEntry, program: buildProgram(i.headers, i.classpath, [], undefined, i.javaHome), times: [], shas: new Set() });
}
console.log(`${jar}: ${seen.tasks.length} classes rewritten per round`);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < builds.length; k++) {
    const b = builds[(k + r + first) % builds.length];
    const { ms, sha } = rewriteAll(b, seen);
    b.times.push(ms);
    b.shas.add(sha);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const base = median(builds[0].times.slice(1));
for (const b of builds) {
  const m = median(b.times.slice(1));
  console.log(
    `${b.label.padEnd(9)} first round ${b.times[0].toFixed(0).padStart(5)} ms; later rounds median ${m.toFixed(0).padStart(5)} ms ` +
      `(${(m / base).toFixed(3)}×; ${b.times.slice(1).map((x) => x.toFixed(0)).join(' ')})`,
  );
}
const shas = new Set(builds.flatMap((b) => [...b.shas]));
if (shas.size !== 1) {
  console.error(`the output differs: ${builds.map((b) => `${b.label} ${[...b.shas].map((s) => s.slice(0, 12)).join(',')}`).join('; ')}`);
  process.exit(1);
}
console.log(`output identical: sha256 of all classes ${[...shas][0].slice(0, 16)}…`);
