#!/usr/bin/env node
// Issue 21's measurements (`npm run bench -- --kind hps …`, or `node scripts/bench/hps.mjs …`): bursty
// tracing (seed 001) on the six bench workloads, with each check mechanism, for the three kinds
// hot-methods, call-pairs and data-streams. Writes bench-hps.json and BENCHMARKS-hps.md.
//
// Parts (--parts, default all three):
//   mechanisms  hot-methods under every mechanism: the basic overhead (checks, and for the timer
//               mechanisms the armed counting and the switches, but no burst ever starts), the
//               cost of a check never armed, the total and the accuracy at 1/1000, burst 1; and
//               burst-indy at a ten times shorter period, for the cost of a switch.
//   layout      hot-methods with the counters and the winner laid out without duplication (no-dup:
//               each probe behind its own check): what the second copy of the code costs the JIT.
//   kinds       call-pairs and data-streams with the software counters and the winning mechanism:
//               basic overhead, total and accuracy at the issue's targets (1/1000, burst 1; data
//               streams 1/1000, burst 100).
//   grid        the paper's Figure 8/10 grid for every kind, with the counters and the winner:
//               burst length {1,10,50,100} × frequency {1/100 … 1/10000}, one run each: accuracy
//               against the exhaustive profile (90% cut-off) and the run's wall time.
// Timed configurations run round-robin with the uninstrumented program, rotated every repetition,
// and each ratio divides by the uninstrumented time of the same repetition; the medians are kept.
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { CACHE, REPO, WORKLOADS, driversDir, javaBin } from './workloads.mjs';
import { TIME_BIN, collectFiles, freshDir, log, median, parseOptions, rotate, runProcess } from './util.mjs';
import { pickWinner, writeHpsReport } from './hps-report.mjs';

export { pickWinner };

export const KINDS = ['hot-methods', 'call-pairs', 'data-streams'];
export const MECHANISMS = ['counter', 'flag', 'volatile', 'indy'];
export const LENGTHS = [1, 10, 50, 100];
export const FREQUENCIES = [100, 500, 1000, 5000, 10000];
const NEVER = 2147483647;
/**
 * The exhaustive data-stream runs: in a JVM capped at 1.5 GiB (the stated memory bound; the
 * programs themselves peak at 1 GiB of RSS or less), every window analysed but for sunflow's 5.2
 * billion references, where one window in 4 is (hours otherwise on this machine), which its
 * profile and the page say.
 */
const DS_EXHAUSTIVE_PROPS = ['-Xmx1536m'];
const DS_EVERY = { sunflow: 4 };
/** --ds-every N: every workload's exhaustive data-stream run analyses one window in N (a short run). */
let dsEveryAll = null;

/** The issue's targets: hot methods and call pairs at 1/1000, burst 1; data streams at burst 100. */
export const TARGET = { 'hot-methods': { f: 1000, l: 1 }, 'call-pairs': { f: 1000, l: 1 }, 'data-streams': { f: 1000, l: 100 } };

const HELP = `usage: node scripts/bench/hps.mjs [options]   (or npm run bench -- --kind hps [options])
  --parts a,b        mechanisms, layout, kinds, grid (default mechanisms, kinds, grid)
  --workloads a,b    subset of ${WORKLOADS.map((w) => w.id).join(', ')}
  --reps N           timed repetitions (default 3)
  --mechanisms a,b   the mechanisms part's mechanisms (default ${MECHANISMS.join(',')}; indy's switching
                     runs take minutes to hours of a loaded machine per workload)
  --kinds a,b        the kinds the kinds and grid parts measure (default ${KINDS.join(',')})
  --winner M         the mechanism the kinds and grid parts use beside the counters (default: the one
                     with the lowest geometric-mean basic overhead whose accuracy at 1/1000 is within
                     2 points of the counters', from the mechanisms part of the JSON; else flag)
  --lengths a,b      burst lengths of the grid (default ${LENGTHS.join(',')})
  --freqs a,b        sparsity denominators of the grid (default ${FREQUENCIES.join(',')})
  --ds-every N       the exhaustive data-stream runs analyse one window in N on every workload
  --report-only      rewrite BENCHMARKS-hps.md from the JSON
  --json PATH  --md PATH`;

