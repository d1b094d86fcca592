#!/usr/bin/env node
// `npm run bench` (issue 6): overhead, accuracy and profile cost of komorium-ts on real programs,
// side by side with JaCoCo offline instrumentation and JFR, and `instrument` speed against
// JaCoCo's. Writes bench-results.json and BENCHMARKS.md (+ SVG figures in scripts/bench/figures).
// Never part of `npm test`. See `node scripts/bench.mjs --help`.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import {
  CACHE, REPO, WORKLOADS, JACOCO_OFFLINE_RUNTIME, driversDir, instrumentSpeedJars, jacocoRuntimeClasspath, javaBin,
} from './bench/workloads.mjs';
import { fileSize, freshDir, instrumentSummary, log, median, parseOptions, rotate, runProcess, saveJson, sh, snapshotBuild as snapshotBuildTo } from './bench/util.mjs';
import { HUGE_FLAG, flaggedTwins } from './bench/plain-java.mjs';
import { komoriumSelfShares, methodOverlap, readJfrStacks, selfShares, topAgreement } from './bench/jfr.mjs';
import { writeReport } from './bench/report.mjs';
import { compareOutcome, outcomeOf } from './bench/outcome.mjs';
import { loadavg, machineInfo } from './bench/machine.mjs';

const EXACT_MAX_CONTEXTS = 30_000_000;
const FULL_GRANULARITIES = [500, 1000, 5000, 10000, 50000, 100000, 1000000];
const QUICK_GRANULARITIES = [1000, 10000];

const HELP = `usage: node scripts/bench.mjs [options]     (npm run bench -- [options] builds first)
  --quick                 smoke run: 1 repetition, granularities ${QUICK_GRANULARITIES.join(',')}, smaller JFlex input,
                          1 repetition of the instrument-speed comparison (env BENCH_QUICK=1)
  --reps N                timed repetitions per configuration (default 5, quick 1; env BENCH_REPS)
  --workloads a,b         subset of: ${WORKLOADS.map((w) => w.id).join(', ')} (env BENCH_WORKLOADS)
  --granularities a,b     (default ${FULL_GRANULARITIES.join(',')}; env BENCH_GRANULARITIES)
  --random R              R of the randomized runs (default 100); --no-random: constant only
  --skip x,y              skip parts: jacoco, jfr, exact, huge, instrument-speed, workloads
  --instr-reps N          repetitions of the instrument-speed comparison (default 5, quick 1)
  --komorium-jvm-args "…" JVM options of komorium runs (default none: a plain \`java\`, as a user runs the jar)
                          agent=none and g=10,000 (randomized) also run with ${HUGE_FLAG} beside
                          (issue 23; --skip huge leaves those out)
  --report-only           regenerate BENCHMARKS.md and figures from the JSON, run nothing
  --json PATH  --md PATH  --figures DIR   outputs (default bench-results.json, BENCHMARKS.md, scripts/bench/figures)
  --no-install            do not run scripts/install-bench-deps.sh first
  --kind NAME [options]   instead: the benchmark of a profile kind, scripts/bench/NAME.mjs (e.g. --kind cbs --help)
  --subpaths …            short for --kind subpaths (issue 22): BENCHMARKS-subpaths.md
  --kind scale …          \`instrument\` on a 100 MB class path at 1, 2, … workers (issue 23): BENCHMARKS-scale.md`;

