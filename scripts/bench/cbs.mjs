#!/usr/bin/env node
// The cbs benchmark (issue 20, seed 004): `npm run bench -- --kind cbs [options]`, or this file directly
// after `npm run build`. For each of the six workloads of scripts/bench/workloads.mjs:
//   1. the exhaustive call graph: call-edges, --layout exhaustive, one run (the ground truth);
//   2. the grid of the paper's Table 2: Stride × Samples × trigger (timer, checks), the accuracy of
//      every cell from one run per trigger (komorium.cbs.grid), and the overhead of its corners;
//   3. JFR's jdk.ExecutionSample stacks, top two frames as a call graph, against the same ground truth;
//   4. overhead: Table 3's configurations and the grid's corners, interleaved with the uninstrumented
//      run, medians of --reps (--reps-extra) runs;
//   5. the entry placements (KOMORIUM_CBS_PLACEMENT) measured against the call placement.
// Every run's exit code, stdout, stderr and files are compared with the uninstrumented run.
// Results go to bench-cbs.json (merged per workload, so subsets can be run apart) and BENCHMARKS-cbs.md.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { CACHE, REPO, WORKLOADS, driversDir, javaBin } from './workloads.mjs';
import { freshDir, log, median, parseOptions, rotate, runProcess, saveJson, sh, snapshotBuild } from './util.mjs';
import { compareOutcome, outcomeOf } from './outcome.mjs';
import { loadavg } from './machine.mjs';
import { jfrCallGraph } from './cbs-jfr.mjs';
import { writeCbsReport } from './cbs-report.mjs';

export const STRIDES = [1, 3, 7, 15, 31, 63];
export const SAMPLES = [1, 2, 4, 8, 16, 32, 64];
export const TRIGGERS = ['timer', 'checks'];
/** The defaults of Cbs.java, which the grid chose (BENCHMARKS-cbs.md says how). */
export const DEFAULT = { stride: 7, samples: 16 };
export const PLACEMENTS = ['entry-stack', 'entry-site', 'entry-thread'];

const HELP = `usage: node scripts/bench/cbs.mjs [options]      (npm run bench -- --kind cbs [options] builds first)
  --workloads a,b     subset of: ${WORKLOADS.map((w) => w.id).join(', ')}
  --reps N            timed repetitions of Table 3's configurations (default 5)
  --reps-extra N      of the entry placements, the exhaustive profile and the grid's corners (default 3)
  --strides a,b       grid strides (default ${STRIDES.join(',')})
  --samples a,b       grid samples per window (default ${SAMPLES.join(',')})
  --triggers a,b      grid triggers (default ${TRIGGERS.join(',')})
  --overhead SET      which configurations are timed: all, table3 (Table 3's and the checks alone), extra (the rest)
  --skip x,y          skip parts: grid, jfr, overhead, placements, corners
                      A workload's new results are merged into the JSON's earlier ones (what was skipped is kept).
  --periods a,b       also the counting trigger at these periods (calls per window), Stride and Samples
                      the default's (configurations checks-pN)
  --configs a,b       only these of Table 3's configurations (ids: timer-base, timer-default,
                      checks-default, checks-only, checks-pN), besides the uninstrumented run
  --untimed a,b       of those, these get their verification run (accuracy) but are not timed
  --quick             1 repetition, a 3×3 grid, JFlex's smaller input
  --report-only       regenerate BENCHMARKS-cbs.md from bench-cbs.json
  --json PATH --md PATH   outputs (default bench-cbs.json, BENCHMARKS-cbs.md)`;

