#!/usr/bin/env node
// `npm run bench -- --kind framework` (issue 19, seed 000 §4): the Arnold–Ryder framework with
// call-edges and field-access on the bench workloads, laid out like the paper's Table 4. For each
// layout and interval: the overhead of the whole process (interleaved repetitions, medians, wall
// and CPU time), the samples taken, and the accuracy (overlap) of each kind against the exhaustive
// profile of the same workload. Beside them: the framework alone (checks whose counter never
// reaches zero), exhaustive instrumentation, and the per-thread trigger.
// Writes bench-framework.json and BENCHMARKS-framework.md; never part of `npm test`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE, REPO, WORKLOADS, driversDir, javaBin } from './workloads.mjs';
import { fileSize, freshDir, log, median, parseOptions, rotate, runProcess, saveJson, snapshotBuild } from './util.mjs';
import { compareOutcome, outcomeOf } from './outcome.mjs';
import { loadavg, machineInfo } from './machine.mjs';
import { writeFrameworkReport } from './framework-report.mjs';

export const LAYOUTS = ['full-dup', 'partial-dup', 'no-dup'];
export const INTERVALS = [1, 100, 1000, 10000, 100000];
/** The framework alone: checks run, the counter never reaches zero in any workload. */
const NEVER = 2147483647;
const KINDS = 'call-edges,field-access';
/** Every identity hash code the same (HotSpot's experimental hashCode mode 2): the interval-1 reruns. */
const FIXED_HASH = ['-XX:+UnlockExperimentalVMOptions', '-XX:hashCode=2'];
const SNAPSHOT = join(CACHE, 'framework', 'snapshot');
const CLI = join(SNAPSHOT, 'bin', 'komorium-ts.js');

const HELP = `usage: node scripts/bench/framework.mjs [options]     (npm run bench -- --kind framework [options] builds first)
  --workloads a,b     subset of: ${WORKLOADS.map((w) => w.id).join(', ')}
  --layouts a,b       (default ${LAYOUTS.join(',')}; exhaustive always runs: it is the reference)
  --intervals a,b     (default ${INTERVALS.join(',')})
  --reps N            timed repetitions of every configuration, interleaved (default 5, quick 2)
  --quick             2 repetitions, intervals 1000,10000, smaller JFlex input
  --no-thread         leave out the per-thread trigger (--trigger thread) configurations
  --jvm-args "…"      options of every java command (default none: a plain java, as users run it)
  --report-only       regenerate the Markdown from the JSON
  --accuracy-only     every configuration once for its profile (accuracy, interval 1 against the
                      exhaustive profile), no timing; merged into the JSON's timings
  --json PATH --md PATH   (default bench-framework.json, BENCHMARKS-framework.md)`;

