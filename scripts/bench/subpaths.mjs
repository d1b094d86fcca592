// `npm run bench -- --kind subpaths` (issue 22): the subpaths kind (seed 003, OSP) on the bench workloads,
// the thesis' Tables 4.1–4.10 recomputed: blocks and subpaths, overhead split into skipping and
// sampling (t1 uninstrumented, t2 sampling, t3 skip logic alone, A/B interleaved, median), the hot
// list's memory, and the sample against the exact count of every subpath. Writes bench-subpaths.json
// and BENCHMARKS-subpaths.md. Run through `npm run bench -- --kind subpaths` (or `--subpaths`), which
// installs the workloads first unless --no-install; see `node scripts/bench.mjs --kind subpaths --help`.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { CACHE, REPO, WORKLOADS, driversDir, javaBin } from './workloads.mjs';
import { freshDir, log, median, parseOptions, rotate, runProcess, sh, snapshotBuild } from './util.mjs';
import { loadavg } from './machine.mjs';
import { compareOutcome, outcomeOf } from './outcome.mjs';
import { accuracySpec } from './subpaths/inputs.mjs';
import { writeSubpathsReport } from './subpaths/report.mjs';
import { breakdown } from './subpaths/breakdown.mjs';

const HELP = `usage: node scripts/bench.mjs --kind subpaths [options]   (or --subpaths)
  --reps N            timed repetitions of each configuration (default 5)
  --workloads a,b     subset of: ${WORKLOADS.map((w) => w.id).join(', ')}
  --skip x,y          skip parts: timing, accuracy, breakdown, micro
  --report-only       rewrite BENCHMARKS-subpaths.md from bench-subpaths.json
  --json PATH         results file (default bench-subpaths.json), e.g. for parts run at the same time
  --merge PATH        with --report-only: first fold the workloads and runs of PATH into the results
  --exact-from DIR    accuracy: take the exact profile DIR/subpaths-seeds-exact-<workload>.kprof (written by
                      scripts/bench/subpaths/seeds.mjs for the same jars and input) instead of an exact run
  --note TEXT         a remark kept with this run in the results and the page (e.g. what else ran)
  --no-install        do not run scripts/install-bench-deps.sh first (taken by scripts/bench.mjs)`;

const JSON_DEFAULT = join(REPO, 'bench-subpaths.json');
const MD_OUT = join(REPO, 'BENCHMARKS-subpaths.md');
/** Distinct subpaths the exact runs may keep (-Dkomorium.subpaths.exactLimit), and their heap. */
const EXACT_LIMIT = 8_000_000;
const EXACT_HEAP = '-Xmx6g';

function parseArgs(argv) {
  const defaults = { reps: 5, workloads: null, skip: new Set(), reportOnly: false, json: JSON_DEFAULT, merge: [], exactFrom: null, note: null };
  const o = parseOptions(argv, HELP, defaults, {
    flags: {
      '--report-only': (o) => (o.reportOnly = true),
      '--no-install': () => {}, // taken by scripts/bench.mjs
    },
    values: {
      '--reps': (o, v) => (o.reps = Number(v)),
      '--workloads': (o, v) => (o.workloads = v.split(',')),
      '--skip': (o, v) => v.split(',').forEach((s) => o.skip.add(s)),
      '--json': (o, v) => (o.json = v),
      '--merge': (o, v) => o.merge.push(v),
      '--exact-from': (o, v) => (o.exactFrom = v),
      '--note': (o, v) => (o.note = v),
    },
  });
  if (!(o.reps >= 1)) throw new Error('--reps must be at least 1');
  return o;
}

let SNAPSHOT = join(CACHE, 'subpaths-snapshot');

/** The build this run uses, copied at its start so that a rebuild meanwhile cannot mix two versions. */
export function snapshot(json) {
  SNAPSHOT = join(CACHE, `${basename(json, '.json')}-snapshot`);
  snapshotBuild(REPO, SNAPSHOT);
}

export async function distModules() {
  const dist = (p) => import(pathToFileURL(join(SNAPSHOT, 'dist', p)).href);
  const [read, doc, kinds, acc, est, model] = await Promise.all([
    dist('profile/read.js'), dist('profile/document.js'), dist('kinds/index.js'), dist('kinds/subpaths/accuracy.js'), dist('kinds/subpaths/estimate.js'), dist('kinds/subpaths/model.js'),
  ]);
  return {
    section(path) {
      const d = read.readDocument(path);
      const raw = d.sections.find((s) => s.kind === 'subpaths');
      return kinds.kindNamed('subpaths').section.read(new doc.SectionReader(d, raw));
    },
    compareTop: acc.compareTop,
    chernoffBound: est.chernoffBound,
    lengthProbability: est.lengthProbability,
    byEstimate: model.byEstimate,
    subpathKey: model.subpathKey,
  };
}

