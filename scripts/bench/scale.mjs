#!/usr/bin/env node
// `instrument` at scale (issue 23, target 6): one classpath of about 100 MB of real Debian jars,
// rewritten as one program (`instrument a.jar b.jar … -d out`), cold (--no-cache), at 1, 2 and more
// workers (KOMORIUM_WORKERS), interleaved, medians. Reports MB/s of jar and of class bytes, CPU time
// and peak resident memory. Writes bench-scale.json and BENCHMARKS-scale.md.
//   npm run build && node scripts/bench/scale.mjs [--mb 100] [--workers 1,2,4] [--reps 3]
//   (or npm run bench -- --kind scale …)
import { lstatSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE, REPO, WORKLOADS, instrumentSpeedJars } from './workloads.mjs';
import { freshDir, instrumentSummary, log, median, parseOptions, rotate, runProcess, saveJson, sh, snapshotBuild } from './util.mjs';
import { loadavg, machineInfo } from './machine.mjs';

const DIR = '/usr/share/java';
const SNAPSHOT = join(CACHE, 'scale', 'snapshot');
const CLI = join(SNAPSHOT, 'bin', 'komorium-ts.js');

function defaultWorkers() {
  const n = availableParallelism();
  const list = [1, 2];
  for (let w = 4; w <= n; w *= 2) list.push(w);
  return list;
}

const HELP = `usage: node scripts/bench/scale.mjs [--mb 100] [--workers ${defaultWorkers().join(',')}] [--reps 3]
  --mb N         pick real jars of ${DIR} until their sizes add up to N MB (10^6 bytes)
  --workers a,b  worker counts to time (KOMORIUM_WORKERS; 1 = no worker, the rewrite on the main thread)
  --reps N       timed repetitions of each, interleaved (default 3)`;

function parse(argv) {
  return parseOptions(argv, HELP, { mb: 100, workers: defaultWorkers(), reps: 3, json: join(REPO, 'bench-scale.json'), md: join(REPO, 'BENCHMARKS-scale.md') }, {
    values: {
      '--mb': (o, v) => { o.mb = Number(v); },
      '--workers': (o, v) => { o.workers = v.split(',').map(Number); },
      '--reps': (o, v) => { o.reps = Number(v); },
      '--json': (o, v) => { o.json = v; },
      '--md': (o, v) => { o.md = v; },
    },
  });
}

/** Class entries of a jar and their uncompressed bytes (`unzip -Zl`: the size is the fourth column). */
function classEntries(jar) {
  const names = [];
  let bytes = 0;
  for (const line of sh('unzip', ['-Zl', jar]).split('\n')) {
    const cols = line.trim().split(/\s+/);
    const name = cols[cols.length - 1] ?? '';
    if (cols.length < 10 || !name.endsWith('.class') || name.startsWith('META-INF/')) continue;
    names.push(name);
    bytes += Number(cols[3]);
  }
  return { names, bytes };
}

/**
 * The bench workloads' jars and the instrument-speed jars first, then the largest other jars of the
 * folder, each once (symbolic links resolved), none that holds a class an earlier one holds: one
 * program has one class of a name, as one class path does.
 */
function pickJars(mb) {
  const wanted = [];
  for (const w of WORKLOADS) {
    try {
      const spec = w.setup({});
      wanted.push(...spec.instrument, ...spec.lib);
    } catch {
      // a workload whose package is missing: its jars are simply not first
    }
  }
  wanted.push(...instrumentSpeedJars().map((j) => j.path));
  const rest = readdirSync(DIR)
    .filter((f) => f.endsWith('.jar') && !lstatSync(join(DIR, f)).isSymbolicLink())
    .map((f) => join(DIR, f))
    .sort((a, b) => statSync(b).size - statSync(a).size || a.localeCompare(b));
  const seen = new Set();
  const picked = [];
  let total = 0;
  for (const j of [...wanted, ...rest]) {
    if (total >= mb * 1e6) break;
    let p;
    try {
      p = realpathSync(j);
    } catch {
      continue;
    }
    if (!p.startsWith(`${DIR}/`) || picked.some((x) => x.path === p)) continue;
    let e;
    try {
      e = classEntries(p);
    } catch {
      continue; // not a zip unzip can list
    }
    if (e.names.length === 0 || e.names.some((n) => seen.has(n))) continue;
    for (const n of e.names) seen.add(n);
    const bytes = statSync(p).size;
    picked.push({ path: p, bytes, classes: e.names.length, classBytes: e.bytes });
    total += bytes;
  }
  return picked;
}