function parseArgs(argv) {
  const defaults = {
    workloads: null,
    reps: 5,
    repsExtra: 3,
    overheadSet: 'all',
    strides: STRIDES,
    samples: SAMPLES,
    triggers: TRIGGERS,
    skip: new Set(),
    periods: [],
    only: null,
    untimed: new Set(),
    quick: false,
    reportOnly: false,
    json: join(REPO, 'bench-cbs.json'),
    md: join(REPO, 'BENCHMARKS-cbs.md'),
  };
  const list = (s) => s.split(',').filter(Boolean);
  const o = parseOptions(argv, HELP, defaults, {
    flags: {
      '--quick': (o) => (o.quick = true),
      '--report-only': (o) => (o.reportOnly = true),
    },
    values: {
      '--workloads': (o, v) => (o.workloads = list(v)),
      '--reps': (o, v) => (o.reps = Number(v)),
      '--reps-extra': (o, v) => (o.repsExtra = Number(v)),
      '--overhead': (o, v) => (o.overheadSet = v),
      '--strides': (o, v) => (o.strides = list(v).map(Number)),
      '--samples': (o, v) => (o.samples = list(v).map(Number)),
      '--triggers': (o, v) => (o.triggers = list(v)),
      '--skip': (o, v) => list(v).forEach((s) => o.skip.add(s)),
      '--periods': (o, v) => (o.periods = list(v).map(Number)),
      '--configs': (o, v) => (o.only = new Set(list(v))),
      '--untimed': (o, v) => list(v).forEach((s) => o.untimed.add(s)),
      '--json': (o, v) => (o.json = v),
      '--md': (o, v) => (o.md = v),
    },
  });
  if (o.quick) {
    o.reps = 1;
    o.repsExtra = 1;
    o.strides = [1, 7, 63];
    o.samples = [1, 16, 64];
  }
  if (!(o.reps >= 1)) throw new Error('--reps must be at least 1');
  if (!['all', 'table3', 'extra'].includes(o.overheadSet)) throw new Error(`--overhead ${o.overheadSet}: expected all, table3 or extra`);
  const known = new Set(WORKLOADS.map((w) => w.id));
  for (const w of o.workloads ?? []) if (!known.has(w)) throw new Error(`unknown workload ${w} (known: ${[...known].join(', ')})`);
  for (const t of o.triggers) if (!TRIGGERS.includes(t)) throw new Error(`unknown trigger ${t} (known: ${TRIGGERS.join(', ')})`);
  for (const p of o.periods) if (!(Number.isInteger(p) && p >= 1)) throw new Error(`--periods: ${p} is not a number of calls >= 1`);
  return o;
}

// The bench runs a snapshot of the build taken at its start, so that a rebuild in the work tree
// during the hour it takes cannot mix two versions.
const SNAPSHOT = join(CACHE, 'cbs', 'snapshot');
const CLI = join(SNAPSHOT, 'bin', 'komorium-ts.js');

async function loadProfileLib() {
  const mod = (p) => import(pathToFileURL(join(SNAPSHOT, 'dist', p)).href);
  const [{ readDocument }, { kindNamed }, { SectionReader, siteKey }, graph, { methodKey }] = await Promise.all([
    mod('profile/read.js'),
    mod('kinds/index.js'),
    mod('profile/document.js'),
    mod('kinds/call-graph.js'),
    mod('profile/model.js'),
  ]);
  const section = (path, kind) => {
    const doc = readDocument(path);
    const raw = doc.sections.find((s) => s.kind === kind);
    return raw ? kindNamed(kind).section.read(new SectionReader(doc, raw)) : null;
  };
  return { section, overlap: (exact, sampled) => graph.edgeAccuracy(exact, sampled).overlap, keys: { methodKey, siteKey } };
}

async function instrumentJars(spec, outDir, args, env) {
  freshDir(outDir);
  const jars = [];
  for (const jar of spec.instrument) {
    const dest = join(outDir, basename(jar));
    const cp = [...spec.instrument.filter((j) => j !== jar), ...spec.lib];
    const r = await runProcess(process.execPath, [CLI, 'instrument', jar, '-o', dest, '-q', ...args, ...(cp.length ? ['--classpath', ...cp] : [])], {
      env: { ...process.env, ...env },
    });
    if (r.code !== 0 || !existsSync(dest)) throw new Error(`instrument ${basename(jar)} ${args.join(' ')} failed (exit ${r.code}): ${`${r.stderr}`.trim().slice(-500)}`);
    jars.push(dest);
  }
  return jars;
}

/** -D options of a cbs configuration. */
export function cbsProps({ trigger, stride, samples, period, spread }) {
  return [
    `-Dkomorium.cbs.trigger=${trigger}`,
    `-Dkomorium.cbs.stride=${stride}`,
    `-Dkomorium.cbs.samples=${samples}`,
    ...(period !== undefined ? [`-Dkomorium.cbs.period=${period}`] : []),
    ...(spread !== undefined ? [`-Dkomorium.cbs.spread=${spread}`] : []),
  ];
}