export async function instrument(spec, dir) {
  freshDir(dir);
  const out = [];
  for (const jar of spec.instrument) {
    const dest = join(dir, basename(jar));
    const cp = [...spec.instrument.filter((j) => j !== jar), ...spec.lib];
    const r = await runProcess(process.execPath, [join(SNAPSHOT, 'bin', 'komorium-ts.js'), 'instrument', jar, '-o', dest, '--profile', 'subpaths', ...(cp.length ? ['--classpath', ...cp] : [])]);
    if (r.code !== 0) throw new Error(`instrument ${jar} failed: ${r.stderr}`);
    const fallbacks = /fallbacks .*?(\d+) were left as they were/.exec(r.stdout.toString());
    out.push({ jar: dest, left: fallbacks ? Number(fallbacks[1]) : 0, summary: r.stdout.toString().trim().split('\n').slice(1, 5).join(' | ') });
  }
  return out;
}

export const CONFIGS = {
  base: null,
  sample: [],
  skip: ['-Dkomorium.subpaths.mode=skip'],
  exact: ['-Dkomorium.subpaths.mode=exact', `-Dkomorium.subpaths.exactLimit=${EXACT_LIMIT}`, EXACT_HEAP],
  // Ten times the samples of the default (and the memory they need): the accuracy bought by sampling more.
  dense: ['-Dkomorium.subpaths.interval=100', '-Dkomorium.subpaths.memory=16384'],
  // Every length from each sampled start: up to 31 times the samples of a long subpath at the same f.
  all: ['-Dkomorium.subpaths.lengths=all'],
};

/** Runs configuration `cfg` (of CONFIGS) of the workload; `props` adds system properties (e.g. a seed). */
export function runner(spec, jars, wdir, drivers) {
  const extra = spec.drivers ? [drivers] : [];
  return async (cfg, tag, s = spec, props0 = []) => {
    const cwd = freshDir(join(wdir, 'run'));
    const cp = cfg === 'base' ? [...s.instrument, ...s.lib, ...extra] : [...jars.map((j) => j.jar), ...s.lib, ...extra];
    const out = join(wdir, `${cfg}-${tag}.kprof`);
    const props = cfg === 'base' ? [] : ['-Dkomorium.quiet=true', `-Dkomorium.out=${out}`, ...CONFIGS[cfg], ...props0];
    const r = await runProcess(javaBin('java'), [...props, '-cp', cp.join(':'), s.main, ...s.args], { cwd, timeFile: join(wdir, '.time'), timeoutMs: 4 * 3_600_000 });
    return { r, outcome: outcomeOf(r, cwd), profile: out };
  };
}

async function timing(wl, run, reps, lib, res) {
  const ref = (await run('base', 'v')).outcome;
  res.deterministic = compareOutcome(ref, (await run('base', 'v2')).outcome);
  res.verified = {};
  for (const cfg of ['sample', 'skip']) {
    const v = await run(cfg, 'v');
    res.verified[cfg] = compareOutcome(ref, v.outcome);
    // Blocks are counted exactly in every mode: n of Table 4.5.
    res.timedBlocks = lib.section(v.profile).blocks;
    log(`${wl.id}: ${cfg} ${res.verified[cfg].length ? `OUTPUT DIFFERS: ${res.verified[cfg].join('; ')}` : 'output identical'} (${(v.r.wallMs / 1000).toFixed(1)} s)`);
  }
  const cfgs = ['base', 'sample', 'skip'];
  // A timing measured earlier (other commit, other load) stays beside the new one, summarized.
  if (res.ratio) {
    const { median: m, ratio: r, cpuRatio, loads, timedAt } = res;
    res.earlierTimings = [...(res.earlierTimings ?? []), { timedAt: timedAt ?? null, reps: res.times.base.length, median: m, ratio: r, cpuRatio: cpuRatio ?? null, loads }];
  }
  res.timedAt = new Date().toISOString();
  res.times = Object.fromEntries(cfgs.map((c) => [c, []]));
  res.cpu = Object.fromEntries(cfgs.map((c) => [c, []]));
  res.rss = Object.fromEntries(cfgs.map((c) => [c, []]));
  res.loads = [];
  for (let rep = 0; rep < reps; rep++) {
    res.loads.push(loadavg());
    for (const cfg of rotate(cfgs, rep)) {
      const { r, outcome: o } = await run(cfg, `r${rep}`);
      const d = compareOutcome(ref, o);
      if (d.length) log(`${wl.id}: ${cfg} rep ${rep} OUTPUT DIFFERS: ${d.join('; ')}`);
      res.times[cfg].push(r.wallMs);
      res.cpu[cfg].push(r.cpuMs);
      res.rss[cfg].push(r.maxRssKb);
    }
    log(`${wl.id}: rep ${rep + 1}/${reps}: ${cfgs.map((c) => `${c}=${(res.times[c][rep] / 1000).toFixed(2)} s (CPU ${(res.cpu[c][rep] / 1000).toFixed(2)})`).join(' ')} (load ${res.loads[rep]})`);
  }
  // Per-repetition ratios: the runs of one repetition ran next to each other, under much the same load.
  const ratios = (xs) => Object.fromEntries(cfgs.map((c) => [c, median(xs[c].map((t, i) => t / xs.base[i]))]));
  res.median = Object.fromEntries(cfgs.map((c) => [c, median(res.times[c])]));
  res.ratio = ratios(res.times);
  res.cpuMedian = Object.fromEntries(cfgs.map((c) => [c, median(res.cpu[c])]));
  res.cpuRatio = ratios(res.cpu);
}

