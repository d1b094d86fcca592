#!/usr/bin/env node
// A/B timing for the "Optimizations tried" table of BENCHMARKS.md: runs shell commands
// interleaved, the order rotated every repetition (this machine is shared and noisy), and prints
// each one's median wall time and its ratio to the first command's median, and beside it the
// median CPU time (user + system of the command and its children, from /usr/bin/time) and its
// ratio: on a machine shared with other jobs, CPU time is the steadier of the two. Last, the median
// peak resident memory (`/usr/bin/time`'s %M, the largest process of the command).
//
//   node scripts/ab.mjs --reps 5 \
//     base='java -cp /usr/share/java/sunflow.jar:.cache/bench/drivers SunflowRender scene.sc out.png' \
//     none='java -Dkomorium.agent=none -cp sunflow-komorium.jar:.cache/bench/drivers SunflowRender scene.sc out.png'
//
// Each command runs through `sh -c` in a fresh temporary directory; its output is discarded, and an
// exit status other than the expected one (`--exit N`, default 0: ecj exits 255 when it reports errors)
// stops the comparison, since a run that failed is not a time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
let reps = 5;
let expectedExit = 0;
const configs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--reps') reps = Number(args[++i]);
  else if (args[i] === '--exit') expectedExit = Number(args[++i]);
  else {
    const eq = args[i].indexOf('=');
    if (eq <= 0) throw new Error(`expected NAME=COMMAND, got ${args[i]}`);
    configs.push({ name: args[i].slice(0, eq), cmd: args[i].slice(eq + 1), times: [], cpu: [], rss: [] });
  }
}
if (configs.length === 0 || !(reps >= 1) || !Number.isInteger(expectedExit)) {
  console.error('usage: node scripts/ab.mjs [--reps N] [--exit STATUS] NAME=COMMAND...');
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (let r = 0; r < reps; r++) {
  for (let k = 0; k < configs.length; k++) {
    const c = configs[(k + r) % configs.length];
    const dir = mkdtempSync(join(tmpdir(), 'komorium-ab-'));
    const start = process.hrtime.bigint();
    const res = spawnSync('/usr/bin/time', ['-f', 'AB-CPU %U %S %M', 'sh', '-c', c.cmd], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const cpu = /AB-CPU (\S+) (\S+) (\S+)\s*$/.exec(res.stderr ?? '');
    rmSync(dir, { recursive: true, force: true });
    if (res.status !== expectedExit) {
      console.error(`${c.name} exited with ${res.status ?? res.signal}, not ${expectedExit}:\n${res.stderr}`);
      process.exit(1);
    }
    c.times.push(seconds);
    c.cpu.push(cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN);
    c.rss.push(cpu ? Number(cpu[3]) / 1024 : NaN);
    console.error(`rep ${r + 1}/${reps} ${c.name} ${seconds.toFixed(2)} s (cpu ${c.cpu.at(-1).toFixed(2)} s, peak ${c.rss.at(-1).toFixed(0)} MiB)`);
  }
}
const first = median(configs[0].times);
const firstCpu = median(configs[0].cpu);
for (const c of configs) {
  const m = median(c.times);
  const cpu = median(c.cpu);
  console.log(
    `${c.name.padEnd(12)} median ${m.toFixed(2)} s of ${c.times.length}  ${(m / first).toFixed(3)}×  (${c.times.map((t) => t.toFixed(2)).join(' ')})` +
      `  cpu ${cpu.toFixed(2)} s ${(cpu / firstCpu).toFixed(3)}× (${c.cpu.map((t) => t.toFixed(2)).join(' ')})` +
      `  peak ${median(c.rss).toFixed(0)} MiB`,
  );
}
