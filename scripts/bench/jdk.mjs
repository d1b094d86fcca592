#!/usr/bin/env node
// The instrumented JDK on the bench workloads (issue 26): each workload run plain, with its
// application instrumented (sampling and exact), and with java.base instrumented too
// (`java @komorium-jdk.args`, sampling and exact), interleaved, CPU medians. Every run's output is
// compared byte for byte with the plain run's; accuracy is the sampled profile's overlap with the
// exact profile of the same setting. Writes bench-jdk.json and BENCHMARKS-jdk.md.
//   npm run build && node scripts/bench/jdk.mjs [--workloads jflex,rhino] [--reps 3] [--granularity N]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CACHE, REPO, WORKLOADS, driversDir, javaBin } from './workloads.mjs';
import { freshDir, geomean, log, parseOptions, runInterleaved, runProcess, saveJson } from './util.mjs';
import { compareOutcome, outcomeOf } from './outcome.mjs';
import { loadavg, machineInfo } from './machine.mjs';

const CLI = join(REPO, 'bin', 'komorium-ts.js');
// As `komorium-ts run` starts instrumented programs.
const KOMORIUM_JVM = ['-XX:-DontCompileHugeMethods'];

const HELP = `usage: node scripts/bench/jdk.mjs [--workloads ${WORKLOADS.map((w) => w.id).join(',')}] [--reps 3] [--granularity N]`;

function parse(argv) {
  return parseOptions(argv, HELP, { workloads: WORKLOADS.map((w) => w.id), reps: 3, granularity: undefined }, {
    values: {
      '--workloads': (o, v) => { o.workloads = v.split(','); },
      '--reps': (o, v) => { o.reps = Number(v); },
      '--granularity': (o, v) => { o.granularity = Number(v); },
    },
  });
}