function parseArgs(argv) {
  const defaults = {
    parts: new Set(['mechanisms', 'kinds', 'grid']),
    workloads: null,
    reps: 3,
    winner: null,
    mechanisms: MECHANISMS,
    kinds: KINDS,
    lengths: LENGTHS,
    freqs: FREQUENCIES,
    reportOnly: false,
    json: join(REPO, 'bench-hps.json'),
    md: join(REPO, 'BENCHMARKS-hps.md'),
  };
  const o = parseOptions(argv, HELP, defaults, {
    flags: { '--report-only': (o) => (o.reportOnly = true) },
    values: {
      '--parts': (o, v) => (o.parts = new Set(v.split(','))),
      '--workloads': (o, v) => (o.workloads = v.split(',')),
      '--reps': (o, v) => (o.reps = Number(v)),
      '--winner': (o, v) => (o.winner = v),
      '--mechanisms': (o, v) => (o.mechanisms = v.split(',')),
      '--kinds': (o, v) => (o.kinds = v.split(',')),
      '--lengths': (o, v) => (o.lengths = v.split(',').map(Number)),
      '--freqs': (o, v) => (o.freqs = v.split(',').map(Number)),
      '--ds-every': (o, v) => (o.dsEvery = Number(v)),
      '--json': (o, v) => (o.json = v),
      '--md': (o, v) => (o.md = v),
    },
  });
  if (o.dsEvery !== undefined && !(Number.isInteger(o.dsEvery) && o.dsEvery >= 1)) throw new Error('--ds-every must be a whole number, at least 1');
  if (!(o.reps >= 1)) throw new Error('--reps must be at least 1');
  if (!o.mechanisms.every((m) => MECHANISMS.includes(m))) throw new Error(`--mechanisms must be among ${MECHANISMS.join(', ')}`);
  if (!o.kinds.every((k) => KINDS.includes(k))) throw new Error(`--kinds must be among ${KINDS.join(', ')}`);
  if (o.winner && !MECHANISMS.includes(o.winner)) throw new Error(`--winner must be one of ${MECHANISMS.join(', ')}`);
  return o;
}

const loadavg = () => (existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : '');

// The runs use a copy of the build taken at the start, so that rebuilding the work tree cannot mix versions.
const SNAPSHOT = join(CACHE, 'hps-snapshot');
function snapshot() {
  const jar = join(REPO, 'runtime-java', 'build', 'komorium-runtime.jar');
  if (!existsSync(join(REPO, 'dist', 'cli')) || !existsSync(jar)) throw new Error('run `npm run build` first');
  freshDir(SNAPSHOT);
  for (const d of ['bin', 'dist']) cpSync(join(REPO, d), join(SNAPSHOT, d), { recursive: true, filter: (s) => !s.endsWith('.map') });
  cpSync(join(REPO, 'package.json'), join(SNAPSHOT, 'package.json'));
  mkdirSync(join(SNAPSHOT, 'runtime-java', 'build'), { recursive: true });
  cpSync(jar, join(SNAPSHOT, 'runtime-java', 'build', 'komorium-runtime.jar'));
  const git = (args) => spawnSync('git', args, { cwd: REPO, encoding: 'utf8' }).stdout.trim();
  return git(['rev-parse', '--short', 'HEAD']) + (git(['status', '--porcelain', '--', 'src', 'runtime-java']) ? '+dirty' : '');
}

/** The jars of a workload instrumented for one kind and variant (a mechanism or exhaustive), kept across runs of the same build. */
async function instrumented(wl, spec, kind, variant, commit) {
  const dir = join(CACHE, 'hps', wl.id, `${kind}-${variant}`);
  const stamp = join(dir, 'STAMP');
  const jars = spec.instrument.map((j) => join(dir, basename(j)));
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === commit && !commit.endsWith('+dirty')) return { jars, cached: true };
  freshDir(dir);
  // A variant is a mechanism, `mechanism@layout`, or exhaustive.
  const [mechanism, layout] = variant.split('@');
  const how = variant === 'exhaustive' ? ['--layout', 'exhaustive'] : ['--trigger', `burst-${mechanism}`, ...(layout ? ['--layout', layout] : [])];
  let wallMs = 0;
  for (const jar of spec.instrument) {
    const cp = [...spec.instrument.filter((j) => j !== jar), ...spec.lib];
    const r = await runProcess(process.execPath, [join(SNAPSHOT, 'bin', 'komorium-ts.js'), 'instrument', jar, '-o', join(dir, basename(jar)), '-q', '--profile', kind, ...how, ...(cp.length ? ['--classpath', ...cp] : [])], {});
    wallMs += r.wallMs;
    if (r.code !== 0) throw new Error(`instrument ${basename(jar)} --profile ${kind} ${how.join(' ')} failed: ${`${r.stderr}`.trim().split('\n').slice(-3).join(' | ')}`);
  }
  writeFileSync(stamp, commit);
  return { jars, cached: false, wallMs };
}

