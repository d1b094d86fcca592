// What the overhead of the subpaths kind is made of (`bench --subpaths`, part "breakdown"): the same
// instrumented jars run with the real runtime in its three modes and with two stand-in Subpaths
// classes put first on the class path: a handler that does nothing (the probes alone: bytecode size,
// calls before the JIT inlines them) and a global static counter with no thread check (the cheapest
// skip logic). Wall and CPU time (user + system, which load from other jobs inflates less), A/B
// interleaved, median.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { REPO, javaBin } from '../workloads.mjs';
import { freshDir, log, median, rotate, sh, TIME_BIN } from '../util.mjs';
import { loadavg } from '../machine.mjs';

const VARIANTS = join(REPO, 'scripts', 'bench', 'subpaths', 'variants');

function timed(cmd, args, cwd, timeFile) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(TIME_BIN, ['-f', '%U %S', '-o', timeFile, cmd, ...args], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const [u, s] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      rmSync(timeFile, { force: true });
      resolve({ code, wallMs, cpuMs: (u + s) * 1000 });
    });
  });
}

export async function breakdown(spec, jars, wdir, reps, drivers) {
  const classes = join(wdir, 'variants');
  for (const v of ['empty', 'global']) {
    freshDir(join(classes, v));
    sh(javaBin('javac'), ['--release', '8', '-Xlint:-options', '-d', join(classes, v), join(VARIANTS, v, 'komorium', 'runtime', 'Subpaths.java')]);
  }
  const extra = spec.drivers ? [drivers] : [];
  const inst = [...jars.map((j) => j.jar), ...spec.lib, ...extra];
  const configs = {
    base: { cp: [...spec.instrument, ...spec.lib, ...extra], props: [] },
    empty: { cp: [join(classes, 'empty'), ...inst], props: [] },
    global: { cp: [join(classes, 'global'), ...inst], props: [] },
    skip: { cp: inst, props: ['-Dkomorium.subpaths.mode=skip'] },
    sample: { cp: inst, props: [] },
  };
  const out = Object.fromEntries(Object.keys(configs).map((k) => [k, { wallMs: [], cpuMs: [] }]));
  const loads = [];
  for (let rep = 0; rep < reps; rep++) {
    loads.push(loadavg());
    for (const name of rotate(Object.keys(configs), rep)) {
      const c = configs[name];
      const cwd = freshDir(join(wdir, 'run'));
      const props = name === 'base' ? [] : ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(wdir, 'b.kprof')}`, ...c.props];
      const r = await timed(javaBin('java'), [...props, '-cp', c.cp.join(':'), spec.main, ...spec.args], cwd, join(wdir, '.btime'));
      out[name].wallMs.push(r.wallMs);
      out[name].cpuMs.push(r.cpuMs);
    }
    log(`breakdown rep ${rep + 1}/${reps}: ${Object.keys(configs).map((k) => `${k}=${(out[k].cpuMs[rep] / 1000).toFixed(2)}`).join(' ')} CPU s`);
  }
  const ratio = (k, f) => median(out[k][f].map((x, i) => x / out.base[f][i]));
  return {
    loads,
    rows: Object.keys(configs).map((k) => ({ config: k, wallMs: median(out[k].wallMs), cpuMs: median(out[k].cpuMs), wallRatio: ratio(k, 'wallMs'), cpuRatio: ratio(k, 'cpuMs') })),
  };
}