function parseArgs(argv) {
  const env = process.env;
  const defaults = {
    quick: env.BENCH_QUICK === '1',
    reps: env.BENCH_REPS ? Number(env.BENCH_REPS) : undefined,
    workloads: env.BENCH_WORKLOADS ? env.BENCH_WORKLOADS.split(',') : undefined,
    granularities: env.BENCH_GRANULARITIES ? env.BENCH_GRANULARITIES.split(',').map(Number) : undefined,
    random: 100,
    skip: new Set(),
    instrReps: undefined,
    komoriumJvmArgs: [],
    reportOnly: false,
    json: join(REPO, 'bench-results.json'),
    md: join(REPO, 'BENCHMARKS.md'),
    figures: join(REPO, 'scripts', 'bench', 'figures'),
    install: true,
  };
  const o = parseOptions(argv, HELP, defaults, {
    flags: {
      '--quick': (o) => (o.quick = true),
      '--no-random': (o) => (o.random = 0),
      '--report-only': (o) => (o.reportOnly = true),
      '--no-install': (o) => (o.install = false),
    },
    values: {
      '--reps': (o, v) => (o.reps = Number(v)),
      '--workloads': (o, v) => (o.workloads = v.split(',')),
      '--granularities': (o, v) => (o.granularities = v.split(',').map(Number)),
      '--random': (o, v) => (o.random = Number(v)),
      '--skip': (o, v) => v.split(',').forEach((s) => o.skip.add(s)),
      '--instr-reps': (o, v) => (o.instrReps = Number(v)),
      '--komorium-jvm-args': (o, v) => (o.komoriumJvmArgs = v.split(/\s+/).filter(Boolean)),
      '--json': (o, v) => (o.json = v),
      '--md': (o, v) => (o.md = v),
      '--figures': (o, v) => (o.figures = v),
    },
  });
  o.reps ??= o.quick ? 1 : 5;
  o.instrReps ??= o.quick ? 1 : 5;
  o.granularities ??= o.quick ? QUICK_GRANULARITIES : FULL_GRANULARITIES;
  if (!(o.reps >= 1)) throw new Error('--reps must be at least 1');
  const known = new Set(WORKLOADS.map((w) => w.id));
  for (const w of o.workloads ?? []) if (!known.has(w)) throw new Error(`unknown workload ${w} (known: ${[...known].join(', ')})`);
  return o;
}