/**
 * A whole process under /usr/bin/time: wall time (a monotonic clock around the spawn), peak RSS,
 * and CPU time (user + system, all threads: the program and the JIT), which the other engineers'
 * JVMs on the same 2 cores disturb less than wall time.
 */
async function timedProcess(cmd, args, cwd, timeFile) {
  const r = await runProcess(TIME_BIN, ['-f', '%e %M %U %S', '-o', timeFile, cmd, ...args], { cwd, timeoutMs: 7_200_000 });
  const last = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').at(-1) : '';
  const m = /^([\d.]+) (\d+) ([\d.]+) ([\d.]+)$/.exec(last ?? '');
  rmSync(timeFile, { force: true });
  return { ...r, maxRssKb: m ? Number(m[2]) : null, cpuMs: m ? (Number(m[3]) + Number(m[4])) * 1000 : null };
}

/** What a run is compared on: exit code, stdout, stderr (without the runtime's own lines), the files it wrote. */
function outcome(r, cwd) {
  const strip = (b) => b.toString('latin1').replace(/^komorium: .*\n/gm, '');
  return { code: r.code, stdout: strip(r.stdout), stderr: strip(r.stderr), files: collectFiles(cwd) };
}

function differences(ref, got) {
  const d = [];
  if (ref.code !== got.code) d.push(`exit ${got.code} instead of ${ref.code}`);
  if (ref.stdout !== got.stdout) d.push('stdout differs');
  if (ref.stderr !== got.stderr) d.push(`stderr differs: …${got.stderr.slice(-200)}`);
  for (const n of new Set([...ref.files.keys(), ...got.files.keys()])) {
    if (!ref.files.get(n)?.equals(got.files.get(n) ?? Buffer.alloc(0)) || !got.files.has(n)) d.push(`file ${n} differs`);
  }
  return d;
}

/** -D options for a burst setting: frequency 1/f with bursts of l checks (sparsity = l·f − l), or no burst ever. */
function burstProps({ f, l, never, neverArmed, period }) {
  const p = [];
  if (never) p.push(`-Dkomorium.burst.sparsity=${NEVER}`, '-Dkomorium.burst.length=1');
  else p.push(`-Dkomorium.burst.sparsity=${l * f - l}`, `-Dkomorium.burst.length=${l}`);
  if (neverArmed) p.push(`-Dkomorium.burst.period=${NEVER}`, '-Dkomorium.burst.awake=1');
  if (period) p.push(`-Dkomorium.burst.period=${period}`, `-Dkomorium.burst.awake=${Math.max(1, period / 10)}`);
  return p;
}