/** `instrument-jdk` of the JDK that runs the workloads: the argument file, and what it cost. */
function instrumentJdk() {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [CLI, 'instrument-jdk'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`instrument-jdk exited ${r.status}: ${r.stderr}`);
  const argsFile = /run with: java @(\S+)/.exec(r.stdout)?.[1];
  if (!argsFile) throw new Error(`instrument-jdk printed no argument file:\n${r.stdout}`);
  return { argsFile, reused: /^reused /m.test(r.stdout), seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

/** Overlap of a sampled profile with the exact one (contexts and methods), and the JDK's share of the exact self bytecodes. */
async function accuracy(sampledPath, exactPath) {
  const { readProfile } = await import(join(REPO, 'dist', 'profile', 'index.js'));
  const { overlap, flatten } = await import(join(REPO, 'dist', 'profile', 'analysis.js'));
  const { isJdkClass } = await import(join(REPO, 'dist', 'report', 'jdk.js'));
  const s = readProfile(sampledPath);
  const e = readProfile(exactPath);
  const o = overlap(s, e);
  const jdkSelf = flatten(e).filter((f) => isJdkClass(f.method.className)).reduce((a, f) => a + f.self, 0);
  return { contexts: o.total, methods: o.methodOverlap, exactTotal: e.totalBytecodes, jdkShare: jdkSelf / Math.max(1, e.totalBytecodes) };
}

async function benchWorkload(wl, o, jdk) {
  const spec = wl.setup({});
  const dir = freshDir(join(CACHE, 'jdk', wl.id));
  const app = join(dir, 'app');
  const r = await runProcess(process.execPath, [CLI, 'instrument', ...spec.instrument, '-d', app, '-q', '--no-cache', ...(spec.lib.length ? ['--classpath', ...spec.lib] : [])]);
  if (r.code !== 0) throw new Error(`instrument ${wl.id}: ${r.stderr}`);
  const extra = spec.drivers ? [driversDir()] : [];
  const cp = (jars) => ['-cp', [...jars, ...spec.lib, ...extra].join(':')];
  const appJars = spec.instrument.map((j) => join(app, basename(j)));
  const g = o.granularity ? [`-Dkomorium.granularity=${o.granularity}`] : [];
  const prof = (name, agent) => ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(dir, `${name}.kprof`)}`, `-Dkomorium.agent=${agent}`, ...(agent === 'sampling' ? g : []), ...KOMORIUM_JVM];
  const configs = {
    plain: [...cp(spec.instrument)],
    'app sampling': [...prof('app-sampling', 'sampling'), ...cp(appJars)],
    'app exact': [...prof('app-exact', 'exact'), ...cp(appJars)],
    'jdk sampling': [`@${jdk.argsFile}`, ...prof('jdk-sampling', 'sampling'), ...cp(appJars)],
    'jdk exact': [`@${jdk.argsFile}`, ...prof('jdk-exact', 'exact'), ...cp(appJars)],
  };
  let ref;
  const problems = [];
  const { cpu, wall } = await runInterleaved(Object.keys(configs), o.reps, async (n, rep) => {
    const cwd = freshDir(join(dir, 'run'));
    const res = await runProcess(javaBin('java'), [...configs[n], spec.main, ...spec.args], { cwd, timeFile: join(dir, '.time') });
    const outcome = outcomeOf(res, cwd);
    if (n === 'plain' && ref === undefined) ref = outcome;
    else if (ref !== undefined) for (const p of compareOutcome(ref, outcome)) problems.push(`${n} rep ${rep + 1}: ${p}`);
    return res;
  }, `${wl.id} `);
  return {
    workload: wl.id,
    cpu,
    wall,
    problems,
    app: await accuracy(join(dir, 'app-sampling.kprof'), join(dir, 'app-exact.kprof')),
    jdk: await accuracy(join(dir, 'jdk-sampling.kprof'), join(dir, 'jdk-exact.kprof')),
  };
}

function markdown(results, jdk, o) {
  const x = (a, b) => `${(a / b).toFixed(2)}×`;
  const pct = (v) => `${(100 * v).toFixed(1)}%`;
  const out = [
    '# The instrumented JDK on the bench workloads (issue 26)',
    '',
    `\`node scripts/bench/jdk.mjs --reps ${o.reps}${o.granularity ? ` --granularity ${o.granularity}` : ''}\`: each workload plain, with the`,
    'application instrumented (`app`), and with java.base instrumented too (`jdk`: `java @komorium-jdk.args`),',
    'interleaved, medians of CPU time (user + system) over the plain run. Accuracy: the sampled profile\'s overlap',
    'with the exact profile of the same setting (calling contexts, methods). "JDK share": the part of the exact',
    'profile\'s bytecodes that java.base ran, which the application-only profile does not count.',
    `instrument-jdk: ${jdk.reused ? 'reused its cache' : `rewrote java.base in ${jdk.seconds.toFixed(1)} s`}.`,
    '',
    '| workload | output | app sampling | app exact | jdk sampling | jdk exact | app accuracy (ctx / methods) | jdk accuracy (ctx / methods) | exact bytecodes app → jdk | JDK share |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    const b = r.cpu.plain;
    out.push(`| ${r.workload} | ${r.problems.length === 0 ? 'identical' : `**${r.problems.length} differences**`} | ${x(r.cpu['app sampling'], b)} | ${x(r.cpu['app exact'], b)} | ${x(r.cpu['jdk sampling'], b)} | ${x(r.cpu['jdk exact'], b)} | ${pct(r.app.contexts)} / ${pct(r.app.methods)} | ${pct(r.jdk.contexts)} / ${pct(r.jdk.methods)} | ${(r.app.exactTotal / 1e6).toFixed(0)} M → ${(r.jdk.exactTotal / 1e6).toFixed(0)} M | ${pct(r.jdk.jdkShare)} |`);
  }
  const gm = (n) => geomean(results.map((r) => r.cpu[n] / r.cpu.plain)).toFixed(2);
  out.push(`| geomean | | ${gm('app sampling')}× | ${gm('app exact')}× | ${gm('jdk sampling')}× | ${gm('jdk exact')}× | | | | |`, '');
  for (const r of results) for (const p of r.problems) out.push(`- ${r.workload}: ${p}`);
  const m = machineInfo();
  out.push('', `Machine: ${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB; ${m.jdk}; commit ${m.commit}${m.dirty ? ' (dirty)' : ''}; load average at the end ${loadavg()}.`, '');
  return out.join('\n');
}

const o = parse(process.argv.slice(2));
const jdk = instrumentJdk();
log(`instrument-jdk: ${jdk.reused ? 'reused' : `${jdk.seconds.toFixed(1)} s`} -> ${jdk.argsFile}`);
const results = [];
for (const id of o.workloads) {
  const wl = WORKLOADS.find((w) => w.id === id);
  if (!wl) throw new Error(`no workload ${id}: ${WORKLOADS.map((w) => w.id).join(', ')}`);
  results.push(await benchWorkload(wl, o, jdk));
}
saveJson(join(REPO, 'bench-jdk.json'), { jdk, results });
writeFileSync(join(REPO, 'BENCHMARKS-jdk.md'), markdown(results, jdk, o));
log('wrote BENCHMARKS-jdk.md and bench-jdk.json');