function debVersion(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

// ---------------------------------------------------------------------------------------------

// The bench runs a snapshot of the build (bin/, dist/, the runtime jar, package.json) taken at its
// start, so that a rebuild in the work tree during a long run cannot mix two versions.
const SNAPSHOT = join(CACHE, 'snapshot');
const KOMORIUM_BIN = join(SNAPSHOT, 'bin', 'komorium-ts.js');

const snapshotBuild = () => snapshotBuildTo(REPO, SNAPSHOT);

function configsFor(opts) {
  const list = [{ id: 'base', kind: 'base', label: 'uninstrumented' }];
  list.push({ id: 'none', kind: 'komorium', agent: 'none', label: 'komorium agent=none (floor)' });
  for (const g of opts.granularities) {
    list.push({ id: `g${g}`, kind: 'komorium', agent: 'sampling', g, r: 0, label: `komorium g=${g}` });
    if (opts.random > 0) list.push({ id: `g${g}r`, kind: 'komorium', agent: 'sampling', g, r: opts.random, label: `komorium g=${g}+r${opts.random}` });
  }
  if (!opts.skip.has('huge') && !opts.komoriumJvmArgs.includes(HUGE_FLAG)) list.push(...flaggedTwins(list, opts.random));
  if (!opts.skip.has('jacoco')) list.push({ id: 'jacoco', kind: 'jacoco', label: 'JaCoCo offline' });
  if (!opts.skip.has('jfr')) list.push({ id: 'jfr', kind: 'jfr', label: 'JFR settings=profile' });
  return list;
}

async function instrumentAll(tool, jars, outDir, otherJars, drivers) {
  freshDir(outDir);
  const out = [];
  let wallMs = 0;
  const logs = [];
  for (const jar of jars) {
    const dest = join(outDir, basename(jar));
    let r;
    if (tool === 'komorium') {
      const cp = [...jars.filter((j) => j !== jar), ...otherJars];
      r = await runProcess(process.execPath, [KOMORIUM_BIN, 'instrument', jar, '-o', dest, ...(cp.length ? ['--classpath', ...cp] : [])], {
        timeFile: join(outDir, '.time'),
      });
    } else {
      r = await runProcess(
        javaBin('java'),
        [`-Djacoco.offline.runtime=${JACOCO_OFFLINE_RUNTIME}`, '-cp', [drivers, ...jacocoRuntimeClasspath()].join(':'), 'JacocoInstrument', jar, dest],
        { timeFile: join(outDir, '.time') },
      );
    }
    wallMs += r.wallMs;
    const text = `${r.stdout}${r.stderr}`;
    logs.push(`$ ${tool} instrument ${basename(jar)} (exit ${r.code}, ${(r.wallMs / 1000).toFixed(2)} s)\n${text}`);
    if (r.code !== 0 || !existsSync(dest)) {
      writeFileSync(join(outDir, 'instrument.log'), logs.join('\n'));
      return { ok: false, error: `${tool} instrument ${basename(jar)} failed (exit ${r.code}): ${text.trim().split('\n').slice(-3).join(' | ')}` };
    }
    out.push(dest);
  }
  writeFileSync(join(outDir, 'instrument.log'), logs.join('\n'));
  const all = logs.join('\n');
  // The report's key for the summary's `JIT limit` count is hugeMethods.
  const summary = {};
  if (tool === 'komorium') {
    const s = instrumentSummary(all);
    Object.assign(summary, { leftAsTheyWere: s.leftAsTheyWere, hugeMethods: s.jitLimit, warnings: s.warnings });
  }
  return { ok: true, jars: out, wallMs, ...summary };
}

function jarClassNames(jar) {
  return sh('unzip', ['-Z1', jar])
    .split('\n')
    .filter((n) => n.endsWith('.class') && !n.startsWith('META-INF/'))
    .map((n) => n.slice(0, -6).replaceAll('/', '.'));
}

async function benchWorkload(wl, opts, profileLib) {
  const spec = wl.setup({ quick: opts.quick });
  const wdir = freshDir(join(CACHE, 'work', wl.id));
  const art = join(wdir, 'artefacts');
  mkdirSync(art, { recursive: true });
  const drivers = driversDir();
  const extra = spec.drivers ? [drivers] : [];
  const res = {
    id: wl.id,
    title: wl.title,
    program: wl.program,
    input: wl.input,
    note: spec.note ?? null,
    packages: Object.fromEntries(wl.packages.map((p) => [p, debVersion(p)])),
    instrumentedJars: spec.instrument.map((j) => basename(j)),
    classes: spec.instrument.reduce((s, j) => s + jarClassNames(j).length, 0),
    configs: {},
  };
  log(`${wl.id}: instrumenting ${res.instrumentedJars.join(', ')} (${res.classes} classes)`);
  const kom = await instrumentAll('komorium', spec.instrument, join(wdir, 'komorium'), spec.lib, drivers);
  res.komoriumInstrument = { ...kom, jars: undefined };
  const jac = opts.skip.has('jacoco') ? null : await instrumentAll('jacoco', spec.instrument, join(wdir, 'jacoco'), spec.lib, drivers);
  if (jac) res.jacocoInstrument = { ...jac, jars: undefined };

  const configs = configsFor(opts);
  const exactCfg = { id: 'exact', kind: 'komorium', agent: 'exact', label: 'komorium agent=exact' };
  const java = javaBin('java');
  const cpOf = (cfg) => {
    if (cfg.kind === 'komorium') return kom.ok ? [...kom.jars, ...spec.lib, ...extra] : null;
    if (cfg.kind === 'jacoco') return jac?.ok ? [...jac.jars, ...spec.lib, ...extra, ...jacocoRuntimeClasspath()] : null;
    return [...spec.instrument, ...spec.lib, ...extra];
  };
  const jvmArgsOf = (cfg, tag) => {
    if (cfg.kind === 'komorium') {
      return [
        '-Dkomorium.quiet=true',
        `-Dkomorium.agent=${cfg.agent}`,
        ...(cfg.g ? [`-Dkomorium.granularity=${cfg.g}`, `-Dkomorium.random=${cfg.r}`] : []),
        `-Dkomorium.out=${join(art, `${cfg.id}-${tag}.kprof`)}`,
        // The ground truth must not be cut at the default 1,000,000 contexts (ecj has more); it is never timed.
        ...(cfg.agent === 'exact' ? [`-Dkomorium.maxContexts=${EXACT_MAX_CONTEXTS}`] : []),
        ...opts.komoriumJvmArgs,
        ...(cfg.jvmArgs ?? []),
      ];
    }
    if (cfg.kind === 'jacoco') return [`-Djacoco-agent.destfile=${join(art, `jacoco-${tag}.exec`)}`];
    if (cfg.kind === 'jfr') return [`-XX:StartFlightRecording=filename=${join(art, `jfr-${tag}.jfr`)},settings=profile`];
    return [];
  };
  const run = async (cfg, tag) => {
    const cwd = freshDir(join(wdir, 'run'));
    const cp = cpOf(cfg);
    const r = await runProcess(java, [...jvmArgsOf(cfg, tag), '-cp', cp.join(':'), spec.main, ...spec.args], {
      cwd,
      timeFile: join(wdir, '.time'),
    });
    return { r, outcome: outcomeOf(r, cwd) };
  };

  // 1. Verification: the uninstrumented run twice (is the workload deterministic?), then every
  //    configuration once against it. These runs also warm the page cache and are not timed.
  log(`${wl.id}: verifying outputs`);
  const ref = await run(configs[0], 'v');
  const ref2 = await run(configs[0], 'v2');
  res.baseDeterministic = compareOutcome(ref.outcome, ref2.outcome);
  res.baseCode = ref.r.code;
  if (res.baseDeterministic.length) log(`${wl.id}: WARNING the uninstrumented program is not deterministic: ${res.baseDeterministic.join('; ')}`);
  const verifyList = [...configs.slice(1), ...(opts.skip.has('exact') ? [] : [exactCfg])];
  for (const cfg of verifyList) {
    const c = (res.configs[cfg.id] = { label: cfg.label, kind: cfg.kind, agent: cfg.agent ?? null, g: cfg.g ?? null, r: cfg.r ?? null });
    if (cpOf(cfg) === null) {
      c.verified = false;
      c.problems = [`not instrumented: ${(cfg.kind === 'jacoco' ? jac : kom)?.error ?? 'skipped'}`];
      continue;
    }
    const v = await run(cfg, 'v');
    c.problems = compareOutcome(ref.outcome, v.outcome);
    c.verified = c.problems.length === 0;
    c.verifyWallMs = v.r.wallMs;
    c.verifyMaxRssKb = v.r.maxRssKb;
    if (v.outcome.toolMessages.length) c.toolMessages = v.outcome.toolMessages;
    log(`${wl.id}: ${cfg.id.padEnd(9)} ${c.verified ? 'output identical' : `OUTPUT DIFFERS: ${c.problems.join('; ')}`} (${(v.r.wallMs / 1000).toFixed(2)} s)`);
  }

  // 2. Timing: round-robin over the configurations that passed, rotated each repetition.
  const timed = configs.filter((c) => c.kind === 'base' || res.configs[c.id]?.verified);
  const times = Object.fromEntries(timed.map((c) => [c.id, []]));
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const cfg of rotate(timed, rep)) {
      const tag = `r${rep}`;
      const { r, outcome } = await run(cfg, tag);
      const problems = cfg.kind === 'base' ? compareOutcome(ref.outcome, outcome) : compareOutcome(ref.outcome, outcome);
      times[cfg.id].push({ rep, wallMs: r.wallMs, cpuMs: r.cpuMs, maxRssKb: r.maxRssKb, ok: problems.length === 0 });
      if (problems.length) log(`${wl.id}: ${cfg.id} rep ${rep} OUTPUT DIFFERS: ${problems.join('; ')}`);
      // Keep the first repetition's profile / recording (for reproducibility), drop the others.
      if (rep > 0) {
        rmSync(join(art, `${cfg.id}-${tag}.kprof`), { force: true });
        rmSync(join(art, `jfr-${tag}.jfr`), { force: true });
        rmSync(join(art, `jacoco-${tag}.exec`), { force: true });
      }
    }
    const line = timed.map((c) => `${c.id}=${(times[c.id][rep].wallMs / 1000).toFixed(1)}`).join(' ');
    log(`${wl.id}: rep ${rep + 1}/${opts.reps}: ${line}`);
  }
  const baseTimes = times.base;
  res.base = {
    wallMs: baseTimes.map((t) => t.wallMs),
    cpuMs: baseTimes.map((t) => t.cpuMs),
    maxRssKb: baseTimes.map((t) => t.maxRssKb),
    medianMs: median(baseTimes.map((t) => t.wallMs)),
  };
  for (const cfg of timed.slice(1)) {
    const c = res.configs[cfg.id];
    const ts = times[cfg.id];
    c.wallMs = ts.map((t) => t.wallMs);
    c.maxRssKb = ts.map((t) => t.maxRssKb);
    c.timedOutputsOk = ts.every((t) => t.ok);
    // The ratio of each repetition: this configuration's time over the uninstrumented time of the same repetition.
    c.ratios = ts.map((t) => t.wallMs / baseTimes.find((b) => b.rep === t.rep).wallMs);
    c.medianMs = median(c.wallMs);
    c.medianRatio = median(c.ratios);
    // CPU time (every thread, the JIT's included) as well: on 2 shared cores wall time also measures the neighbours.
    if (ts.every((t) => t.cpuMs != null)) {
      c.cpuMs = ts.map((t) => t.cpuMs);
      c.medianCpuRatio = median(ts.map((t) => t.cpuMs / baseTimes.find((b) => b.rep === t.rep).cpuMs));
    }
    c.medianMaxRssKb = median(c.maxRssKb);
  }

  // 3. Accuracy and cost of the profiles (verification runs), against the exact profile.
  const exactPath = join(art, 'exact-v.kprof');
  const exact = res.configs.exact?.verified && existsSync(exactPath) ? profileLib.readProfile(exactPath) : null;
  if (exact) {
    res.configs.exact.totalBytecodes = exact.totalBytecodes;
    res.configs.exact.profileBytes = fileSize(exactPath);
  }
  for (const cfg of configs.filter((c) => c.agent === 'sampling')) {
    const c = res.configs[cfg.id];
    const p = join(art, `${cfg.id}-v.kprof`);
    if (!c.verified || !existsSync(p)) continue;
    const s = profileLib.readProfile(p);
    c.profileBytes = fileSize(p);
    c.samples = s.totalCounter;
    c.totalBytecodes = s.totalBytecodes;
    c.threads = s.threads;
    c.samplesPerSecond = c.medianMs ? s.totalCounter / (c.medianMs / 1000) : null;
    if (exact) {
      const o = profileLib.overlap(s, exact);
      c.overlap = o.total;
      c.methodOverlap = o.methodOverlap;
      // What any unbiased sampler with this many samples would expect: tells the workload's limit from the sampler's.
      c.idealOverlap = profileLib.idealSampledOverlap(exact, s.totalCounter);
      c.deltaB = s.totalBytecodes / exact.totalBytecodes - 1;
    }
    // Run-to-run: the verification run's profile against the first timed repetition's.
    const p2 = join(art, `${cfg.id}-r0.kprof`);
    if (existsSync(p2)) {
      const s2 = profileLib.readProfile(p2);
      const o2 = profileLib.overlap(s, s2);
      const data = (f) => readFileSync(f, 'utf8').split('\n').filter((l) => !l.startsWith('header\t')).join('\n');
      c.repeat = { overlap: o2.total, methodOverlap: o2.methodOverlap, identical: data(p) === data(p2) };
    }
  }

  // 4. JFR: the hot-method list of two runs, and against the exact profile.
  const jfrA = join(art, 'jfr-v.jfr');
  const jfrB = join(art, 'jfr-r0.jfr');
  if (res.configs.jfr?.verified && existsSync(jfrA)) {
    const appClasses = new Set(spec.instrument.flatMap(jarClassNames));
    const isApp = (cls) => appClasses.has(cls);
    const a = readJfrStacks(javaBin('jfr'), jfrA);
    const sa = selfShares(a);
    const saApp = selfShares(a, isApp);
    const j = (res.configs.jfr.analysis = { samples: a.length, appSamples: saApp.samples });
    j.samplesPerSecond = res.configs.jfr.verifyWallMs ? a.length / (res.configs.jfr.verifyWallMs / 1000) : null;
    if (existsSync(jfrB)) {
      const b = readJfrStacks(javaBin('jfr'), jfrB);
      const sb = selfShares(b);
      const sbApp = selfShares(b, isApp);
      j.repeatMethodOverlap = methodOverlap(sa.shares, sb.shares);
      j.repeatAppMethodOverlap = methodOverlap(saApp.shares, sbApp.shares);
      j.repeatTop10 = topAgreement(sa.shares, sb.shares, 10);
    }
    if (exact) {
      const ex = komoriumSelfShares(exact);
      j.appMethodOverlapWithExact = methodOverlap(saApp.shares, ex);
      const k = profileLib && res.configs.g10000r?.verified && existsSync(join(art, 'g10000r-v.kprof'))
        ? komoriumSelfShares(profileLib.readProfile(join(art, 'g10000r-v.kprof')))
        : null;
      if (k) {
        j.komoriumTop10VsExact = topAgreement(k, ex, 10);
        const kb = existsSync(join(art, 'g10000r-r0.kprof')) ? komoriumSelfShares(profileLib.readProfile(join(art, 'g10000r-r0.kprof'))) : null;
        if (kb) j.komoriumRepeatTop10 = topAgreement(k, kb, 10);
      }
      j.top10VsExact = topAgreement(saApp.shares, ex, 10);
    }
  }
  res.profileDir = relative(REPO, art);
  return res;
}