/** The configurations of the selected parts: id, kind, variant, -D options, timed or not. */
function configsFor(opts, winner, wl) {
  const list = [{ id: 'base', kind: null, variant: 'base', props: [], timed: true }];
  const add = (c) => {
    // Each kind's exhaustive profile, the ground truth, comes before the first run that needs it.
    if (c.kind && !list.some((x) => x.id === `${c.kind}/exhaustive`)) {
      const props = c.kind === 'data-streams' ? [...DS_EXHAUSTIVE_PROPS, ...((dsEveryAll ?? DS_EVERY[wl.id]) ? [`-Dkomorium.streams.every=${dsEveryAll ?? DS_EVERY[wl.id]}`] : [])] : [];
      list.push({ id: `${c.kind}/exhaustive`, kind: c.kind, variant: 'exhaustive', props, timed: false, exhaustive: true });
    }
    if (!list.some((x) => x.id === c.id)) list.push(c);
  };
  if (opts.parts.has('mechanisms')) {
    const kind = 'hot-methods';
    const t = TARGET[kind];
    // Every mechanism is timed, indy's switching too: at load 20-35 (2026-11-25) its runs took
    // minutes, at low load (2026-11-27) 3-52 s.
    for (const m of opts.mechanisms) {
      add({ id: `${kind}/${m}/basic`, kind, variant: m, props: burstProps({ never: true }), timed: true, role: 'basic' });
      if (m !== 'counter') add({ id: `${kind}/${m}/never-armed`, kind, variant: m, props: burstProps({ never: true, neverArmed: true }), timed: true, role: 'never-armed' });
      add({ id: `${kind}/${m}/total`, kind, variant: m, props: burstProps(t), timed: true, role: 'total', f: t.f, l: t.l });
    }
    if (opts.mechanisms.includes('indy')) add({ id: `${kind}/indy/basic-period-100`, kind, variant: 'indy', props: burstProps({ never: true, period: 100 }), timed: true, role: 'switching' });
    // The flag armed half the time: what more armed time buys in accuracy and costs in counting.
    if (opts.mechanisms.includes('flag')) {
      const half = ['-Dkomorium.burst.awake=5', '-Dkomorium.burst.period=10'];
      add({ id: `${kind}/flag/basic-awake-5`, kind, variant: 'flag', props: [...burstProps({ never: true }), ...half], timed: true, role: 'duty' });
      add({ id: `${kind}/flag/total-awake-5`, kind, variant: 'flag', props: [...burstProps(t), ...half], timed: true, role: 'duty', f: t.f, l: t.l });
    }
  }
  if (opts.parts.has('layout')) {
    // The same checks and probes without a second copy of the code: what duplication costs the JIT.
    const t = TARGET['hot-methods'];
    for (const m of ['counter', winner]) {
      add({ id: `hot-methods/${m}@no-dup/basic`, kind: 'hot-methods', variant: `${m}@no-dup`, props: burstProps({ never: true }), timed: true, role: 'basic' });
      add({ id: `hot-methods/${m}@no-dup/total`, kind: 'hot-methods', variant: `${m}@no-dup`, props: burstProps(t), timed: true, role: 'total', f: t.f, l: t.l });
      add({ id: `hot-methods/${m}/basic`, kind: 'hot-methods', variant: m, props: burstProps({ never: true }), timed: true, role: 'basic' });
      add({ id: `hot-methods/${m}/total`, kind: 'hot-methods', variant: m, props: burstProps(t), timed: true, role: 'total', f: t.f, l: t.l });
    }
  }
  if (opts.parts.has('kinds')) {
    for (const kind of opts.kinds) {
      const t = TARGET[kind];
      for (const m of ['counter', winner]) {
        add({ id: `${kind}/${m}/basic`, kind, variant: m, props: burstProps({ never: true }), timed: true, role: 'basic' });
        add({ id: `${kind}/${m}/total`, kind, variant: m, props: burstProps(t), timed: true, role: 'total', f: t.f, l: t.l });
      }
    }
  }
  if (opts.parts.has('grid')) {
    for (const kind of opts.kinds) {
      for (const m of ['counter', winner]) {
        for (const l of opts.lengths) {
          for (const f of opts.freqs) add({ id: `${kind}/${m}/grid-${l}-${f}`, kind, variant: m, props: burstProps({ f, l }), timed: false, role: 'grid', f, l });
        }
      }
    }
  }
  return list;
}

function profileStats(text) {
  const get = (name) => new RegExp(`^${name}\\t(.*)$`, 'm').exec(text)?.[1]?.split('\t').map(Number) ?? null;
  const armed = get('armed');
  const streams = get('streams');
  return {
    bursts: get('samples')?.[0] ?? null,
    armedShare: armed ? armed[2] / 1e6 : null,
    switches: armed ? armed[3] : null,
    lateMs: armed ? armed[4] / 1000 : null,
    armedSparsity: get('burst')?.[2] ?? null,
    ...(streams ? { references: streams[0], streamHeat: streams[1], windows: streams[2], streamsFound: streams[3], every: streams[5], skippedReferences: streams[6] } : {}),
  };
}