/** Sampled and exact profiles of the same (possibly smaller) input: Tables 4.1, 4.6, 4.8–4.10. */
async function accuracy(wl, spec, run, lib, res, exactFrom) {
  const acc = accuracySpec(wl.id, spec);
  res.accuracyInput = acc.note;
  const ref = (await run('base', 'a', acc.spec)).outcome;
  const s = await run('sample', 'a', acc.spec);
  const t0 = Date.now();
  // An exact run takes 10–100 times the sampled one: one made for seeds.mjs serves here too.
  const reused = exactFrom && join(exactFrom, `subpaths-seeds-exact-${wl.id}.kprof`);
  const e = reused && existsSync(reused) ? { profile: reused, outcome: ref } : await run('exact', 'a', acc.spec);
  if (e.profile === reused) res.exactReused = relative(REPO, reused);
  else {
    delete res.exactReused;
    res.exactSeconds = (Date.now() - t0) / 1000;
  }
  const dense = await run('dense', 'a', acc.spec);
  const all = await run('all', 'a', acc.spec);
  res.accuracyVerified = { sample: compareOutcome(ref, s.outcome), exact: compareOutcome(ref, e.outcome), dense: compareOutcome(ref, dense.outcome), all: compareOutcome(ref, all.outcome) };
  const sample = lib.section(s.profile);
  const exact = lib.section(e.profile);
  const other = (profile) => {
    const d = lib.section(profile);
    const t = lib.compareTop(exact, d, 20, 10);
    return { rate: d.rate, memory: d.memory, peakEntries: d.peakEntries, memoryBytes: d.memoryBytes, trueTopFound: t.trueTopFound, trueTop: t.trueTop, trueTopErrors: t.trueTopErrors, coverage: t.coverage };
  };
  res.dense = other(dense.profile);
  res.all = other(all.profile);
  const { subpaths: _s, header: _h, ...sampleStats } = sample;
  const { subpaths: _e, header: _h2, ...exactStats } = exact;
  res.sample = { ...sampleStats, entries: sample.subpaths.length, sampledTotal: sample.subpaths.reduce((n, p) => n + p.count, 0) };
  res.exact = { ...exactStats, listed: exact.subpaths.length };
  const top = lib.compareTop(exact, sample, 20, 10);
  res.top = { ...top, rows: top.rows.map((r) => ({ ...r, bound: Number.isFinite(r.bound) ? r.bound : null })) };
  const hottest = [...sample.subpaths].sort((a, b) => b.count - a.count);
  res.chernoff = [0, 4].filter((i) => hottest[i]).map((i) => ({
    rank: i + 1,
    count: hottest[i].count,
    s1: lib.chernoffBound(hottest[i].count, 0.95, 'two'),
    s2: lib.chernoffBound(hottest[i].count, 0.95, 'one'),
    s3: lib.chernoffBound(hottest[i].count, 0.8, 'two'),
    s4: lib.chernoffBound(hottest[i].count, 0.8, 'one'),
  }));
  log(`${wl.id}: exact ${exact.blocks} blocks ${res.exactReused ? `from ${res.exactReused}` : `in ${res.exactSeconds.toFixed(0)} s`}; top 10 found ${top.trueTopFound}/10, coverage ${(top.coverage * 100).toFixed(0)}%`);
}