async function benchInstrumentSpeed(opts) {
  const jars = instrumentSpeedJars();
  const drivers = driversDir();
  const dir = freshDir(join(CACHE, 'work', 'instrument-speed'));
  const out = {};
  for (const j of jars) out[j.id] = { jar: j.path, bytes: fileSize(j.path), classes: jarClassNames(j.path).length, komorium: [], jacoco: [] };
  const tools = ['komorium', 'jacoco'];
  for (let rep = 0; rep < opts.instrReps; rep++) {
    for (const j of jars) {
      for (const tool of rotate(tools, rep)) {
        const dest = join(dir, `${j.id}-${tool}.jar`);
        rmSync(dest, { force: true });
        const r = tool === 'komorium'
          ? await runProcess(process.execPath, [KOMORIUM_BIN, 'instrument', j.path, '-o', dest, '--no-cache'], { timeFile: join(dir, '.time') })
          : await runProcess(
              javaBin('java'),
              [`-Djacoco.offline.runtime=${JACOCO_OFFLINE_RUNTIME}`, '-cp', [drivers, ...jacocoRuntimeClasspath()].join(':'), 'JacocoInstrument', j.path, dest],
              { timeFile: join(dir, '.time') },
            );
        out[j.id][tool].push({ wallMs: r.wallMs, maxRssKb: r.maxRssKb, code: r.code, outBytes: fileSize(dest) });
        if (r.code !== 0) log(`instrument-speed: ${tool} ${j.id} FAILED (exit ${r.code}): ${`${r.stderr}`.trim().split('\n').slice(-2).join(' | ')}`);
      }
    }
    log(`instrument-speed: rep ${rep + 1}/${opts.instrReps}: ${jars.map((j) => `${j.id} komorium=${(out[j.id].komorium[rep].wallMs / 1000).toFixed(2)} jacoco=${(out[j.id].jacoco[rep].wallMs / 1000).toFixed(2)}`).join(', ')}`);
  }
  for (const j of jars) {
    for (const tool of tools) {
      const runs = out[j.id][tool];
      out[j.id][`${tool}Median`] = {
        wallMs: median(runs.map((r) => r.wallMs)),
        maxRssKb: median(runs.map((r) => r.maxRssKb)),
        peakRssKb: Math.max(...runs.map((r) => r.maxRssKb ?? 0)),
        ok: runs.every((r) => r.code === 0),
        outBytes: runs[0]?.outBytes ?? null,
      };
    }
  }
  return out;
}