function parseArgs(argv) {
  const defaults = {
    workloads: null,
    layouts: LAYOUTS,
    intervals: null,
    reps: null,
    quick: false,
    thread: true,
    jvmArgs: [],
    reportOnly: false,
    accuracyOnly: false,
    json: join(REPO, 'bench-framework.json'),
    md: join(REPO, 'BENCHMARKS-framework.md'),
  };
  const o = parseOptions(argv, HELP, defaults, {
    flags: {
      '--quick': (o) => (o.quick = true),
      '--no-thread': (o) => (o.thread = false),
      '--report-only': (o) => (o.reportOnly = true),
      '--accuracy-only': (o) => (o.accuracyOnly = true),
    },
    values: {
      '--workloads': (o, v) => (o.workloads = v.split(',')),
      '--layouts': (o, v) => (o.layouts = v.split(',')),
      '--intervals': (o, v) => (o.intervals = v.split(',').map(Number)),
      '--reps': (o, v) => (o.reps = Number(v)),
      '--jvm-args': (o, v) => (o.jvmArgs = v.split(/\s+/).filter(Boolean)),
      '--json': (o, v) => (o.json = v),
      '--md': (o, v) => (o.md = v),
    },
  });
  for (const l of o.layouts) if (!LAYOUTS.includes(l)) throw new Error(`--layouts: ${l} is not one of ${LAYOUTS.join(', ')}`);
  for (const w of o.workloads ?? []) if (!WORKLOADS.some((x) => x.id === w)) throw new Error(`--workloads: no workload ${w}`);
  o.intervals ??= o.quick ? [1000, 10000] : INTERVALS;
  if (o.intervals.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--intervals: positive integers');
  o.reps ??= o.quick ? 2 : 5;
  return o;
}

/** The instrumented jar sets (one `instrument` each) and the runs over them. */
function plan(opts) {
  const jarSets = [...opts.layouts.map((layout) => ({ id: layout, args: ['--layout', layout] })), { id: 'exhaustive', args: ['--layout', 'exhaustive'] }];
  if (opts.thread) jarSets.push({ id: 'full-dup-thread', args: ['--layout', 'full-dup', '--trigger', 'thread'] });
  const configs = [{ id: 'base', jars: null }];
  if (!opts.accuracyOnly) for (const layout of opts.layouts) configs.push({ id: `alone:${layout}`, jars: layout, layout, interval: NEVER, alone: true });
  for (const layout of opts.layouts) for (const n of opts.intervals) configs.push({ id: `${layout}@${n}`, jars: layout, layout, interval: n });
  configs.push({ id: 'exhaustive', jars: 'exhaustive', layout: 'exhaustive', interval: 1 });
  if (opts.thread) {
    if (!opts.accuracyOnly) configs.push({ id: 'alone:full-dup-thread', jars: 'full-dup-thread', layout: 'full-dup', interval: NEVER, alone: true, trigger: 'thread' });
    configs.push({ id: 'full-dup-thread@1000', jars: 'full-dup-thread', layout: 'full-dup', interval: 1000, trigger: 'thread' });
  }
  return { jarSets, configs };
}

async function instrumentSet(set, spec, dir) {
  const out = freshDir(join(dir, set.id));
  const json = join(dir, `${set.id}.json`);
  const r = await runProcess(process.execPath, [
    CLI, 'instrument', ...spec.instrument, '-d', out, '-q', '--profile', KINDS, ...set.args, '--report-json', json,
    ...(spec.lib.length ? ['--classpath', ...spec.lib] : []),
  ]);
  if (r.code !== 0) throw new Error(`instrument ${set.id} failed (exit ${r.code}): ${`${r.stderr}`.trim().split('\n').slice(-3).join(' | ')}`);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  const jars = spec.instrument.map((j) => join(out, basename(j)));
  for (const j of jars) if (!existsSync(j)) throw new Error(`instrument ${set.id}: ${j} was not written`);
  return { jars, summary: frameworkSummary(report), instrumentMs: r.wallMs, bytes: jars.reduce((s, j) => s + fileSize(j), 0) };
}

/** What the instrument report says about the framework: layouts, twins, fallbacks by reason. */
function frameworkSummary(report) {
  const s = { methods: 0, outOfLine: 0, probes: 0, layouts: {}, fallbacks: {}, leftAsIs: {}, leftAsIsMethods: [] };
  for (const c of report.frameworkReports ?? []) {
    s.outOfLine += c.outOfLine ?? 0;
    s.probes += c.probes ?? 0;
    for (const [l, n] of Object.entries(c.layouts ?? {})) {
      s.layouts[l] = (s.layouts[l] ?? 0) + n;
      s.methods += n;
    }
    for (const f of c.fallbacks ?? []) {
      const key = `${f.from}→${f.to}: ${f.reason.replace(/\d+/g, 'N')}`;
      s.fallbacks[key] = (s.fallbacks[key] ?? 0) + 1;
    }
    for (const l of c.leftAsIs ?? []) {
      s.leftAsIsMethods.push(`${c.className.replaceAll('/', '.')}.${l.method.replace(/\(.*$/, '')}`);
      const key = l.reason.replace(/\d+/g, 'N');
      s.leftAsIs[key] = (s.leftAsIs[key] ?? 0) + 1;
    }
  }
  return s;
}

/** Samples taken, from each section's `samples` line. */
function samplesOf(profile) {
  const m = /^samples\t(\d+)$/m.exec(readFileSync(profile, 'utf8'));
  return m ? Number(m[1]) : null;
}

/**
 * Where a profile at interval 1 differs from the exhaustive one: the methods of the sites whose
 * counts differ (none when it is exactly the exhaustive profile). A program that loops over its own
 * declared methods sees full-dup's twins (README, "What reflection sees"), and this names it.
 */
export function differences(profile, exhaustive) {
  // Method and site numbers are per file: a site one profile has and the other lacks (a method one
  // layout left as it was) renumbers the rest. Compare by what the numbers name.
  const read = (p) => {
    const methods = new Map();
    const sites = new Map();
    const counts = new Map();
    let section = '';
    for (const l of readFileSync(p, 'utf8').split('\n')) {
      const f = l.split('\t');
      if (f[0] === 'method') methods.set(f[1], `${f[2].replaceAll('/', '.')}.${f[3]}${f[4]}`);
      else if (f[0] === 'site') sites.set(f[1], { method: f[2], at: f.slice(3).join(' ') });
      else if (f[0] === 'section') section = f[1];
      else if (f[0] === 'edge' || f[0] === 'access') {
        const site = sites.get(f[1]);
        const where = `${methods.get(site?.method) ?? `site ${f[1]}`}`;
        const rest = f.slice(2, -1).map((id) => (f[0] === 'edge' ? (methods.get(id) ?? id) : id));
        counts.set(`${section} ${where} ${site?.at ?? ''} ${rest.join(' ')}`, { where, n: f[f.length - 1] });
      }
    }
    return counts;
  };
  const a = read(profile);
  const b = read(exhaustive);
  const out = new Set();
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(key)?.n !== b.get(key)?.n) out.add((a.get(key) ?? b.get(key)).where.replace(/\(.*$/, ''));
  }
  return [...out].sort();
}

