#!/usr/bin/env node
// A/B of instrumentation variants on one bench workload: each variant is an `instrument` with its
// own options and environment (the KOMORIUM_* experiment switches), run interleaved with the
// uninstrumented program; medians of CPU (user + system) and wall time. For decisions between
// designs, not for BENCHMARKS tables (scripts/ab.mjs times arbitrary commands the same way).
//   node scripts/bench/variants.mjs --workload rhino --reps 5 \
//     --variant 'new:--profile call-edges,field-access --layout full-dup -Dkomorium.interval=1000' \
//     --variant 'old:KOMORIUM_TWIN=stay --profile call-edges,field-access --layout full-dup -Dkomorium.interval=1000'
// (KEY=value goes to instrument's environment, -D… to the run, the rest to instrument.)
import { basename, join } from 'node:path';
import { CACHE, WORKLOADS, driversDir, javaBin } from './workloads.mjs';
import { freshDir, runInterleaved, runProcess } from './util.mjs';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'komorium-ts.js');

function parse(argv) {
  const o = { workload: 'rhino', reps: 5, runArgs: [], variants: [] };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[++i];
    if (argv[i - 1] === '--workload') o.workload = v;
    else if (argv[i - 1] === '--reps') o.reps = Number(v);
    else if (argv[i - 1] === '--run-args') o.runArgs = v.split(/\s+/).filter(Boolean);
    else if (argv[i - 1] === '--variant') {
      const [name, rest] = [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];
      const words = rest.split(/\s+/).filter(Boolean);
      const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split('=')));
      // KEY=value: environment of `instrument`; -D…: options of the run; the rest: options of `instrument`.
      const run = words.filter((w) => w.startsWith('-D'));
      o.variants.push({ name, env, run, args: words.filter((w) => !/^[A-Z_]+=/.test(w) && !w.startsWith('-D')) });
    } else throw new Error(`unknown option ${argv[i - 1]}`);
  }
  return o;
}

const o = parse(process.argv.slice(2));
const wl = WORKLOADS.find((w) => w.id === o.workload) ?? (() => { throw new Error(`no workload ${o.workload}`); })();
const spec = wl.setup({});
const dir = freshDir(join(CACHE, 'variants', wl.id));
const extra = spec.drivers ? [driversDir()] : [];
const jars = { base: spec.instrument };
const runOf = { base: [] };
for (const v of o.variants) {
  const out = join(dir, v.name);
  const r = await runProcess(process.execPath, [CLI, 'instrument', ...spec.instrument, '-d', out, '-q', ...v.args, ...(spec.lib.length ? ['--classpath', ...spec.lib] : [])], { env: { ...process.env, ...v.env } });
  if (r.code !== 0) throw new Error(`instrument ${v.name}: ${r.stderr}`);
  runOf[v.name] = v.run;
  jars[v.name] = spec.instrument.map((j) => join(out, basename(j)));
}
const names = Object.keys(jars);
const { cpu: cpus, wall: walls } = await runInterleaved(names, o.reps, async (n) => {
  const cwd = freshDir(join(dir, 'run'));
  const props = n === 'base' ? [] : ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(dir, 'p.kprof')}`, ...o.runArgs, ...runOf[n]];
  const r = await runProcess(javaBin('java'), [...props, '-cp', [...jars[n], ...spec.lib, ...extra].join(':'), spec.main, ...spec.args], { cwd, timeFile: join(dir, '.time') });
  if (r.code !== 0) throw new Error(`${n} exited ${r.code}: ${`${r.stderr}`.slice(-400)}`);
  return r;
});
const base = { cpu: cpus.base, wall: walls.base };
for (const n of names) {
  const cpu = cpus[n];
  const wall = walls[n];
  console.log(`${wl.id} ${n.padEnd(12)} cpu ${(cpu / 1000).toFixed(2)} s ${(cpu / base.cpu).toFixed(3)}x   wall ${(wall / 1000).toFixed(2)} s ${(wall / base.wall).toFixed(3)}x`);
}