async function micro(lib) {
  const dir = freshDir(join(CACHE, 'work', 'subpaths-micro'));
  sh(javaBin('javac'), ['--release', '11', '-d', join(dir, 'classes'), join(REPO, 'scripts', 'bench', 'subpaths', 'OspMicro.java')]);
  sh(javaBin('jar'), ['cf', join(dir, 'micro.jar'), '-C', join(dir, 'classes'), '.']);
  const inst = await instrument({ instrument: [join(dir, 'micro.jar')], lib: [] }, join(dir, 'inst'));
  const parse = (r) => Object.fromEntries(r.stdout.toString().trim().split('\n').map((l) => l.split('\t')).map(([k, v]) => [k, Number(v)]));
  const runs = { base: [], sample: [] };
  for (let rep = 0; rep < 3; rep++) {
    runs.base.push(parse(await runProcess(javaBin('java'), ['-cp', join(dir, 'micro.jar'), 'OspMicro'])));
    runs.sample.push(parse(await runProcess(javaBin('java'), ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(dir, 'm.kprof')}`, '-cp', inst[0].jar, 'OspMicro'])));
  }
  const ops = Object.keys(runs.base[0]);
  return { load: loadavg(), rows: ops.map((op) => ({ op, base: median(runs.base.map((r) => r[op])), sample: median(runs.sample.map((r) => r[op])) })) };
}

function save(results, path) {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(results, null, 1) + '\n');
  renameSync(tmp, path);
}

/** Folds another results file in: its workloads' parts over ours, its runs after ours. */
function merged(results, path) {
  const other = JSON.parse(readFileSync(path, 'utf8'));
  for (const [id, w] of Object.entries(other.workloads)) results.workloads[id] = { ...results.workloads[id], ...w };
  results.runs = [...(results.runs ?? []), ...(other.runs ?? [])];
  results.micro ??= other.micro;
  results.reps ??= other.reps;
  return results;
}

export async function runKindBench(argv) {
  const o = parseArgs(argv);
  if (o.reportOnly) {
    const results = o.merge.reduce(merged, JSON.parse(readFileSync(o.json, 'utf8')));
    save(results, o.json);
    return writeSubpathsReport(results, MD_OUT);
  }
  snapshot(o.json);
  const lib = await distModules();
  const git = (a) => spawnSync('git', a, { cwd: REPO, encoding: 'utf8' }).stdout.trim();
  // Parts run separately (--skip, --workloads) update the results of earlier runs.
  const results = existsSync(o.json) ? JSON.parse(readFileSync(o.json, 'utf8')) : { workloads: {} };
  const part = { startedAt: new Date().toISOString(), commit: git(['rev-parse', '--short', 'HEAD']), loadAtStart: loadavg(), skipped: [...o.skip], workloads: o.workloads, ...(o.exactFrom ? { exactFrom: o.exactFrom } : {}), ...(o.note ? { note: o.note } : {}) };
  results.runs = [...(results.runs ?? []), part];
  Object.assign(results, { format: 'komorium-bench-subpaths/1', reps: o.skip.has('timing') ? results.reps : o.reps, jdk: spawnSync(javaBin('java'), ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0] });
  const drivers = driversDir();
  for (const wl of WORKLOADS.filter((w) => !o.workloads || o.workloads.includes(w.id))) {
    const spec = wl.setup({ quick: false });
    // One folder per results file, so that parts run at the same time (--json) do not share one.
    const wdir = freshDir(join(CACHE, 'work', `${basename(o.json, '.json')}-${wl.id}`));
    const res = { ...results.workloads[wl.id], id: wl.id, title: wl.title, input: wl.input, note: spec.note ?? null };
    delete res.error;
    try {
      const jars = await instrument(spec, join(wdir, 'jars'));
      res.instrumented = jars.map((j) => ({ jar: basename(j.jar), left: j.left, summary: j.summary }));
      const run = runner(spec, jars, wdir, drivers);
      if (!o.skip.has('timing')) await timing(wl, run, o.reps, lib, res);
      if (!o.skip.has('accuracy')) await accuracy(wl, spec, run, lib, res, o.exactFrom);
      if (!o.skip.has('breakdown')) res.breakdown = await breakdown(spec, jars, wdir, o.reps, drivers);
    } catch (e) {
      log(`${wl.id}: FAILED: ${e.stack ?? e}`);
      res.error = String(e.message ?? e);
    }
    results.workloads[wl.id] = res;
    save(results, o.json);
  }
  if (!o.skip.has('micro')) results.micro = await micro(lib);
  part.finishedAt = new Date().toISOString();
  part.loadAtEnd = loadavg();
  save(results, o.json);
  writeSubpathsReport(results, MD_OUT);
  log(`wrote ${relative(REPO, o.json)} and ${relative(REPO, MD_OUT)}`);
}