async function accuracy(exact, sampled) {
  const r = await runProcess(process.execPath, [CLI, 'diff', '--accuracy', exact, sampled, '-f', 'json']);
  if (r.code !== 0) throw new Error(`diff --accuracy ${sampled}: ${r.stderr}`);
  return Object.fromEntries(JSON.parse(`${r.stdout}`).kinds.map((k) => [k.kind, k.overlap]));
}

async function benchWorkload(wl, opts) {
  const spec = wl.setup({ quick: opts.quick });
  const wdir = freshDir(join(CACHE, 'framework', 'work', wl.id));
  const art = join(wdir, 'profiles');
  mkdirSync(art, { recursive: true });
  const extra = spec.drivers ? [driversDir()] : [];
  const { jarSets, configs } = plan(opts);
  const res = { id: wl.id, title: wl.title, input: wl.input, note: spec.note ?? null, jarSets: {}, configs: {} };
  const jarsOf = {};
  for (const set of jarSets) {
    log(`${wl.id}: instrument ${set.args.join(' ')}`);
    const r = await instrumentSet(set, spec, join(wdir, 'jars'));
    jarsOf[set.id] = r.jars;
    res.jarSets[set.id] = { summary: r.summary, instrumentMs: r.instrumentMs, bytes: r.bytes };
  }
  const java = javaBin('java');
  const run = async (cfg, tag, jvm = []) => {
    const cwd = freshDir(join(wdir, 'run'));
    const cp = [...(cfg.jars ? jarsOf[cfg.jars] : spec.instrument), ...spec.lib, ...extra];
    const profile = join(art, `${cfg.id.replace(':', '-')}-${tag}.kprof`);
    const props = cfg.jars ? ['-Dkomorium.quiet=true', `-Dkomorium.interval=${cfg.interval}`, `-Dkomorium.out=${profile}`] : [];
    const r = await runProcess(java, [...opts.jvmArgs, ...jvm, ...props, '-cp', cp.join(':'), spec.main, ...spec.args], { cwd, timeFile: join(wdir, '.time') });
    return { r, outcome: outcomeOf(r, cwd), profile };
  };

  // 1. Every configuration once, compared with the uninstrumented run; their profiles give the accuracy.
  const ref = await run(configs[0], 'v');
  for (const cfg of configs.slice(1)) {
    const v = await run(cfg, 'v');
    const c = (res.configs[cfg.id] = { layout: cfg.layout, interval: cfg.interval, alone: !!cfg.alone, trigger: cfg.trigger ?? 'global' });
    c.problems = compareOutcome(ref.outcome, v.outcome);
    c.verified = c.problems.length === 0;
    c.profile = v.profile;
    if (!cfg.alone) c.samples = samplesOf(v.profile);
    log(`${wl.id}: ${cfg.id.padEnd(22)} ${c.verified ? 'output identical' : `OUTPUT DIFFERS: ${c.problems.join('; ')}`}`);
  }
  const exhaustive = res.configs.exhaustive;
  const exhaustiveCfg = configs.find((c) => c.id === 'exhaustive');
  let fixedExhaustive = null;
  // The exhaustive profile of a second run: where it differs, the program itself varies (threads, timing).
  exhaustive.selfDiffers = differences((await run(exhaustiveCfg, 'v2')).profile, exhaustive.profile);
  for (const cfg of configs.slice(1)) {
    const c = res.configs[cfg.id];
    if (cfg.alone || !c.verified || !exhaustive.verified) continue;
    c.accuracy = await accuracy(exhaustive.profile, c.profile);
    if (cfg.interval === 1) {
      c.differsIn = differences(c.profile, exhaustive.profile);
      c.equalsExhaustive = c.differsIn.length === 0;
      // A method one of the two layouts left as it was (HugeMethodLimit) has events in only one.
      const left = new Set([...res.jarSets[cfg.jars].summary.leftAsIsMethods, ...res.jarSets.exhaustive.summary.leftAsIsMethods]);
      const varies = new Set(exhaustive.selfDiffers);
      c.unexplained = c.differsIn.filter((m) => !left.has(m) && !varies.has(m));
      if (c.unexplained.length > 0) {
        // Each jar draws its own sequence of identity hash codes (the classes differ, and so does what
        // the JVM hashes before main), and a program whose hash tables iterate or tie-break by them
        // runs differently. Both runs again with every identity hash the same: what still differs
        // is not the program's hashing.
        fixedExhaustive ??= (await run(exhaustiveCfg, 'hash', FIXED_HASH)).profile;
        const again = differences((await run(cfg, 'hash', FIXED_HASH)).profile, fixedExhaustive);
        c.identityHashes = c.unexplained.filter((m) => !again.includes(m));
        c.unexplained = c.unexplained.filter((m) => again.includes(m));
      }
    }
  }
  if (opts.accuracyOnly) return res;

  // 2. Timing: every verified configuration per repetition, in an order rotated each time.
  const timed = configs.filter((c) => c.id === 'base' || res.configs[c.id]?.verified);
  const times = Object.fromEntries(timed.map((c) => [c.id, []]));
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const cfg of rotate(timed, rep)) {
      const { r, outcome, profile } = await run(cfg, `r${rep}`);
      const ok = compareOutcome(ref.outcome, outcome).length === 0;
      times[cfg.id].push({ wallMs: r.wallMs, cpuMs: r.cpuMs, ok });
      rmSync(profile, { force: true });
    }
    log(`${wl.id}: rep ${rep + 1}/${opts.reps} (load ${loadavg()}): ${timed.map((c) => `${c.id}=${(times[c.id][rep].wallMs / 1000).toFixed(2)}`).join(' ')}`);
  }
  const base = { wallMs: median(times.base.map((t) => t.wallMs)), cpuMs: median(times.base.map((t) => t.cpuMs)) };
  res.base = { ...base, runs: times.base };
  for (const cfg of timed.slice(1)) {
    const t = times[cfg.id];
    const c = res.configs[cfg.id];
    c.runs = t;
    c.wallMs = median(t.map((x) => x.wallMs));
    c.cpuMs = median(t.map((x) => x.cpuMs));
    c.wallRatio = c.wallMs / base.wallMs;
    c.cpuRatio = c.cpuMs / base.cpuMs;
  }
  return res;
}