async function benchWorkload(wl, opts, winner, commit, lib, progress) {
  const spec = wl.setup({ quick: false });
  const wdir = freshDir(join(CACHE, 'work', `hps-${wl.id}`));
  const art = join(wdir, 'profiles');
  mkdirSync(art);
  const drivers = spec.drivers ? [driversDir()] : [];
  const res = { id: wl.id, title: wl.title, loadStart: loadavg(), configs: {}, instrument: {} };
  const configs = configsFor(opts, winner, wl);
  const jarsOf = {};
  for (const c of configs.filter((x) => x.kind)) {
    const key = `${c.kind}-${c.variant}`;
    if (jarsOf[key]) continue;
    const r = await instrumented(wl, spec, c.kind, c.variant, commit);
    jarsOf[key] = r.jars;
    res.instrument[key] = { cached: r.cached, wallMs: r.wallMs ?? null };
    log(`${wl.id}: ${key} ${r.cached ? 'instrumented before' : `instrumented in ${(r.wallMs / 1000).toFixed(1)} s`}`);
  }
  const java = javaBin('java');
  const run = async (c, tag) => {
    const cwd = freshDir(join(wdir, 'run'));
    const cp = [...(c.kind ? jarsOf[`${c.kind}-${c.variant}`] : spec.instrument), ...spec.lib, ...drivers];
    const out = join(art, `${c.id.replaceAll('/', '_')}-${tag}.kprof`);
    const args = [...(c.kind ? ['-Dkomorium.quiet=true', `-Dkomorium.out=${out}`, ...c.props] : []), '-cp', cp.join(':'), spec.main, ...spec.args];
    const r = await timedProcess(java, args, cwd, join(wdir, '.time'));
    return { r, outcome: outcome(r, cwd), profile: out };
  };

  // 1. The uninstrumented output, then every configuration once against it: the exhaustive
  //    profiles (the ground truth), the grid's runs, and the first look at the timed ones.
  const ref = await run(configs[0], 'v');
  res.baseCode = ref.r.code;
  // Until the timed rounds, the uninstrumented verification run is the reference of the single runs.
  res.base = { wallMs: [ref.r.wallMs], medianMs: ref.r.wallMs, cpuMs: [ref.r.cpuMs], medianCpuMs: ref.r.cpuMs, single: true };
  // How many configurations the timed rounds will run (fewer if one changes the output), so that
  // the merge knows from the first save whether this run times anything.
  res.timedConfigs = configs.filter((c) => c.timed && c.kind).length;
  for (const c of configs.slice(1)) {
    const v = await run(c, 'v');
    const problems = differences(ref.outcome, v.outcome);
    const text = existsSync(v.profile) ? readFileSync(v.profile, 'utf8') : '';
    res.configs[c.id] = {
      kind: c.kind, variant: c.variant, role: c.role ?? (c.exhaustive ? 'exhaustive' : null), f: c.f ?? null, l: c.l ?? null, props: c.props,
      verified: problems.length === 0, problems, verifyWallMs: v.r.wallMs, verifyCpuMs: v.r.cpuMs, verifyMaxRssKb: v.r.maxRssKb, profileBytes: text.length, ...profileStats(text),
    };
    log(`${wl.id}: ${c.id.padEnd(36)} ${problems.length ? `OUTPUT DIFFERS: ${problems.join('; ')}` : 'same output'} (${(v.r.wallMs / 1000).toFixed(1)} s, ${(v.r.maxRssKb / 1024).toFixed(0)} MiB)`);
    // 2. Its accuracy against its kind's exhaustive profile, which ran before it, and the results
    //    so far handed on after every run: a grid of many single runs stopped part-way keeps its cells.
    if (!c.exhaustive) accuracyInto(c);
    singleRatios(res, configs);
    progress({ ...res, partial: `verification runs: ${configs.indexOf(c)} of ${configs.length - 1}` });
  }
  function accuracyInto(c) {
    const exact = join(art, `${c.kind}_exhaustive-v.kprof`);
    const sampled = join(art, `${c.id.replaceAll('/', '_')}-v.kprof`);
    const rc = res.configs[c.id];
    if (!existsSync(exact) || !existsSync(sampled) || !rc.verified) return;
    try {
      const [e, s] = [lib.readDocument(exact), lib.readDocument(sampled)];
      const cut = lib.accuracyOf(e, s, { cutoff: 0.9 }).find((a) => a.kind === c.kind);
      const all = lib.accuracyOf(e, s).find((a) => a.kind === c.kind);
      rc.accuracy = cut?.overlap ?? null;
      rc.accuracyUncut = all?.overlap ?? null;
      rc.keys = cut?.keys ?? null;
    } catch (err) {
      rc.accuracyError = String(err.message ?? err);
    }
  }
  // 3. Timing: the timed configurations that kept the output, round-robin with the uninstrumented run.
  //    The results so far are handed to `progress` after the verification runs and after every
  //    round, so that a run stopped part-way keeps what it measured.
  const timed = configs.filter((c) => c.timed && (c.variant === 'base' || res.configs[c.id]?.verified));
  const times = Object.fromEntries(timed.map((c) => [c.id, []]));
  // A run that times nothing but the uninstrumented program (the grid alone) has no rounds: its
  // single runs stay against the uninstrumented verification run, and the merge keeps the timed
  // rounds' reference of earlier runs (runKindBench, keep).
  res.timedConfigs = timed.length - 1;
  singleRatios(res, configs);
  progress({ ...res, partial: 'verification runs only' });
  for (let rep = 0; rep < (res.timedConfigs > 0 ? opts.reps : 0); rep++) {
    const before = loadavg();
    for (const c of rotate(timed, rep)) {
      const { r } = await run(c, `r${rep}`);
      times[c.id].push({ rep, wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssKb: r.maxRssKb });
      rmSync(join(art, `${c.id.replaceAll('/', '_')}-r${rep}.kprof`), { force: true });
    }
    log(`${wl.id}: rep ${rep + 1}/${opts.reps} done (load ${before} → ${loadavg()})`);
    summarizeTimes(res, configs, timed, times);
    res.loadEnd = loadavg();
    if (rep + 1 < opts.reps) progress({ ...res, partial: `${rep + 1} of ${opts.reps} timed rounds` });
  }
  res.loadEnd = loadavg();
  return res;
}

