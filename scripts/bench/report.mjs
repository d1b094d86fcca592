// BENCHMARKS.md and its SVG figures from bench-results.json (`node scripts/bench.mjs --report-only`).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { colorOf, linePlot } from './svg.mjs';
import { fmtRatio as ratio, geomean } from './util.mjs';
import { plainJavaSection, plainJavaTargetRows, plainJavaTargets } from './plain-java.mjs';

// A run of every workload at every granularity takes hours; a sweep over some workloads has a page of its own.
const SWEEP_MD = 'BENCHMARKS-sweep.md';
const SWEEP_JSON = 'bench-sweep.json';
const sameName = (a, b) => basename(a) === basename(b);
const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

const OVERHEAD_TARGET = 1.25;
const ACCURACY_TARGET = 0.95;
const TARGET_G = 10000;
const GIB_KB = 1024 * 1024;
const handWrittenPointer = 'Hand-written, with the measurements of each change: [BENCHMARKS.md](BENCHMARKS.md).';

const pct = (x, d = 1) => (x == null ? '–' : `${(x * 100).toFixed(d)}%`);
const secs = (ms) => (ms == null ? '–' : `${(ms / 1000).toFixed(2)} s`);
const mib = (kb) => (kb == null ? '–' : `${(kb / 1024).toFixed(0)} MiB`);
const bytes = (b) => (b == null ? '–' : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`);
const gfmt = (g) => g.toLocaleString('en-US');
const met = (ok) => (ok == null ? '**n/a**' : ok ? '**MET**' : '**NOT MET**');

function workloadsOf(results) {
  return Object.values(results.workloads).filter((w) => !w.error);
}

/** The three targets of issue 6, evaluated. */
export function evaluateTargets(results) {
  const wls = workloadsOf(results);
  const t = {};
  const ov = wls.map((w) => w.configs[`g${TARGET_G}`]?.medianRatio).filter((x) => x != null);
  t.overhead = {
    value: geomean(ov),
    n: ov.length,
    of: wls.length,
    randomized: geomean(wls.map((w) => w.configs[`g${TARGET_G}r`]?.medianRatio)),
    floor: geomean(wls.map((w) => w.configs.none?.medianRatio)),
  };
  t.overhead.met = ov.length === 0 ? null : ov.length === wls.length && t.overhead.value <= OVERHEAD_TARGET;
  const acc = wls.map((w) => {
    const c = w.configs[`g${TARGET_G}r`];
    return { id: w.id, v: c?.overlap ?? null, ideal: c?.idealOverlap ?? null };
  });
  const known = acc.filter((a) => a.v != null);
  const worst = known.reduce((m, a) => (m == null || a.v < m.v ? a : m), null);
  t.accuracy = { worst, all: acc, met: known.length === 0 ? null : known.length === acc.length && known.every((a) => a.v >= ACCURACY_TARGET) };
  const is = results.instrumentSpeed && !results.instrumentSpeed.error ? results.instrumentSpeed : null;
  if (is) {
    const jars = Object.entries(is);
    const biggest = jars.reduce((m, e) => (m == null || e[1].bytes > m[1].bytes ? e : m), null);
    const perJar = jars.map(([id, j]) => ({
      id,
      ok: j.komoriumMedian.ok && j.jacocoMedian.ok && j.komoriumMedian.wallMs <= j.jacocoMedian.wallMs,
      k: j.komoriumMedian.wallMs,
      j: j.jacocoMedian.wallMs,
    }));
    t.instrument = {
      perJar,
      biggest: biggest[0],
      biggestPeakKb: biggest[1].komoriumMedian.peakRssKb,
      met: perJar.every((p) => p.ok) && biggest[1].komoriumMedian.peakRssKb < GIB_KB,
    };
  } else t.instrument = { met: null };
  return t;
}

function figureOverhead(results, key) {
  const wls = workloadsOf(results);
  const gs = results.settings.granularities;
  const series = [];
  wls.forEach((w, i) => {
    for (const rand of [false, ...(results.settings.random > 0 ? [true] : [])]) {
      const pts = gs.map((g) => [g, w.configs[`g${g}${rand ? 'r' : ''}`]?.[key]]).filter((p) => p[1] != null);
      series.push({ name: `${w.id}${rand ? ` +r${results.settings.random}` : ''}`, color: colorOf(i), dash: rand ? '6 4' : null, points: pts });
    }
  });
  return series;
}

function writeFigures(results, dir) {
  mkdirSync(dir, { recursive: true });
  const files = {};
  const wls = workloadsOf(results);
  const floor = geomean(wls.map((w) => w.configs.none?.medianRatio));
  const overhead = figureOverhead(results, 'medianRatio');
  const gm = results.settings.granularities
    .map((g) => [g, geomean(wls.map((w) => w.configs[`g${g}`]?.medianRatio))])
    .filter((p) => p[1] != null);
  overhead.push({ name: 'geomean (constant)', color: '#000', width: 3, points: gm });
  // Every figure plots against the granularity on a log scale.
  const figure = (key, file, spec) => {
    files[key] = file;
    writeFileSync(join(dir, file), linePlot({ xLabel: 'granularity (bytecodes between samples), log scale', ...spec }));
  };
  figure('overhead', 'overhead.svg', {
    title: 'Overhead: instrumented / uninstrumented wall time',
    yLabel: 'slowdown (×)',
    series: overhead,
    refLines: [
      { y: OVERHEAD_TARGET, label: `target ${OVERHEAD_TARGET}×`, color: '#2a2' },
      ...(floor ? [{ y: floor, label: `agent=none floor (geomean) ${floor.toFixed(2)}×`, color: '#888' }] : []),
    ],
    yMin: 1,
  });
  figure('accuracy', 'accuracy.svg', {
    title: 'Accuracy: overlap with the exact profile (seed 002 §7.1)',
    yLabel: 'overlap (%)',
    series: figureOverhead(results, 'overlap').map((s) => ({ ...s, points: s.points.map(([x, y]) => [x, y * 100]) })),
    refLines: [{ y: ACCURACY_TARGET * 100, label: `target ${ACCURACY_TARGET * 100}%`, color: '#2a2' }],
    yMax: 100,
  });
  figure('size', 'profile-size.svg', {
    title: 'Profile size (.kprof bytes)',
    yLabel: 'bytes, log scale',
    series: figureOverhead(results, 'profileBytes'),
    yLog: true,
  });
  return files;
}

export function writeReport(results, { md, figures, json = 'bench-results.json' }) {
  const files = writeFigures(results, figures);
  const rel = (f) => relative(dirname(md), join(figures, f)).split('\\').join('/');
  const wls = workloadsOf(results);
  const failed = Object.values(results.workloads).filter((w) => w.error);
  const gs = results.settings.granularities;
  const R = results.settings.random;
  const m = results.machine;
  const t = evaluateTargets(results);
  const L = [];
  const isSweep = sameName(md, SWEEP_MD);
  L.push(isSweep ? '# Benchmarks: granularity sweep' : '# Benchmarks');
  L.push('');
  if (!isSweep) L.push('The subpaths kind (seed 003, issue 22) has its own page: [BENCHMARKS-subpaths.md](BENCHMARKS-subpaths.md) (`npm run bench -- --kind subpaths`).', '');
  if (isSweep) {
    L.push(`> A subset of the workloads at every granularity, beside the full run in [BENCHMARKS.md](BENCHMARKS.md); the targets below are over these ${Object.keys(results.workloads).length} workloads only.`);
    L.push('');
  }
  // The profile kinds' benchmarks, and the others too long for this page (scripts/bench/<name>.mjs, `npm run bench -- --kind <name>`), have pages of their own.
  const kindPages = readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.mjs') && existsSync(join(dirname(md), `BENCHMARKS-${f.slice(0, -4)}.md`)))
    .map((f) => f.slice(0, -4))
    .sort();
  if (!isSweep && kindPages.length > 0) {
    // A script that `--kind` cannot load (no runKindBench) is named as run by itself.
    const command = (k) =>
      /export async function runKindBench/.test(readFileSync(join(BENCH_DIR, `${k}.mjs`), 'utf8')) ? `npm run bench -- --kind ${k}` : `node scripts/bench/${k}.mjs`;
    L.push(`Pages of their own (profile kinds, the instrumented JDK, \`instrument\` at scale): ${kindPages.map((k) => `[${k}](BENCHMARKS-${k}.md) (\`${command(k)}\`)`).join(', ')}.`);
    L.push('');
  }
  if (results.quick) {
    L.push('> **QUICK RUN (`--quick`): one repetition, few granularities, on a shared machine. These figures are a smoke test and noisy; they are not the benchmark.** Run `npm run bench` for the full one.');
    L.push('');
  }
  L.push(
    `Generated by \`npm run bench\` (scripts/bench.mjs) from \`${relative(dirname(md), json) || json}\`; regenerate this page with \`node scripts/bench.mjs --report-only${sameName(json, 'bench-results.json') ? '' : ` --json ${relative(dirname(md), json)} --md ${basename(md)} --figures ${relative(dirname(md), figures)}`}\`. ` +
      `Run ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC – ${(results.finishedAt ?? '?').slice(11, 16)} UTC, commit \`${m.commit}\`` +
      `${m.dirty ? ` with ${m.dirty} uncommitted change(s) under src/ and runtime-java/` : ''}.`,
  );
  L.push('');
  L.push('## Machine');
  L.push('');
  L.push('| | |');
  L.push('| --- | --- |');
  L.push(`| cores (\`nproc\`) | ${m.nproc} |`);
  L.push(`| CPU | ${m.cpu} |`);
  L.push(`| memory | ${m.memoryGiB} GiB |`);
  L.push(`| OS | ${m.os} |`);
  L.push(`| JDK | ${m.jdk} |`);
  L.push(`| Node | ${m.node} |`);
  L.push(`| load average at start / end | ${m.loadavg} / ${m.loadavgAtEnd ?? '?'} |`);
  L.push(`| settings | ${results.settings.reps} timed repetition(s) per configuration, granularities ${gs.map(gfmt).join(', ')}, randomized R = ${R}, komorium JVM options \`${results.settings.komoriumJvmArgs.join(' ') || '(none)'}\` |`);
  L.push('');

  L.push('## Targets');
  L.push('');
  L.push('| target | measured | |');
  L.push('| --- | --- | --- |');
  L.push(
    `| overhead at granularity ${gfmt(TARGET_G)} ≤ ${OVERHEAD_TARGET}× (geometric mean over the workloads, constant granularity) | ` +
      `${ratio(t.overhead.value)} over ${t.overhead.n}/${t.overhead.of} workloads (randomized ${ratio(t.overhead.randomized)}; agent=none floor ${ratio(t.overhead.floor)}; Komorium 2006: 1.47–1.56×, floor 1.37–1.47×) | ${met(t.overhead.met)} |`,
  );
  L.push(
    `| accuracy at ${gfmt(TARGET_G)} randomized (+r${R}) ≥ ${ACCURACY_TARGET * 100}% overlap with the exact profile, every workload | ` +
      `${t.accuracy.all.map((a) => `${a.id} ${a.v == null ? 'n/a (no verified exact or sampled profile)' : pct(a.v)}${a.ideal == null ? '' : ` (ideal ${pct(a.ideal)})`}`).join(', ') || '–'} (Komorium 2006: ~91% constant, >96% at 500 randomized). Ideal: what any unbiased sampler with as many samples reaches in expectation (see Accuracy) | ${met(t.accuracy.met)} |`,
  );
  if (t.instrument.perJar) {
    L.push(
      `| \`instrument\` time ≤ JaCoCo offline on the same jar (whole process, median); peak memory < 1 GiB for the biggest jar (${t.instrument.biggest}) | ` +
        `${t.instrument.perJar.map((p) => `${p.id} ${secs(p.k)} vs ${secs(p.j)}`).join(', ')}; peak ${mib(t.instrument.biggestPeakKb)} | ${met(t.instrument.met)} |`,
    );
  } else L.push(`| \`instrument\` time ≤ JaCoCo offline; peak memory < 1 GiB | not measured | ${met(null)} |`);
  L.push(...plainJavaTargetRows(plainJavaTargets(results, wls), met));
  L.push('');

  L.push('## Workloads');
  L.push('');
  L.push('Each workload is a whole JVM process (`java -cp … Main args`), uninstrumented, instrumented by `komorium-ts instrument` (each jar listed, the others on `--classpath`), and instrumented by JaCoCo. ' +
    'Before timing, every configuration ran once and its exit code, stdout, stderr and every file it wrote were compared byte for byte with the uninstrumented run (and the uninstrumented run with itself); the timed runs are compared again.');
  L.push('');
  L.push('| workload | program | input | classes instrumented | uninstrumented (median) | peak RSS | outputs |');
  L.push('| --- | --- | --- | --- | --- | --- | --- |');
  for (const w of wls) {
    const bad = Object.entries(w.configs).filter(([, c]) => !c.verified || c.timedOutputsOk === false).map(([id]) => id);
    const det = w.baseDeterministic?.length ? ' **uninstrumented run not deterministic**' : '';
    L.push(
      `| ${w.id} | ${w.program}${w.note ? ` (${w.note})` : ''} | ${w.input} | ${w.classes} in ${w.instrumentedJars.join(', ')} | ${secs(w.base?.medianMs)} | ${mib(w.base?.maxRssKb ? Math.max(...w.base.maxRssKb) : null)} | ${bad.length ? `differ: ${bad.join(', ')}` : 'all identical'}${det} |`,
    );
  }
  for (const w of failed) L.push(`| ${w.id} | **failed**: ${w.error} | | | | | |`);
  L.push('');

  L.push('## Overhead');
  L.push('');
  L.push(`Median over the repetitions of (configuration's wall time / uninstrumented wall time of the same repetition); configurations run round-robin, the order rotated every repetition. Whole-process wall time, JVM start included.`);
  L.push('');
  const head = ['workload', 'uninstr.', 'agent=none', ...gs.map(gfmt), 'JaCoCo', 'JFR'];
  const rows = (suffix) =>
    wls.map((w) => {
      const c = (id) => (w.configs[id] ? (w.configs[id].verified ? ratio(w.configs[id].medianRatio) : '✗') : '–');
      return `| ${w.id} | ${secs(w.base?.medianMs)} | ${c('none')} | ${gs.map((g) => c(`g${g}${suffix}`)).join(' | ')} | ${c('jacoco')} | ${c('jfr')} |`;
    });
  const gmRow = (suffix) => {
    const gm = (id) => ratio(geomean(wls.map((w) => w.configs[id]?.medianRatio)));
    return `| **geomean** | | ${gm('none')} | ${gs.map((g) => gm(`g${g}${suffix}`)).join(' | ')} | ${gm('jacoco')} | ${gm('jfr')} |`;
  };
  L.push('Constant granularity:');
  L.push('');
  L.push(`| ${head.join(' | ')} |`);
  L.push(`|${head.map(() => ' --- ').join('|')}|`);
  L.push(...rows(''), gmRow(''));
  L.push('');
  if (R > 0) {
    L.push(`Randomized granularity (g + r, 0 ≤ r < ${R}):`);
    L.push('');
    L.push(`| ${head.join(' | ')} |`);
    L.push(`|${head.map(() => ' --- ').join('|')}|`);
    L.push(...rows('r'), gmRow('r'));
    L.push('');
  }
  L.push('✗: output differed from the uninstrumented run (see *Problems*), so it was not timed.');
  L.push('');
  L.push(`![overhead against granularity](${rel(files.overhead)})`);
  L.push('');
  L.push(...plainJavaSection(results, wls));
  const sweepJson = join(dirname(md), SWEEP_JSON);
  if (!isSweep && existsSync(join(dirname(md), SWEEP_MD)) && existsSync(sweepJson)) {
    const sweep = JSON.parse(readFileSync(sweepJson, 'utf8'));
    const ids = Object.keys(sweep.workloads);
    const sgs = sweep.settings.granularities;
    L.push(`Granularities ${sgs.map((g) => g.toLocaleString('en-US')).join(', ')}, constant and randomized, on ${ids.join(', ')} (${ids.length} of ${wls.length} workloads): ` +
      `[${SWEEP_MD}](${SWEEP_MD}) (\`node scripts/bench.mjs --workloads ${ids.join(',')} --granularities ${sgs.join(',')} --reps ${sweep.settings.reps} --skip instrument-speed,jfr --json ${SWEEP_JSON} --md ${SWEEP_MD} --figures scripts/bench/figures/sweep\`).`);
    L.push('');
  }
  // Issue 21's bursty tracing has its own driver and page (scripts/bench/hps.mjs).
  if (existsSync(join(dirname(md), 'BENCHMARKS-hps.md'))) {
    L.push('Bursty tracing (seed 001: hot methods, call pairs, hot data streams; check mechanisms; the burst length × frequency grid): [BENCHMARKS-hps.md](BENCHMARKS-hps.md) (`npm run bench -- --kind hps`).');
    L.push('');
  }
  L.push('Peak resident memory (median, MiB) uninstrumented → agent=none → g=10,000 → JaCoCo → JFR: ' +
    wls.map((w) => `${w.id} ${[w.base?.maxRssKb?.length ? Math.max(...w.base.maxRssKb) : null, w.configs.none?.medianMaxRssKb, w.configs[`g${TARGET_G}`]?.medianMaxRssKb, w.configs.jacoco?.medianMaxRssKb, w.configs.jfr?.medianMaxRssKb].map((k) => (k == null ? '–' : (k / 1024).toFixed(0))).join(' → ')}`).join('; ') + '.');
  L.push('');

  L.push('## Accuracy and cost of the profile');
  L.push('');
  L.push('Overlap (seed 002 §7.1) of each sampled profile with the exact profile (`komorium.agent=exact`, every bytecode) of the same workload, over calling contexts; ' +
    'δb = sampled totalBytecodes / exact totalBytecodes − 1 (§7.2); size of the `.kprof` file; samples and samples per second of wall time. ' +
    '"Ideal" is the overlap that the same number of samples, drawn independently in proportion to the exact profile, would have with it in expectation ' +
    '(`idealSampledOverlap`, src/profile/analysis.ts): no sampler can do better on average. Where the measured overlap is close to it, what is missing is samples, not accuracy: ' +
    'the run spreads its bytecodes over more calling contexts than it takes samples.');
  L.push('');
  const acc = ['workload', 'granularity', 'overlap', `overlap +r${R}`, `ideal (+r${R})`, 'method overlap', 'δb', 'profile size', 'samples', 'samples/s'];
  L.push(`| ${acc.join(' | ')} |`);
  L.push(`|${acc.map(() => ' --- ').join('|')}|`);
  for (const w of wls) {
    for (const g of gs) {
      const c = w.configs[`g${g}`] ?? {};
      const r = w.configs[`g${g}r`] ?? {};
      L.push(
        `| ${w.id} | ${gfmt(g)} | ${pct(c.overlap)} | ${pct(r.overlap)} | ${pct(r.idealOverlap)} | ${pct(c.methodOverlap)} | ${c.deltaB == null ? '–' : c.deltaB.toExponential(1)} | ${bytes(c.profileBytes)} | ${c.samples?.toLocaleString('en-US') ?? '–'} | ${c.samplesPerSecond ? Math.round(c.samplesPerSecond).toLocaleString('en-US') : '–'} |`,
      );
    }
    const e = w.configs.exact;
    if (e) L.push(`| ${w.id} | exact | 100% | | | | | ${bytes(e.profileBytes)} | ${e.totalBytecodes?.toLocaleString('en-US') ?? '–'} bytecodes | ${e.verifyWallMs ? `(${secs(e.verifyWallMs)} run, ${ratio(e.verifyWallMs / w.base.medianMs)})` : ''} |`);
  }
  L.push('');
  L.push(`![accuracy against granularity](${rel(files.accuracy)})`);
  L.push('');
  L.push(`![profile size against granularity](${rel(files.size)})`);
  L.push('');

  L.push('## Reproducibility: JFR against komorium-ts');
  L.push('');
  L.push('Two runs of the same workload: JFR (`-XX:StartFlightRecording=…,settings=profile`, jdk.ExecutionSample, each sample counted for its innermost frame) against komorium-ts at ' +
    `g=${gfmt(TARGET_G)}+r${R}. "Method overlap" is Σ over methods of min(self share in run 1, self share in run 2). "App" attributes a JFR sample to its innermost frame in the instrumented jars (komorium-ts counts only those), dropping samples with none. ` +
    'The last columns compare each profiler with the exact komorium-ts profile at method level.');
  L.push('');
  const rh = ['workload', 'JFR samples (samples/s)', 'JFR run-to-run method overlap (all / app)', 'JFR top-10 in common', `komorium run-to-run method overlap`, 'komorium top-10 in common', 'komorium samples/s', 'JFR app vs exact', `komorium vs exact`, 'top-10 vs exact JFR / komorium'];
  L.push(`| ${rh.join(' | ')} |`);
  L.push(`|${rh.map(() => ' --- ').join('|')}|`);
  for (const w of wls) {
    const j = w.configs.jfr?.analysis;
    const k = w.configs[`g${TARGET_G}r`] ?? w.configs[`g${TARGET_G}`] ?? {};
    L.push(
      `| ${w.id} | ${j ? `${j.samples} (${Math.round(j.samplesPerSecond ?? 0)}/s)` : '–'} | ${j ? `${pct(j.repeatMethodOverlap)} / ${pct(j.repeatAppMethodOverlap)}` : '–'} | ${j?.repeatTop10 ?? '–'}/10 | ` +
        `${pct(k.repeat?.methodOverlap)}${k.repeat ? (k.repeat.identical ? ' (identical profiles)' : '') : ''} | ${j?.komoriumRepeatTop10 ?? '–'}/10 | ${k.samplesPerSecond ? Math.round(k.samplesPerSecond).toLocaleString('en-US') : '–'} | ` +
        `${pct(j?.appMethodOverlapWithExact)} | ${pct(k.methodOverlap)} | ${j?.top10VsExact ?? '–'} / ${j?.komoriumTop10VsExact ?? '–'} |`,
    );
  }
  L.push('');

  L.push('## Instrumentation speed: `komorium-ts instrument` against JaCoCo offline');
  L.push('');
  const is = results.instrumentSpeed;
  if (is && !is.error) {
    L.push('Whole processes, median wall time and peak resident memory (`/usr/bin/time -f %M`) of ' +
      `${results.settings.instrReps} run(s), interleaved: \`node bin/komorium-ts.js instrument X.jar -o out.jar\` against a JVM running \`Instrumenter.instrumentAll\` with an \`OfflineInstrumentationAccessGenerator\` (scripts/bench/java/JacocoInstrument.java, JaCoCo 0.8.6 from Debian). ` +
      'Reference (GUIDE §2): JaCoCo on guava.jar 0.89 s and 178 MiB.');
    L.push('');
    L.push('| jar | size | classes | komorium-ts | peak | output | JaCoCo | peak | output | komorium / JaCoCo |');
    L.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [id, j] of Object.entries(is)) {
      const k = j.komoriumMedian;
      const c = j.jacocoMedian;
      L.push(`| ${id} | ${bytes(j.bytes)} | ${j.classes} | ${k.ok ? secs(k.wallMs) : '**failed**'} | ${mib(k.peakRssKb)} | ${bytes(k.outBytes)} | ${c.ok ? secs(c.wallMs) : '**failed**'} | ${mib(c.peakRssKb)} | ${bytes(c.outBytes)} | ${k.wallMs && c.wallMs ? ratio(k.wallMs / c.wallMs) : '–'} |`);
    }
  } else L.push(is?.error ? `Failed: ${is.error}` : 'Not measured in this run.');
  L.push('');
  L.push('Per workload, the time `instrument` took on the workload\'s jars (one run, whole processes): ' +
    wls.map((w) => `${w.id} ${secs(w.komoriumInstrument?.wallMs)}${w.jacocoInstrument ? ` (JaCoCo ${secs(w.jacocoInstrument.wallMs)})` : ''}`).join(', ') + '. ' +
    'Methods left as they were / methods past HotSpot\'s HugeMethodLimit: ' +
    wls.map((w) => `${w.id} ${w.komoriumInstrument?.leftAsTheyWere ?? '–'}/${w.komoriumInstrument?.hugeMethods ?? '–'}`).join(', ') + '.');
  L.push('');
  // Hand-written: the A/B of the last session that worked on `instrument` speed (issue 23). The sweep
  // page points to it: a copy there goes stale whenever the note changes and the sweep is not rerun.
  L.push(isSweep ? handWrittenPointer : readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'instrument-speed.md'), 'utf8').trimEnd());
  L.push('');

  const problems = [];
  for (const w of wls) {
    if (w.baseDeterministic?.length) problems.push(`- ${w.id}: two uninstrumented runs differ: ${w.baseDeterministic.join('; ')}`);
    if (w.komoriumInstrument && !w.komoriumInstrument.ok) problems.push(`- ${w.id}: ${w.komoriumInstrument.error}`);
    if (w.jacocoInstrument && !w.jacocoInstrument.ok) problems.push(`- ${w.id}: ${w.jacocoInstrument.error}`);
    for (const [id, c] of Object.entries(w.configs)) {
      if (c.toolMessages?.length) problems.push(`- ${w.id} ${id}: the komorium runtime wrote to stderr (set aside, not compared): ${c.toolMessages.map((x) => `\`${x}\``).join('; ')}`);
      if (!c.verified) problems.push(`- ${w.id} ${id}: ${c.problems.join('; ')}`);
      else if (c.timedOutputsOk === false) problems.push(`- ${w.id} ${id}: a timed run's output differed`);
    }
  }
  for (const w of failed) problems.push(`- ${w.id}: ${w.error}`);
  L.push('## Problems');
  L.push('');
  L.push(problems.length ? problems.join('\n') : 'None: every configuration of every workload gave byte-identical output.');
  L.push('');

  L.push('## Optimizations tried');
  L.push('');
  // Hand-written, with the A/B figures of each change: scripts/bench/optimizations.md.
  L.push(isSweep ? handWrittenPointer : readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'optimizations.md'), 'utf8').trimEnd());
  L.push('');
  L.push('Issue 23 (plain `java` and HugeMethodLimit, the `instrument` cache, `instrument` against JaCoCo, hand-written): [BENCHMARKS-issue23.md](BENCHMARKS-issue23.md)');
  L.push('');

  L.push('## How to run');
  L.push('');
  L.push('```sh');
  L.push('npm run bench                          # full: 5 repetitions, 7 granularities, all workloads (hours on 2 cores)');
  L.push('npm run bench -- --quick               # smoke run in minutes: 1 repetition, 3 granularities');
  L.push('npm run bench -- --workloads rhino,h2 --reps 3 --granularities 1000,10000');
  L.push('node scripts/bench.mjs --report-only   # this page and the figures again from bench-results.json');
  L.push("node scripts/ab.mjs --reps 5 old='java …' new='java …'   # an A/B of one change, as in Optimizations tried");
  L.push('```');
  L.push('');
  L.push('The workloads are installed by `scripts/install-bench-deps.sh` (Debian packages, esprima and lodash from npm); run artefacts (instrumented jars, profiles, JFR recordings) stay in `.cache/bench/work/<workload>/`. ' +
    `Komorium runs use \`-Dkomorium.quiet=true\` and the JVM options shown under *Machine*; the exact runs also \`-Dkomorium.maxContexts=${results.settings.exactMaxContexts ?? 1000000}\` so that the ground truth is not cut. ` +
    'JaCoCo runs put Debian\'s `org.jacoco.agent.rt.jar` (not shaded, so with `org.jacoco.core.jar` and ASM) on the class path and write `-Djacoco-agent.destfile`.');
  L.push('');
  mkdirSync(dirname(md), { recursive: true });
  writeFileSync(md, `${L.join('\n')}\n`);
}

export function readResults(path) {
  if (!existsSync(path)) throw new Error(`${path} does not exist: run npm run bench first`);
  return JSON.parse(readFileSync(path, 'utf8'));
}