export async function runKindBench(argv) {
  const opts = parseArgs(argv);
  if (opts.reportOnly) {
    writeFrameworkReport(JSON.parse(readFileSync(opts.json, 'utf8')), opts.md);
    log(`wrote ${opts.md}`);
    return;
  }
  snapshotBuild(REPO, SNAPSHOT);
  const earlier = opts.accuracyOnly && existsSync(opts.json) ? JSON.parse(readFileSync(opts.json, 'utf8')) : null;
  let results = {
    format: 'komorium-bench-framework/1',
    command: `npm run bench -- --kind framework ${argv.join(' ')}`.trim(),
    startedAt: new Date().toISOString(),
    machine: machineInfo(),
    settings: { reps: opts.reps, layouts: opts.layouts, intervals: opts.intervals, never: NEVER, kinds: KINDS, jvmArgs: opts.jvmArgs, quick: opts.quick },
    workloads: {},
  };
  if (earlier) {
    // The timings stay those of the earlier run; say which commit gave the profiles.
    const { commit, dirty, loadavg } = results.machine;
    earlier.accuracyRun = { command: results.command, startedAt: results.startedAt, commit, dirty, loadavg };
    results = earlier;
  }
  log(`framework bench: ${results.machine.nproc} cores, load ${results.machine.loadavg}, reps ${opts.reps}, intervals ${opts.intervals.join(',')}`);
  for (const wl of WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w.id))) {
    try {
      const r = await benchWorkload(wl, opts);
      if (earlier?.workloads[wl.id]?.configs) {
        const into = earlier.workloads[wl.id];
        // Keep the timings; take everything the profiles give.
        for (const [id, c] of Object.entries(r.configs)) into.configs[id] = { ...into.configs[id], ...c };
        for (const [id, j] of Object.entries(r.jarSets)) into.jarSets[id] = { ...into.jarSets[id], summary: j.summary };
        results.workloads[wl.id] = into;
      } else results.workloads[wl.id] = r;
    } catch (e) {
      log(`${wl.id}: FAILED: ${e.stack ?? e}`);
      results.workloads[wl.id] = { id: wl.id, title: wl.title, error: String(e.message ?? e) };
    }
    saveJson(opts.json, results);
  }
  if (results.accuracyRun) Object.assign(results.accuracyRun, { finishedAt: new Date().toISOString(), loadavgAtEnd: loadavg() });
  else {
    results.finishedAt = new Date().toISOString();
    results.machine.loadavgAtEnd = loadavg();
  }
  saveJson(opts.json, results);
  writeFrameworkReport(results, opts.md);
  log(`wrote ${opts.json} and ${opts.md}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runKindBench(process.argv.slice(2)).catch((e) => {
    console.error(e.stack ?? String(e));
    process.exit(1);
  });
}