async function main() {
  // `--kind <name>`: a profile kind's own benchmark, scripts/bench/<name>.mjs (its options follow).
  const argv = process.argv.slice(2);
  if (argv[0] === '--subpaths') argv.splice(0, 1, '--kind', 'subpaths');
  if (argv[0] === '--kind') {
    const kind = argv[1] ?? '';
    const file = join(REPO, 'scripts', 'bench', `${kind}.mjs`);
    if (!/^[a-z][a-z0-9-]*$/.test(kind) || !existsSync(file)) throw new Error(`--kind ${kind}: no scripts/bench/${kind}.mjs`);
    const rest = argv.slice(2);
    if (!rest.includes('--no-install') && !rest.includes('--report-only') && !rest.includes('--help')) {
      const r = spawnSync('bash', [join(REPO, 'scripts', 'install-bench-deps.sh')], { stdio: 'inherit' });
      if (r.status !== 0) throw new Error('scripts/install-bench-deps.sh failed');
    }
    const mod = await import(pathToFileURL(file).href);
    return mod.runKindBench(rest.filter((a) => a !== '--no-install'));
  }
  const opts = parseArgs(argv);
  if (opts.reportOnly) {
    const results = JSON.parse(readFileSync(opts.json, 'utf8'));
    writeReport(results, { md: opts.md, figures: opts.figures, json: opts.json });
    log(`wrote ${relative(REPO, opts.md)} and figures in ${relative(REPO, opts.figures)} from ${relative(REPO, opts.json)}`);
    return;
  }
  if (opts.install) {
    const r = spawnSync('bash', [join(REPO, 'scripts', 'install-bench-deps.sh')], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('scripts/install-bench-deps.sh failed');
  }
  snapshotBuild();
  const profileLib = await import(pathToFileURL(join(SNAPSHOT, 'dist', 'profile', 'index.js')).href);
  const started = new Date();
  const results = {
    format: 'komorium-bench/1',
    quick: opts.quick,
    startedAt: started.toISOString(),
    machine: machineInfo(),
    settings: {
      reps: opts.reps,
      granularities: opts.granularities,
      random: opts.random,
      instrReps: opts.instrReps,
      exactMaxContexts: EXACT_MAX_CONTEXTS,
      komoriumJvmArgs: opts.komoriumJvmArgs,
      skip: [...opts.skip],
    },
    workloads: {},
    instrumentSpeed: null,
  };
  log(`machine: ${results.machine.nproc} cores, ${results.machine.cpu}, load ${results.machine.loadavg}; reps ${opts.reps}; granularities ${opts.granularities.join(',')}${opts.quick ? ' (QUICK)' : ''}`);
  const selected = opts.skip.has('workloads') ? [] : WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w.id));
  for (const wl of selected) {
    try {
      results.workloads[wl.id] = await benchWorkload(wl, opts, profileLib);
    } catch (e) {
      log(`${wl.id}: FAILED: ${e.stack ?? e}`);
      results.workloads[wl.id] = { id: wl.id, title: wl.title, error: String(e.message ?? e) };
    }
    saveJson(opts.json, results);
  }
  if (!opts.skip.has('instrument-speed')) {
    try {
      results.instrumentSpeed = await benchInstrumentSpeed(opts);
    } catch (e) {
      log(`instrument-speed: FAILED: ${e.stack ?? e}`);
      results.instrumentSpeed = { error: String(e.message ?? e) };
    }
  }
  results.finishedAt = new Date().toISOString();
  results.machine.loadavgAtEnd = loadavg();
  saveJson(opts.json, results);
  writeReport(results, { md: opts.md, figures: opts.figures, json: opts.json });
  log(`done in ${((Date.now() - started.getTime()) / 60000).toFixed(1)} min: ${relative(REPO, opts.json)}, ${relative(REPO, opts.md)}, ${relative(REPO, opts.figures)}/`);
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exit(1);
});