async function runOnce(jars, workers, out) {
  freshDir(out);
  const env = { ...process.env, KOMORIUM_WORKERS: String(workers) };
  const r = await runProcess(process.execPath, [CLI, 'instrument', ...jars.map((j) => j.path), '-d', out, '--no-cache'], {
    env,
    timeFile: join(CACHE, 'scale', '.time'),
  });
  const text = `${r.stdout}${r.stderr}`;
  if (r.code !== 0) throw new Error(`instrument with ${workers} worker(s) exited ${r.code}: ${text.trim().split('\n').slice(-3).join(' | ')}`);
  const outBytes = jars.reduce((s, j) => s + statSync(join(out, basename(j.path))).size, 0);
  return { wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssKb: r.maxRssKb, outBytes, summary: instrumentSummary(text), text };
}

function markdown(res) {
  const mb = (b) => (b / 1e6).toFixed(1);
  const L = [
    '# `instrument` at scale (issue 23, target 6)',
    '',
    `Generated by \`node scripts/bench/scale.mjs --mb ${res.settings.mb} --workers ${res.settings.workers.join(',')} --reps ${res.settings.reps}\` (\`npm run bench -- --kind scale\`) into bench-scale.json, ${res.startedAt.slice(0, 16).replace('T', ' ')}–${res.finishedAt.slice(11, 16)} UTC, commit ${res.machine.commit}.`,
    `Machine: ${res.machine.nproc} cores (${res.machine.cpu}), ${res.machine.memoryGiB} GiB, Node ${res.machine.node}; load average ${res.loadStart} at the start, ${res.loadEnd} at the end.`,
    '',
    `The input: ${res.jars.length} real jars of ${DIR} (${mb(res.inputBytes)} MB of jars, ${mb(res.classBytes)} MB of classes uncompressed, ${res.classes.toLocaleString('en-US')} classes), ` +
      'rewritten as one program by one command (`instrument a.jar b.jar … -d out --no-cache`, the default Komorium profile), as a build would instrument an application and its libraries. ' +
      'The bench workloads\' and instrument-speed jars come first, then the largest other jars, leaving out any jar that holds a class an earlier one holds. ' +
      'Jars not in the set are not on `--classpath`, so `instrument` warns where a superclass or a callee is missing (the count below); those classes are still rewritten.',
    '',
    `Each worker count ran ${res.settings.reps} times, interleaved (the order rotated each round); medians. "1" is the rewrite on the main thread, no worker; KOMORIUM_WORKERS=N starts N worker threads. MB/s is jar bytes (and class bytes) over wall time. CPU is user + system of the whole process.`,
    '',
    '| workers | wall | CPU | peak RSS | MB/s of jars | MB/s of classes | speed-up (wall) | CPU / wall |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const one = res.byWorkers[res.settings.workers[0]];
  for (const w of res.settings.workers) {
    const x = res.byWorkers[w];
    L.push(`| ${w} | ${(x.wallMs / 1000).toFixed(1)} s | ${(x.cpuMs / 1000).toFixed(1)} s | ${(x.maxRssKb / 1024).toFixed(0)} MiB | ${(res.inputBytes / 1e6 / (x.wallMs / 1000)).toFixed(2)} | ${(res.classBytes / 1e6 / (x.wallMs / 1000)).toFixed(2)} | ${(one.wallMs / x.wallMs).toFixed(2)}× | ${(x.cpuMs / x.wallMs).toFixed(2)} |`);
  }
  const s = res.summary;
  L.push('');
  L.push(`Output: ${mb(res.outBytes)} MB of jars; ${s.classes.toLocaleString('en-US')} classes, ${s.methods.toLocaleString('en-US')} methods; ${s.leftAsTheyWere} methods left as they were, ${s.jitLimit} past HugeMethodLimit (the summary says which and why); ${s.warnings} warnings about classes missing from the class path. Every run's output jars were byte-identical to the first run's: ${res.identical ? 'yes' : '**NO**'}.`);
  L.push('');
  L.push(`Runs (wall s): ${res.settings.workers.map((w) => `${w}: ${res.runs[w].map((r) => (r.wallMs / 1000).toFixed(1)).join(', ')}`).join('; ')}.`);
  L.push('');
  if (res.machine.nproc <= 2) {
    L.push(`This machine has ${res.machine.nproc} cores: more workers than cores cannot run at once, and the main thread (reading, writing the jars) and V8's compiler and GC threads need a core too. The scaling beyond 2 workers needs a larger machine; the command above measures it there.`);
    L.push('');
  }
  L.push('| jar | MB | classes | MB of classes |', '| --- | ---: | ---: | ---: |');
  for (const j of res.jars) L.push(`| ${basename(j.path)} | ${mb(j.bytes)} | ${j.classes} | ${mb(j.classBytes)} |`);
  L.push('');
  return L.join('\n');
}

export async function runKindBench(argv) {
  const o = parse(argv);
  if (!o.workers.every((w) => Number.isInteger(w) && w >= 1)) throw new Error('--workers: a list of integers ≥ 1');
  snapshotBuild(REPO, SNAPSHOT);
  const res = { startedAt: new Date().toISOString(), settings: { mb: o.mb, workers: o.workers, reps: o.reps }, loadStart: loadavg(), machine: machineInfo() };
  const jars = pickJars(o.mb);
  res.jars = jars;
  res.inputBytes = jars.reduce((s, j) => s + j.bytes, 0);
  res.classBytes = jars.reduce((s, j) => s + j.classBytes, 0);
  res.classes = jars.reduce((s, j) => s + j.classes, 0);
  log(`scale: ${jars.length} jars, ${(res.inputBytes / 1e6).toFixed(1)} MB, ${res.classes} classes`);
  const out = join(CACHE, 'scale', 'out');
  const first = join(CACHE, 'scale', 'first');
  res.runs = Object.fromEntries(o.workers.map((w) => [w, []]));
  res.identical = true;
  for (let rep = 0; rep < o.reps; rep++) {
    for (const w of rotate(o.workers, rep)) {
      const r = await runOnce(jars, w, out);
      if (res.summary === undefined) {
        res.summary = r.summary;
        res.outBytes = r.outBytes;
        freshDir(first);
        sh('cp', ['-r', `${out}/.`, first]);
      } else if (sh('sh', ['-c', `diff -rq "${first}" "${out}" >/dev/null && echo same || echo differ`]).trim() !== 'same') res.identical = false;
      res.runs[w].push({ wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssKb: r.maxRssKb });
      log(`scale: rep ${rep + 1} workers ${w}: ${(r.wallMs / 1000).toFixed(1)} s wall, ${(r.cpuMs / 1000).toFixed(1)} s CPU, ${(r.maxRssKb / 1024).toFixed(0)} MiB; load ${loadavg()}`);
    }
  }
  res.byWorkers = Object.fromEntries(
    o.workers.map((w) => [w, Object.fromEntries(['wallMs', 'cpuMs', 'maxRssKb'].map((k) => [k, median(res.runs[w].map((r) => r[k]))]))]),
  );
  res.finishedAt = new Date().toISOString();
  res.loadEnd = loadavg();
  saveJson(o.json, res);
  writeFileSync(o.md, markdown(res));
  log(`scale: wrote ${relative(REPO, o.md)} and ${relative(REPO, o.json)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runKindBench(process.argv.slice(2)).catch((e) => {
    console.error(e.stack ?? String(e));
    process.exit(1);
  });
}
