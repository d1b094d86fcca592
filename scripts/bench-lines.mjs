#!/usr/bin/env node
// What line-level profiles cost at run time: JFlex generating the lexer of its java.flex example 40
// times (Debian's jflex, compiled with line numbers; installed by scripts/install-deps.sh),
// uninstrumented, instrumented as usual (call lines on), and instrumented with --no-call-lines, run interleaved with the order rotated, medians of wall time and of CPU time (user
// + system, which a shared machine's load disturbs less) printed with the load average before and
// after. `--base DIR` adds a jar instrumented by another komorium-ts checkout (built), e.g. one
// from before checks passed their line, to measure that change too.
//
//   npm run build && node scripts/bench-lines.mjs [--reps 7] [--agent sampling] [--base /tmp/old-komorium]
//
// (ecj, the other long workload installed here, is compiled without line numbers: its checks pass
// no line, so it cannot show what lines cost.)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = join(REPO, '.cache', 'bench-lines');
const J = '/usr/share/java';
const JFLEX = `${J}/jflex.jar`;
const LIB = [`${J}/cup.jar`, `${J}/cup_runtime.jar`];
const FLEX = '/usr/share/doc/jflex/examples/java/java.flex';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const reps = opt('--reps', '7');
const agent = opt('--agent', 'sampling');
const base = opt('--base', undefined);

for (const f of [JFLEX, ...LIB, FLEX]) if (!existsSync(f)) throw new Error(`missing ${f} (Debian packages jflex, cup): run \`bash scripts/install-deps.sh\``);
mkdirSync(WORK, { recursive: true });

function instrument(cli, out, extra = []) {
  if (!existsSync(out)) {
    execFileSync(process.execPath, [join(cli, 'bin', 'komorium-ts.js'), 'instrument', JFLEX, '-o', out, '-q', '--classpath', LIB.join(':'), ...extra], { stdio: 'inherit' });
  }
  return out;
}

const jars = { default: instrument(REPO, join(WORK, 'jflex-default.jar')), 'no-call-lines': instrument(REPO, join(WORK, 'jflex-no-call-lines.jar'), ['--no-call-lines']) };
if (base) jars.base = instrument(base, join(WORK, 'jflex-base.jar'));
const jflexArgs = `--nobak -q -d out ${Array(40).fill(FLEX).join(' ')}`;
const main = 'jflex.Main';
const props = `-Dkomorium.agent=${agent} -Dkomorium.quiet -Dkomorium.out=${join(WORK, 'bench.kprof')} -XX:-DontCompileHugeMethods`;
const configs = [{ name: 'plain', cmd: `java -cp ${[JFLEX, ...LIB].join(':')} ${main} ${jflexArgs}` }];
for (const [name, jar] of Object.entries(jars)) configs.push({ name, cmd: `java ${props} -cp ${[jar, ...LIB].join(':')} ${main} ${jflexArgs}` });

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`load average before: ${load()}`);
for (let r = 0; r < Number(reps); r++) {
  for (let k = 0; k < configs.length; k++) {
    const c = configs[(k + r) % configs.length];
    // bash's `time` of the subshell: wall, user and system seconds of the JVM and its threads.
    const res = spawnSync('bash', ['-c', `TIMEFORMAT='%R %U %S'; time (${c.cmd} >/dev/null 2>&1)`], { cwd: WORK, encoding: 'utf8' });
    const [wall, user, sys] = res.stderr.trim().split('\n').pop().split(' ').map(Number);
    if (res.status !== 0 || !(wall > 0)) throw new Error(`${c.name}: exit ${res.status}, ${res.stderr}`);
    (c.wall ??= []).push(wall);
    (c.cpu ??= []).push(user + sys);
    console.log(`rep ${r + 1}/${reps} ${c.name} wall ${wall.toFixed(2)} s, cpu ${(user + sys).toFixed(2)} s`);
  }
}
console.log(`load average after: ${load()}`);
const first = configs[0];
for (const c of configs) {
  console.log(
    `${c.name.padEnd(11)} wall median ${median(c.wall).toFixed(2)} s (${(median(c.wall) / median(first.wall)).toFixed(3)}x)  ` +
      `cpu median ${median(c.cpu).toFixed(2)} s (${(median(c.cpu) / median(first.cpu)).toFixed(3)}x)  cpu: ${c.cpu.map((t) => t.toFixed(1)).join(' ')}`,
  );
}