/** How many edges two call graphs count differently, of all the edges either has. */
function differingEdges(a, b) {
  const counts = new Map();
  const key = (e) => `${e.site.key} ${e.callee.key}`;
  for (const e of a) counts.set(key(e), e.count);
  let differing = 0;
  for (const e of b) {
    const k = key(e);
    if (counts.get(k) !== e.count) differing++;
    counts.delete(k);
  }
  differing += counts.size;
  return { edges: new Set([...a, ...b].map(key)).size, differing };
}

async function benchWorkload(wl, opts, lib) {
  const spec = wl.setup({ quick: opts.quick });
  const wdir = freshDir(join(CACHE, 'cbs', 'work', wl.id));
  const art = join(wdir, 'profiles');
  mkdirSync(art);
  const extra = spec.drivers ? [driversDir()] : [];
  const res = { id: wl.id, title: wl.title, note: spec.note ?? null, configs: {}, grid: [], problems: [] };
  log(`${wl.id}: instrumenting`);
  const jars = {
    cbs: await instrumentJars(spec, join(wdir, 'cbs'), ['--profile', 'cbs']),
    exact: await instrumentJars(spec, join(wdir, 'exact'), ['--profile', 'call-edges', '--layout', 'exhaustive']),
  };
  if (!opts.skip.has('placements')) {
    for (const p of PLACEMENTS) jars[p] = await instrumentJars(spec, join(wdir, p), ['--profile', 'cbs'], { KOMORIUM_CBS_PLACEMENT: p });
  }
  const java = javaBin('java');
  const run = async (cfg, tag) => {
    const cwd = freshDir(join(wdir, 'run'));
    const cp = [...(cfg.jar ? jars[cfg.jar] : spec.instrument), ...spec.lib, ...extra];
    const out = join(art, `${cfg.id}-${tag}`);
    const jvm = [
      ...(cfg.jar ? ['-Dkomorium.quiet=true', `-Dkomorium.out=${out}.kprof`] : []),
      ...(cfg.jfr ? [`-XX:StartFlightRecording=filename=${out}.jfr,settings=profile`] : []),
      ...(cfg.props ?? []),
    ];
    const r = await runProcess(java, [...jvm, '-cp', cp.join(':'), spec.main, ...spec.args], { cwd, timeFile: join(wdir, '.time') });
    return { r, outcome: outcomeOf(r, cwd), profile: `${out}.kprof`, jfr: `${out}.jfr` };
  };

  // 1. The uninstrumented program twice (deterministic?), then the exhaustive call graph.
  const base = { id: 'base' };
  const ref = await run(base, 'v');
  const ref2 = await run(base, 'v2');
  res.baseDeterministic = compareOutcome(ref.outcome, ref2.outcome);
  const baseMs = [ref.r.wallMs, ref2.r.wallMs];
  const check = (what, v) => {
    const p = compareOutcome(ref.outcome, v.outcome);
    if (p.length) {
      res.problems.push(`${what}: ${p.join('; ')}`);
      log(`${wl.id}: ${what}: OUTPUT DIFFERS: ${p.join('; ')}`);
    }
    return p.length === 0;
  };
  const exactCfg = { id: 'exact', jar: 'exact' };
  const ex = await run(exactCfg, 'v');
  check('exhaustive call-edges', ex);
  const exact = lib.section(ex.profile, 'call-edges');
  if (!exact) throw new Error(`${wl.id}: the exhaustive run wrote no call-edges section`);
  // No trigger can give the same call graph twice where the program's own calls differ run to run.
  const exAgain = await run(exactCfg, 'again');
  check('exhaustive call-edges, again', exAgain);
  res.exactRunToRun = differingEdges(exact.edges, lib.section(exAgain.profile, 'call-edges')?.edges ?? []);
  const calls = exact.edges.reduce((n, e) => n + e.count, 0);
  const appClasses = new Set(spec.instrument.flatMap(jarClasses));
  const intoApp = exact.edges.filter((e) => appClasses.has(e.callee.className));
  res.exact = {
    calls,
    edges: exact.edges.length,
    callsPerSecond: calls / (median(baseMs) / 1000),
    intoInstrumentedShare: intoApp.reduce((n, e) => n + e.count, 0) / calls,
    wallMs: ex.r.wallMs,
  };
  log(`${wl.id}: exhaustive: ${calls} calls on ${exact.edges.length} edges, ${(res.exact.intoInstrumentedShare * 100).toFixed(1)}% into instrumented methods`);

  const measure = (cfg, v, compare = true) => {
    const ok = compare ? check(cfg.id, v) : true;
    const s = existsSync(v.profile) ? lib.section(v.profile, 'cbs') : null;
    if (!s) {
      res.problems.push(`${cfg.id}: no cbs profile`);
      return { ok: false, wallMs: v.r.wallMs };
    }
    const h = s.header;
    const o = {
      ok,
      wallMs: v.r.wallMs,
      accuracy: lib.overlap(exact.edges, s.edges),
      taken: h.samples,
      windows: h.windows,
      ticks: h.ticks,
      dropped: h.dropped,
      achievedNs: h.achieved,
      edges: s.edges.length,
    };
    if (cfg.placement) o.accuracyIntoInstrumented = lib.overlap(intoApp, s.edges);
    return o;
  };

  // 2. The grid: one run per trigger, every cell's window fed by the same calls (komorium.cbs.grid,
  //    CbsWindow.java; with the counting trigger each cell is exactly the run of that cell alone).
  if (!opts.skip.has('grid')) {
    for (const trigger of opts.triggers) {
      const cfg = { id: `grid-${trigger}`, jar: 'cbs', props: [`-Dkomorium.cbs.trigger=${trigger}`, `-Dkomorium.cbs.grid=${opts.strides.join(',')}x${opts.samples.join(',')}`] };
      const v = await run(cfg, 'v');
      check(cfg.id, v);
      for (const stride of opts.strides) {
        for (const samples of opts.samples) {
          const file = `${v.profile.replace(/\.kprof$/, '')}.stride-${stride}.samples-${samples}.kprof`;
          res.grid.push({ trigger, stride, samples, ...measure({ id: `${cfg.id} ${stride}/${samples}` }, { ...v, profile: file }, false) });
          rmSync(file, { force: true });
        }
      }
      res.gridRuns ??= {};
      res.gridRuns[trigger] = { wallMs: v.r.wallMs };
      log(`${wl.id}: grid ${trigger}: ${res.grid.filter((g) => g.trigger === trigger).map((g) => `${g.stride}/${g.samples}=${(g.accuracy * 100).toFixed(0)}`).join(' ')}`);
    }
  }

  // 3. JFR, top two frames.
  if (!opts.skip.has('jfr')) {
    const v = await run({ id: 'jfr', jfr: true }, 'v');
    check('jfr', v);
    res.jfr = { wallMs: v.r.wallMs, ...jfrCallGraph(javaBin('jfr'), v.jfr, exact.edges, appClasses, lib.overlap, lib.keys) };
    log(`${wl.id}: JFR: ${res.jfr.samples} samples, accuracy ${(res.jfr.accuracy * 100).toFixed(1)}%`);
  }

  // 4. Overhead, interleaved, and the accuracy of each configuration's verification run. The
  //    configurations of Table 3 run --reps times; the entry placements and the grid's corners
  //    (each cell's overhead measured apart from the grid run) --reps-extra times.
  const d = { ...DEFAULT };
  const extraReps = opts.repsExtra;
  const corner = (trigger, stride, samples) => ({
    id: `cell-${trigger}-${stride}-${samples}`,
    jar: 'cbs',
    props: cbsProps({ trigger, stride, samples }),
    label: `${trigger}, Stride ${stride}, Samples ${samples}`,
    reps: extraReps,
    cell: { trigger, stride, samples },
  });
  const lo = Math.min(...opts.strides);
  const hi = Math.max(...opts.strides);
  const few = Math.min(...opts.samples);
  const many = Math.max(...opts.samples);
  const corners = opts.skip.has('corners')
    ? []
    : opts.triggers.flatMap((t) =>
        [[lo, few], [lo, many], [hi, few], [hi, many]].filter(([s, n]) => !(t === 'timer' && s === 1 && n === 1)).map(([s, n]) => corner(t, s, n)),
      );
  const table3 = [
    base,
    // The base is plain timer sampling, one sample right after each tick (the paper's base).
    { id: 'timer-base', jar: 'cbs', props: cbsProps({ trigger: 'timer', stride: 1, samples: 1, spread: 'none' }), label: 'timer, Stride 1, Samples 1 (base)', cell: { trigger: 'timer', stride: 1, samples: 1 } },
    { id: 'timer-default', jar: 'cbs', props: cbsProps({ trigger: 'timer', ...d }), label: `timer, Stride ${d.stride}, Samples ${d.samples} (default)`, cell: { trigger: 'timer', ...d } },
    { id: 'checks-default', jar: 'cbs', props: cbsProps({ trigger: 'checks', ...d }), label: `checks, Stride ${d.stride}, Samples ${d.samples} (default)`, cell: { trigger: 'checks', ...d } },
    { id: 'checks-only', jar: 'cbs', props: cbsProps({ trigger: 'timer', ...d, period: '3600s' }), label: 'the checks alone: timer every hour (never fires)' },
    ...opts.periods.map((period) => ({
      id: `checks-p${period}`,
      jar: 'cbs',
      props: cbsProps({ trigger: 'checks', ...d, period }),
      label: `checks every ${period} calls, Stride ${d.stride}, Samples ${d.samples}`,
      cell: { trigger: 'checks', ...d, period },
    })),
    ...(opts.skip.has('jfr') ? [] : [{ id: 'jfr', jfr: true, label: 'JFR settings=profile' }]),
    { id: 'exhaustive', jar: 'exact', label: 'call-edges, exhaustive', reps: extraReps },
    ...(opts.skip.has('placements') ? [] : PLACEMENTS.map((p) => ({ id: p, jar: p, placement: p, props: cbsProps({ trigger: 'timer', ...d }), label: `${p} placement, timer, default`, reps: extraReps }))),
    ...corners,
  ];
  const configs = opts.only ? table3.filter((c) => c.id === 'base' || opts.only.has(c.id)) : table3;
  for (const cfg of configs.slice(1)) {
    if (cfg.jfr || cfg.id === 'exhaustive' || cfg.id.startsWith('cell-')) continue;
    const v = await run(cfg, 'v');
    res.configs[cfg.id] = { label: cfg.label, ...measure(cfg, v) };
    log(`${wl.id}: ${cfg.id}: accuracy ${(res.configs[cfg.id].accuracy * 100).toFixed(1)}%, ${res.configs[cfg.id].taken} samples`);
  }
  // The counting trigger twice more: the same call graph, run to run?
  for (const cfg of configs.filter((c) => c.cell?.trigger === 'checks' && res.configs[c.id])) {
    const again = await run(cfg, 'again');
    const text = (p) => readFileSync(p, 'utf8').split('\n').filter((l) => !l.startsWith('header\t')).join('\n');
    res.configs[cfg.id].identicalRunToRun = text(join(art, `${cfg.id}-v.kprof`)) === text(again.profile);
  }
  if (!opts.skip.has('overhead')) {
    const times = Object.fromEntries(configs.map((c) => [c.id, []]));
    const bases = {};
    const timed = configs.filter(
      (c) => c.id === 'base' || (!opts.untimed.has(c.id) && (opts.overheadSet === 'all' || (opts.overheadSet === 'extra') === (c.reps === extraReps))),
    );
    const reps = Math.max(...timed.slice(1).map((c) => c.reps ?? opts.reps));
    for (let rep = 0; rep < reps; rep++) {
      const now = timed.filter((c) => c.id === 'base' || rep < (c.reps ?? opts.reps));
      for (const cfg of rotate(now, rep)) {
        const v = await run(cfg, `r${rep}`);
        if (cfg.id !== 'base') check(`${cfg.id} rep ${rep}`, v);
        times[cfg.id].push({ rep, ms: v.r.wallMs, cpuMs: v.r.cpuMs });
        rmSync(v.profile, { force: true });
        rmSync(v.jfr, { force: true });
      }
      log(`${wl.id}: rep ${rep + 1}/${reps} (load ${loadavg()}): ${now.map((c) => `${c.id}=${(times[c.id].at(-1).ms / 1000).toFixed(2)}/${(times[c.id].at(-1).cpuMs / 1000).toFixed(2)}`).join(' ')} (wall/CPU s)`);
    }
    for (const t of times.base) bases[t.rep] = t;
    res.baseMedianMs = median(times.base.map((t) => t.ms));
    res.baseMedianCpuMs = median(times.base.map((t) => t.cpuMs));
    res.overhead = {};
    for (const cfg of timed.slice(1)) {
      // Each repetition's time over the uninstrumented time of the same repetition.
      // CPU time (user + system, every thread) beside it: steadier on a shared machine.
      const ratios = times[cfg.id].map((t) => t.ms / bases[t.rep].ms);
      const cpuRatios = times[cfg.id].map((t) => (t.cpuMs && bases[t.rep].cpuMs ? t.cpuMs / bases[t.rep].cpuMs : null));
      res.overhead[cfg.id] = {
        label: cfg.label,
        cell: cfg.cell ?? null,
        wallMs: times[cfg.id].map((t) => t.ms),
        cpuMs: times[cfg.id].map((t) => t.cpuMs),
        ratios,
        medianRatio: median(ratios),
        cpuRatios,
        medianCpuRatio: median(cpuRatios),
      };
    }
    res.overhead.base = { wallMs: times.base.map((t) => t.ms), cpuMs: times.base.map((t) => t.cpuMs) };
  }
  res.loadavgAtEnd = loadavg();
  return res;
}

