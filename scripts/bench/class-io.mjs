#!/usr/bin/env node
// The class layer's share of `instrument` (docs/non-object-ir.md, step 1): parsing each class,
// the constant-pool lookups the rewrite makes on it, and writing it back, timed without the rest.
//
//   node scripts/bench/class-io.mjs [JAR] [--against OTHER/dist] [--rounds N]
//
// It first runs `instrument` on JAR in this process (KOMORIUM_WORKERS=0) and records every
// top-level ConstantPool builder call per class: the lookups exactly as the rewrite makes them.
// It then replays them: per round and class, ClassFile.parse, the recorded calls, toBytes. With
// --against, another build's dist (a worktree of an earlier commit, built) replays the same calls
// in alternate rounds, and both must return the same indices and write the same number of bytes.
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instrumentInProcess } from './util.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
let jar = '/usr/share/java/guava.jar';
let against = null;
let rounds = 9;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--against') against = resolve(args[++i]);
  else if (args[i] === '--rounds') rounds = Number(args[++i]);
  else jar = resolve(args[i]);
}

const BUILDERS = [
  'utf8Index', 'classIndex', 'moduleIndex', 'packageIndex', 'stringIndex', 'integerIndex', 'floatIndex', 'longIndex',
  'doubleIndex', 'nameAndTypeIndex', 'fieldrefIndex', 'methodrefIndex', 'interfaceMethodrefIndex', 'methodHandleIndex',
  'methodTypeIndex', 'dynamicIndex', 'invokeDynamicIndex',
];

/** entry name → [builder, ...args][] of the instrument run, outermost calls only. */
async function record() {
  const { ConstantPool } = await import(join(REPO, 'dist/classfile/constant-pool.js'));
  const calls = new Map();
  let depth = 0;
  const saved = BUILDERS.map((n) => [n, ConstantPool.prototype[n]]);
  for (const [n, orig] of saved) {
    ConstantPool.prototype[n] = function (...a) {
      if (depth === 0) {
        let list = calls.get(this.entry);
        if (!list) calls.set(this.entry, (list = []));
        list.push([n, ...a]);
      }
      depth++;
      try {
        return orig.apply(this, a);
      } finally {
        depth--;
      }
    };
  }
  try {
    await instrumentInProcess(REPO, jar, { workers: 0 });
  } finally {
    for (const [n, orig] of saved) ConstantPool.prototype[n] = orig;
  }
  return calls;
}

function jarClasses(names) {
  const inJar = new Set(execFileSync('unzip', ['-Z1', jar], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n'));
  const out = [];
  for (const name of names) {
    // Classes the rewrite adds (companions, holders) are not in the input.
    if (inJar.has(name)) out.push([name, new Uint8Array(execFileSync('unzip', ['-p', jar, name], { maxBuffer: 1 << 28 }))]);
  }
  return out;
}

function replay(ClassFile, classes, calls) {
  let parse = 0;
  let lookups = 0;
  let write = 0;
  let check = 0;
  for (const [name, bytes] of classes) {
    const t0 = performance.now();
    const cf = ClassFile.parse(bytes, name);
    const t1 = performance.now();
    const cp = cf.cp;
    for (const [n, ...a] of calls.get(name)) check += cp[n](...a);
    const t2 = performance.now();
    check += cf.toBytes().length;
    const t3 = performance.now();
    parse += t1 - t0;
    lookups += t2 - t1;
    write += t3 - t2;
  }
  return { parse, lookups, write, total: parse + lookups + write, check };
}

const calls = await record();
const classes = jarClasses([...calls.keys()]);
const builds = [['this', join(REPO, 'dist')]];
if (against) builds.push(['against', against]);
const runs = [];
for (const [label, dist] of builds) runs.push({ label, ClassFile: (await import(join(dist, 'classfile/classfile.js'))).ClassFile, results: [] });
console.log(`${jar}: ${classes.length} classes, ${[...calls.values()].reduce((n, l) => n + l.length, 0)} builder calls recorded`);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < runs.length; k++) {
    const run = runs[(k + r) % runs.length];
    run.results.push(replay(run.ClassFile, classes, calls));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const checks = new Set(runs.map((run) => run.results[0].check));
for (const run of runs) {
  const m = (k) => median(run.results.slice(1).map((x) => x[k])).toFixed(0).padStart(5);
  console.log(
    `${run.label.padEnd(8)} first round ${run.results[0].total.toFixed(0).padStart(5)} ms; later rounds (median): ` +
      `total ${m('total')} ms = parse ${m('parse')} + lookups ${m('lookups')} + toBytes ${m('write')}`,
  );
}
if (checks.size !== 1) {
  console.error('the builds returned different indices or class sizes');
  process.exit(1);
}
