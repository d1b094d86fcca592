// What sampling more costs: the timed input of each workload, uninstrumented and sampled at several
// settings (interval f, hot-list memory), interleaved with the order rotated every repetition, CPU
// time (user + system of the JVM, /usr/bin/time) and wall time, medians; outputs compared with the
// uninstrumented run. The accuracy side of the same settings is scripts/bench/subpaths/seeds.mjs.
//
//   node scripts/bench/subpaths/rates.mjs --workloads jflex,xalan --reps 5 --settings 1000:4096,1000:4096:all,100:16384
// Writes .cache/bench/subpaths-rates.json and prints a table.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, WORKLOADS, driversDir } from '../workloads.mjs';
import { freshDir, log, median, parseOptions, rotate } from '../util.mjs';
import { loadavg } from '../machine.mjs';
import { compareOutcome } from '../outcome.mjs';
import { instrument, runner, snapshot } from '../subpaths.mjs';

const HELP = `usage: node scripts/bench/subpaths/rates.mjs [options]
  --workloads a,b   subset of: ${WORKLOADS.map((w) => w.id).join(', ')}
  --reps N          interleaved repetitions (default 5)
  --settings L      interval:memory[:lengths] settings (default 1000:4096,100:16384), e.g. 1000:4096:all`;

async function main() {
  const o = parseOptions(process.argv.slice(2), HELP, { workloads: null, reps: 5, settings: ['1000:4096', '100:16384'] }, {
    values: {
      '--workloads': (o, v) => (o.workloads = v.split(',')),
      '--reps': (o, v) => (o.reps = Number(v)),
      '--settings': (o, v) => (o.settings = v.split(',')),
    },
  });
  const out = join(CACHE, 'subpaths-rates.json');
  snapshot(out);
  const drivers = driversDir();
  const results = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
  for (const wl of WORKLOADS.filter((w) => !o.workloads || o.workloads.includes(w.id))) {
    const spec = wl.setup({ quick: false });
    const wdir = join(CACHE, 'work', `subpaths-rates-${wl.id}`);
    const jars = await instrument(spec, freshDir(join(wdir, 'jars')));
    const run = runner(spec, jars, wdir, drivers);
    const props = (s) => {
      const [f, m, lengths] = s.split(':');
      return [`-Dkomorium.subpaths.interval=${f}`, `-Dkomorium.subpaths.memory=${m}`, ...(lengths ? [`-Dkomorium.subpaths.lengths=${lengths}`] : [])];
    };
    const names = ['base', ...o.settings];
    const ref = (await run('base', 'ref')).outcome;
    const cpu = Object.fromEntries(names.map((n) => [n, []]));
    const wall = Object.fromEntries(names.map((n) => [n, []]));
    const loads = [];
    const differs = [];
    for (let rep = 0; rep < o.reps; rep++) {
      loads.push(loadavg());
      for (const n of rotate(names, rep)) {
        const { r, outcome } = n === 'base' ? await run('base', `r${rep}`) : await run('sample', `r${rep}`, spec, props(n));
        const d = compareOutcome(ref, outcome);
        if (d.length) differs.push(`${n} rep ${rep}: ${d.join('; ')}`);
        cpu[n].push(r.cpuMs);
        wall[n].push(r.wallMs);
      }
      log(`${wl.id} rep ${rep + 1}/${o.reps}: ${names.map((n) => `${n}=${(cpu[n][rep] / 1000).toFixed(2)}`).join(' ')} CPU s (load ${loads[rep]})`);
    }
    const ratio = (xs, n) => median(xs[n].map((x, i) => x / xs.base[i]));
    results[wl.id] = {
      reps: o.reps,
      loads,
      differs,
      rows: names.map((n) => ({ setting: n, cpuMs: median(cpu[n]), wallMs: median(wall[n]), cpuRatio: ratio(cpu, n), wallRatio: ratio(wall, n), cpu: cpu[n] })),
    };
    console.log(`\n${wl.id} (${o.reps} reps, load ${loads[0]} … ${loads[loads.length - 1]})${differs.length ? ` OUTPUT DIFFERS: ${differs.join('; ')}` : ', outputs identical'}`);
    for (const r of results[wl.id].rows) console.log(`${r.setting}: CPU ${(r.cpuMs / 1000).toFixed(2)} s (${r.cpuRatio.toFixed(2)}×), wall ${(r.wallMs / 1000).toFixed(2)} s (${r.wallRatio.toFixed(2)}×)`);
    writeFileSync(out, JSON.stringify(results, null, 1) + '\n');
  }
}

await main();
