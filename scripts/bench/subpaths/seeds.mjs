// Bias or variance? The sampling mode's estimates of the exact top 10 across several seeds
// (-Dkomorium.seed), against one exact run of the same accuracy input (scripts/bench/subpaths/inputs.mjs).
// A subpath of length L with true count T, sampled at final rate f, has an expected sample count
// λ = T · P(L) / f; if the estimator is unbiased and occurrences are sampled independently, its
// sample count is Poisson(λ) (binomial, with a tiny p), so z = (count − λ) / √λ has mean 0 and
// variance 1 over seeds and subpaths. A mean z away from 0 is bias; a variance well above 1 is
// correlated sampling; neither means the errors are the 1/√λ of too few samples.
//
//   node scripts/bench/subpaths/seeds.mjs --workloads xalan,jflex --seeds 10 [--props -Dx=y,...] [--tag T] [--reuse-exact]
// Writes .cache/bench/subpaths-seeds-<tag>.json and prints a table per workload.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, REPO, WORKLOADS, driversDir } from '../workloads.mjs';
import { freshDir, log, parseOptions } from '../util.mjs';
import { accuracySpec } from './inputs.mjs';
import { distModules, instrument, runner, snapshot } from '../subpaths.mjs';

const HELP = `usage: node scripts/bench/subpaths/seeds.mjs [options]
  --workloads a,b   subset of: ${WORKLOADS.map((w) => w.id).join(', ')}
  --seeds N         sampled runs per workload, seeds 0..N-1 (default 10; seed 0 is the bench's)
  --props a,b       extra system properties of the sampled runs, e.g. -Dkomorium.subpaths.interval=100
  --tag T           names the results file and the work folders (default: default)
  --reuse-exact     keep the exact profile of an earlier run with the same workload (same jars' blocks)
  --wait-exact S    with --reuse-exact: after the sampled runs, wait up to S seconds for another run's exact profile
  --fold T1,T2 --as NAME   run nothing: put the results of tags T1, T2… into bench-subpaths.json
                    as seeds.NAME, for BENCHMARKS-subpaths.md (then --report-only rewrites the page)`;

function parseArgs(argv) {
  return parseOptions(argv, HELP, { workloads: null, seeds: 10, props: [], tag: 'default', reuseExact: false, waitExact: 0, fold: null, as: null }, {
    flags: { '--reuse-exact': (o) => (o.reuseExact = true) },
    values: {
      '--workloads': (o, v) => (o.workloads = v.split(',')),
      '--seeds': (o, v) => (o.seeds = Number(v)),
      '--props': (o, v) => (o.props = v.split(',')),
      '--tag': (o, v) => (o.tag = v),
      '--wait-exact': (o, v) => (o.waitExact = Number(v)),
      '--fold': (o, v) => (o.fold = v.split(',')),
      '--as': (o, v) => (o.as = v),
    },
  });
}

/** One sampled run against the exact top 10: per subpath its sample count, λ and estimate. */
function against(lib, exact, sample) {
  const inSample = new Map(sample.subpaths.map((p) => [lib.subpathKey(p.blocks), p.count]));
  const top = lib.compareTop(exact, sample, 20, 10);
  const truth = lib.byEstimate(exact).slice(0, 10).map((p) => {
    const P = lib.lengthProbability(p.blocks.length, sample.maxLength, sample.perStart);
    const count = inSample.get(lib.subpathKey(p.blocks)) ?? 0;
    return { length: p.blocks.length, truth: p.count, tp: p.count * P, count, lambda: (p.count * P) / sample.rate, estimate: (count * sample.rate) / P };
  });
  const errs = top.trueTopErrors.map((e) => e ?? 1);
  return { rate: sample.rate, resamples: sample.resamples, peak: sample.peakEntries, found: top.trueTopFound, maxError: Math.max(...errs), coverage: top.coverage, truth };
}

function summarize(id, runs) {
  const n = runs.length;
  const rows = runs[0].truth.map((t, i) => {
    const per = runs.map((r) => r.truth[i]);
    const meanEst = per.reduce((s, x) => s + x.estimate, 0) / n;
    const z = per.map((x) => (x.count - x.lambda) / Math.sqrt(x.lambda));
    const lambda = per.reduce((s, x) => s + x.lambda, 0) / n;
    const errs = per.map((x) => Math.abs(x.estimate - x.truth) / x.truth);
    return { rank: i + 1, length: t.length, truth: t.truth, tp: t.tp, lambda, bias: meanEst / t.truth - 1, biasSe: 1 / Math.sqrt(lambda * n), sdPoisson: 1 / Math.sqrt(lambda), rmsError: Math.sqrt(errs.reduce((s, e) => s + e * e, 0) / n), maxError: Math.max(...errs), z };
  });
  const zs = rows.flatMap((r) => r.z);
  const zMean = zs.reduce((s, x) => s + x, 0) / zs.length;
  const zVar = zs.reduce((s, x) => s + (x - zMean) ** 2, 0) / (zs.length - 1);
  // What the 5% target needs: every one of the 10 within 5% with probability 95% (union bound,
  // 0.5% each, normal approximation) needs λ ≥ (z/0.05)² for z = 2.81 on the coldest of them.
  const need = (2.807 / 0.05) ** 2;
  const weakest = Math.min(...rows.map((r) => r.tp));
  const fNeeded = weakest / need;
  return { id, seeds: n, zMean, zMeanSe: 1 / Math.sqrt(zs.length), zVar, lambdaNeeded: need, fNeeded, inputTimes: (need * runs[0].rate) / weakest, rows, runs: runs.map(({ truth: _t, ...r }) => r) };
}

