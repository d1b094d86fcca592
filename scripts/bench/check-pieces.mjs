#!/usr/bin/env node
// What a check that never fires costs, piece by piece (issues 19 and 21; BENCHMARKS-hps.md and
// BENCHMARKS-framework.md, "… piece by piece"). Builds the bench workloads' jars with the real
// checks, with the checks made constants padded to the same size (KOMORIUM_CHECK_FORM=never-padded)
// and bare (never), and, for hot-methods, with burst-flag and burst-indy; then times them against
// the uninstrumented run with scripts/ab.mjs (interleaved, rotated, medians; CPU time beside wall),
// one workload at a time. Prints ab.mjs's lines; the pages' tables are copied from them.
//
//   node scripts/bench/check-pieces.mjs [--workloads jflex,ecj] [--reps 5] [--kinds hps,framework]
import { basename, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CACHE, REPO, WORKLOADS, driversDir } from './workloads.mjs';
import { freshDir, log, parseOptions } from './util.mjs';

const NEVER = 2147483647;
const HPS_NEVER = [`-Dkomorium.burst.sparsity=${NEVER}`, '-Dkomorium.burst.length=1'];
const TIMER_NEVER = [...HPS_NEVER, `-Dkomorium.burst.period=${NEVER}`, '-Dkomorium.burst.awake=1'];
const FW_NEVER = [`-Dkomorium.interval=${NEVER}`];
const HPS = ['--profile', 'hot-methods'];
const FW = ['--profile', 'call-edges,field-access', '--layout', 'full-dup'];

/** Each build: its instrument arguments, the switch it is built under, and the properties of its runs. */
const BUILDS = {
  hps: [
    { id: 'hreal', args: [...HPS, '--trigger', 'burst-counter'], props: HPS_NEVER },
    { id: 'hpad', args: [...HPS, '--trigger', 'burst-counter'], form: 'never-padded', props: HPS_NEVER },
    { id: 'hnever', args: [...HPS, '--trigger', 'burst-counter'], form: 'never', props: HPS_NEVER },
    { id: 'hflag', args: [...HPS, '--trigger', 'burst-flag'], props: TIMER_NEVER },
    { id: 'hindy', args: [...HPS, '--trigger', 'burst-indy'], props: TIMER_NEVER },
  ],
  framework: [
    { id: 'freal', args: FW, props: FW_NEVER },
    { id: 'fpad', args: FW, form: 'never-padded', props: FW_NEVER },
    { id: 'fnever', args: FW, form: 'never', props: FW_NEVER },
  ],
};

const HELP = `usage: node scripts/bench/check-pieces.mjs [--workloads a,b] [--reps N] [--kinds hps,framework]
  (run npm run build first: the jars are built by this checkout's bin/komorium-ts.js)`;

const opts = parseOptions(process.argv.slice(2), HELP, { workloads: null, reps: 5, kinds: ['hps', 'framework'] }, {
  values: {
    '--workloads': (o, v) => (o.workloads = v.split(',')),
    '--reps': (o, v) => (o.reps = Number(v)),
    '--kinds': (o, v) => (o.kinds = v.split(',')),
  },
});
for (const k of opts.kinds) if (!BUILDS[k]) throw new Error(`--kinds: ${k} is not one of ${Object.keys(BUILDS).join(', ')}`);
const builds = opts.kinds.flatMap((k) => BUILDS[k]);
const root = join(CACHE, 'check-pieces');
const shq = (s) => `'${s.replaceAll("'", "'\\''")}'`;

for (const wl of WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w.id))) {
  const spec = wl.setup({ quick: false });
  const extra = spec.drivers ? [driversDir()] : [];
  const jarsOf = {};
  for (const b of builds) {
    const out = freshDir(join(root, b.id, wl.id));
    const env = { ...process.env };
    if (b.form) env.KOMORIUM_CHECK_FORM = b.form;
    else delete env.KOMORIUM_CHECK_FORM;
    const r = spawnSync(process.execPath, [join(REPO, 'bin', 'komorium-ts.js'), 'instrument', ...spec.instrument, '-d', out, '-q', '--no-cache', ...b.args, ...(spec.lib.length ? ['--classpath', ...spec.lib] : [])], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${wl.id} ${b.id}: instrument exited ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    jarsOf[b.id] = spec.instrument.map((j) => join(out, basename(j)));
  }
  const command = (jars, props) =>
    ['java', ...props, '-Dkomorium.quiet=true', '-Dkomorium.out=p.kprof', '-cp', [...jars, ...spec.lib, ...extra].join(':'), spec.main, ...spec.args].map(shq).join(' ');
  const configs = [`base=${command(spec.instrument, [])}`, ...builds.map((b) => `${b.id}=${command(jarsOf[b.id], b.props)}`)];
  log(`${wl.id}: ${builds.length} builds, ${opts.reps} interleaved rounds`);
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'ab.mjs'), '--reps', String(opts.reps), ...(wl.id === 'ecj' ? ['--exit', '255'] : []), ...configs], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${wl.id}: scripts/ab.mjs exited ${r.status}`);
}