/** Medians of the timed rounds so far, and the untimed configurations' single runs against them. */
function summarizeTimes(res, configs, timed, times) {
  const base = times.base;
  res.base = { wallMs: base.map((t) => t.wallMs), medianMs: median(base.map((t) => t.wallMs)), cpuMs: base.map((t) => t.cpuMs), medianCpuMs: median(base.map((t) => t.cpuMs)) };
  for (const c of timed.slice(1)) {
    const rc = res.configs[c.id];
    rc.wallMs = times[c.id].map((t) => t.wallMs);
    rc.cpuMs = times[c.id].map((t) => t.cpuMs);
    rc.ratios = times[c.id].map((t) => t.wallMs / base.find((b) => b.rep === t.rep).wallMs);
    rc.medianRatio = median(rc.ratios);
    rc.cpuRatios = times[c.id].map((t) => (t.cpuMs && base.find((b) => b.rep === t.rep).cpuMs ? t.cpuMs / base.find((b) => b.rep === t.rep).cpuMs : null));
    rc.medianCpuRatio = median(rc.cpuRatios);
    rc.medianMaxRssKb = median(times[c.id].map((t) => t.maxRssKb));
  }
  singleRatios(res, configs);
}

/** The untimed configurations' single runs, against the median uninstrumented time (and before any timed round, the timed ones' too). */
function singleRatios(res, configs) {
  for (const c of configs.filter((x) => !x.timed || res.base.single)) {
    const rc = res.configs[c.id];
    if (rc?.verifyWallMs && res.base.medianMs) rc.singleRatio = rc.verifyWallMs / res.base.medianMs;
    if (rc?.verifyCpuMs && res.base.medianCpuMs) rc.singleCpuRatio = rc.verifyCpuMs / res.base.medianCpuMs;
  }
}