function print(s) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  console.log(`\n${s.id}: ${s.seeds} seeds; z over the true top 10: mean ${s.zMean.toFixed(3)} (± ${s.zMeanSe.toFixed(3)} for no bias), variance ${s.zVar.toFixed(2)} (1 for Poisson)`);
  console.log('runs: ' + s.runs.map((r) => `f=${r.rate} found ${r.found}/10 max err ${pct(r.maxError)}`).join('; '));
  console.log(`the 5% target needs λ ≥ ${s.lambdaNeeded.toFixed(0)} on each: f ≤ ${s.fNeeded.toFixed(1)} on this input, or ${s.inputTimes.toFixed(1)}× the input at this f`);
  console.log('rank length truth λ(mean) bias(±se) sd(Poisson) rms-err max-err');
  for (const r of s.rows) console.log([r.rank, r.length, r.truth, r.lambda.toFixed(1), `${pct(r.bias)}(±${pct(r.biasSe)})`, pct(r.sdPoisson), pct(r.rmsError), pct(r.maxError)].join(' '));
}

/** The results of several tags, by workload, as seeds.<name> of bench-subpaths.json. */
function fold(tags, name) {
  const path = join(REPO, 'bench-subpaths.json');
  const results = JSON.parse(readFileSync(path, 'utf8'));
  const into = (results.seeds ??= {})[name] ?? {};
  for (const t of tags) Object.assign(into, JSON.parse(readFileSync(join(CACHE, `subpaths-seeds-${t}.json`), 'utf8')));
  results.seeds[name] = into;
  writeFileSync(path, JSON.stringify(results, null, 1) + '\n');
  log(`seeds.${name}: ${Object.keys(into).join(', ')}`);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.fold) return fold(o.fold, o.as ?? o.fold[0]);
  snapshot(join(CACHE, `subpaths-seeds-${o.tag}.json`));
  const lib = await distModules();
  const drivers = driversDir();
  const out = join(CACHE, `subpaths-seeds-${o.tag}.json`);
  const results = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
  for (const wl of WORKLOADS.filter((w) => !o.workloads || o.workloads.includes(w.id))) {
    const acc = accuracySpec(wl.id, wl.setup({ quick: false }));
    const wdir = join(CACHE, 'work', `subpaths-seeds-${o.tag}-${wl.id}`);
    const jars = await instrument(acc.spec, freshDir(join(wdir, 'jars')));
    const run = runner(acc.spec, jars, wdir, drivers);
    const samples = [];
    for (let seed = 0; seed < o.seeds; seed++) {
      const s = await run('sample', `s${seed}`, acc.spec, [`-Dkomorium.seed=${seed}`, ...o.props]);
      if (!existsSync(s.profile)) throw new Error(`${wl.id}: the sampled run wrote no profile: ${s.r.stderr}`);
      samples.push(lib.section(s.profile));
    }
    const exactPath = join(CACHE, 'work', `subpaths-seeds-exact-${wl.id}.kprof`);
    // Another run of this script may be making the exact profile (it takes 10–100 times a sampled run).
    for (const until = Date.now() + o.waitExact * 1000; o.reuseExact && !existsSync(exactPath) && Date.now() < until; ) {
      await new Promise((w) => setTimeout(w, 10_000));
    }
    if (!(o.reuseExact && existsSync(exactPath))) {
      const t0 = Date.now();
      const e = await run('exact', 'a');
      // Some workloads exit non-zero by design (ecj reports errors in its input): a profile is what counts.
      if (!existsSync(e.profile)) throw new Error(`${wl.id}: the exact run wrote no profile: ${e.r.stderr}`);
      writeFileSync(`${exactPath}.tmp`, readFileSync(e.profile));
      renameSync(`${exactPath}.tmp`, exactPath);
      log(`${wl.id}: exact run ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    const exact = lib.section(exactPath);
    const runs = samples.map((s) => against(lib, exact, s));
    results[wl.id] = { props: o.props, ...summarize(wl.id, runs) };
    print(results[wl.id]);
    writeFileSync(out, JSON.stringify(results, null, 1) + '\n');
  }
}

await main();