/**
 * A workload's new results over its earlier ones: what this run skipped (the grid, JFR, some
 * timed configurations) is kept from before. Each timed configuration's ratios are against the
 * uninstrumented runs interleaved with it, so ratios from two runs sit side by side.
 */
function mergeResults(old, now) {
  if (!old || old.error) return now;
  const runs = [...(old.runs ?? (old.run ? [old.run] : [])), now.run];
  return {
    ...old,
    ...now,
    runs,
    grid: now.grid.length > 0 ? now.grid : old.grid,
    gridRuns: now.gridRuns ?? old.gridRuns,
    jfr: now.jfr ?? old.jfr,
    configs: { ...old.configs, ...now.configs },
    overhead: { ...(old.overhead ?? {}), ...(now.overhead ?? {}) },
    problems: [...(old.problems ?? []), ...now.problems],
  };
}

function jarClasses(jar) {
  return sh('unzip', ['-Z1', jar])
    .split('\n')
    .filter((n) => n.endsWith('.class') && !n.startsWith('META-INF/'))
    .map((n) => n.slice(0, -6));
}

/** The entry point of `npm run bench -- --kind cbs` (scripts/bench.mjs). */
export async function runKindBench(argv) {
  const opts = parseArgs(argv);
  const previous = existsSync(opts.json) ? JSON.parse(readFileSync(opts.json, 'utf8')) : null;
  if (opts.reportOnly) {
    if (!previous) throw new Error(`${opts.json} does not exist`);
    writeCbsReport(previous, { md: opts.md, json: opts.json });
    log(`wrote ${relative(REPO, opts.md)}`);
    return;
  }
  snapshotBuild(REPO, SNAPSHOT);
  const lib = await loadProfileLib();
  const git = (args) => spawnSync('git', args, { cwd: REPO, encoding: 'utf8' }).stdout?.trim() ?? '';
  const results = previous ?? { format: 'komorium-bench-cbs/1', workloads: {} };
  const run = {
    startedAt: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']),
    loadavg: loadavg(),
    nproc: Number(sh('nproc', []).trim()),
    jdk: spawnSync(javaBin('java'), ['-version'], { encoding: 'utf8' }).stderr.trim().split('\n')[1] ?? '',
    settings: { reps: opts.reps, repsExtra: opts.repsExtra, periods: opts.periods, configs: opts.only ? [...opts.only] : null, strides: opts.strides, samples: opts.samples, triggers: opts.triggers, skip: [...opts.skip], quick: opts.quick, default: DEFAULT },
    argv,
  };
  log(`cbs bench: load ${run.loadavg}; ${run.settings.triggers.length * opts.strides.length * opts.samples.length} grid cells, ${opts.reps} reps`);
  for (const wl of WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w.id))) {
    try {
      results.workloads[wl.id] = mergeResults(results.workloads[wl.id], { ...(await benchWorkload(wl, opts, lib)), run });
    } catch (e) {
      log(`${wl.id}: FAILED: ${e.stack ?? e}`);
      // A run that failed (an input missing) keeps what earlier runs measured.
      const old = results.workloads[wl.id];
      const failure = `run at ${run.commit} failed: ${e.message ?? e}`;
      results.workloads[wl.id] = old && !old.error ? { ...old, problems: [...(old.problems ?? []), failure] } : { id: wl.id, title: wl.title, error: String(e.message ?? e), run };
    }
    saveJson(opts.json, results);
    writeCbsReport(results, { md: opts.md, json: opts.json });
  }
  log(`done: ${relative(REPO, opts.json)}, ${relative(REPO, opts.md)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runKindBench(process.argv.slice(2)).catch((e) => {
    console.error(e.stack ?? String(e));
    process.exit(1);
  });
}