function saveJson(path, data) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 1)}\n`);
  renameSync(tmp, path);
}

export async function runKindBench(argv) {
  const opts = parseArgs(argv);
  dsEveryAll = opts.dsEvery ?? null;
  const previous = existsSync(opts.json) ? JSON.parse(readFileSync(opts.json, 'utf8')) : null;
  if (opts.reportOnly) {
    writeHpsReport(previous, opts.md, opts.json);
    log(`wrote ${relative(REPO, opts.md)} from ${relative(REPO, opts.json)}`);
    return;
  }
  // The JVM mechanism the kinds and grid parts measure beside the software counters.
  const winner = opts.winner ?? (previous ? pickWinner(previous, MECHANISMS.filter((m) => m !== 'counter')) : null) ?? 'flag';
  const commit = snapshot();
  const lib = {
    ...(await import(pathToFileURL(join(SNAPSHOT, 'dist', 'profile', 'read.js')).href)),
    ...(await import(pathToFileURL(join(SNAPSHOT, 'dist', 'kinds', 'documents.js')).href)),
  };
  // Parts run before keep their results: a run of one part adds to the JSON.
  const results = previous?.format === 'komorium-bench-hps/1' ? previous : { format: 'komorium-bench-hps/1', workloads: {} };
  results.runs ??= [];
  // Only the kinds, layout and grid parts measure the winner; a run of the mechanisms alone keeps the
  // winner that the earlier parts' tables were measured with.
  const usesWinner = ['kinds', 'layout', 'grid'].some((p) => opts.parts.has(p));
  const runInfo = { startedAt: new Date().toISOString(), commit, parts: [...opts.parts], reps: opts.reps, mechanisms: opts.mechanisms, kinds: opts.kinds, lengths: opts.lengths, freqs: opts.freqs, dsEvery: opts.dsEvery ?? null, winner: usesWinner ? winner : null, load: loadavg(), workloads: [] };
  results.runs.push(runInfo);
  if (usesWinner) results.winner = winner;
  results.machine = { nproc: Number(spawnSync('nproc', [], { encoding: 'utf8' }).stdout.trim()), jdk: spawnSync(javaBin('java'), ['-version'], { encoding: 'utf8' }).stderr.trim().split('\n')[0] };
  log(`hps: parts ${[...opts.parts].join(',')}, winner ${winner}, ${opts.reps} reps, commit ${commit}, load ${runInfo.load}`);
  for (const wl of WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w.id))) {
    try {
      const old = results.workloads[wl.id];
      // Keep what earlier runs measured for configurations this run did not repeat. A run that timed
      // nothing (the grid) keeps the earlier timed rounds' uninstrumented reference and their stop
      // note, which the earlier configurations' figures belong to; its own single reference goes
      // to the history.
      const keep = (r) => {
        if (!old || old.error) return r;
        const untimed = r.timedConfigs === 0;
        const displaced = untimed ? { base: r.base, loadStart: r.loadStart, loadEnd: r.loadEnd, untimed: true, partial: r.partial } : { base: old.base, loadStart: old.loadStart, loadEnd: old.loadEnd };
        return {
          ...r,
          configs: { ...old.configs, ...r.configs },
          instrument: { ...old.instrument, ...r.instrument },
          base: untimed ? (old.base ?? r.base) : r.base,
          partial: untimed ? old.partial : r.partial,
          history: [...(old.history ?? []), displaced],
        };
      };
      const r = await benchWorkload(wl, opts, winner, commit, lib, (partial) => {
        results.workloads[wl.id] = keep({ ...partial, loadEnd: loadavg() });
        if (!runInfo.workloads.includes(wl.id)) runInfo.workloads.push(wl.id);
        runInfo.loadEnd = loadavg();
        saveJson(opts.json, results);
      });
      results.workloads[wl.id] = keep(r);
    } catch (e) {
      log(`${wl.id}: FAILED: ${e.stack ?? e}`);
      results.workloads[wl.id] = { id: wl.id, error: String(e.message ?? e) };
    }
    if (!runInfo.workloads.includes(wl.id)) runInfo.workloads.push(wl.id);
    runInfo.finishedAt = new Date().toISOString();
    runInfo.loadEnd = loadavg();
    saveJson(opts.json, results);
  }
  writeHpsReport(results, opts.md, opts.json);
  log(`wrote ${relative(REPO, opts.json)} and ${relative(REPO, opts.md)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runKindBench(process.argv.slice(2)).catch((e) => {
    console.error(e.stack ?? String(e));
    process.exit(1);
  });
}
