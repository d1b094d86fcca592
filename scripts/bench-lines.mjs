#!/usr/bin/env node
// What line-level profiles cost at run time: ecj compiling java.util (a real workload, installed by
// scripts/install-deps.sh) uninstrumented, instrumented as usual, and instrumented with
// --call-lines, run interleaved with the order rotated, medians of wall time and of CPU time (user
// + system, which a shared machine's load disturbs less) printed with the load average before and
// after. `--base DIR` adds a jar instrumented by another komorium-ts checkout (built), e.g. one
// from before checks passed their line, to measure that change too.
//
//   npm run build && node scripts/bench-lines.mjs [--reps 7] [--agent sampling] [--base /tmp/old-komorium]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = join(REPO, '.cache', 'bench-lines');
const ECJ = '/usr/share/java/ecj.jar';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const reps = opt('--reps', '7');
const agent = opt('--agent', 'sampling');
const base = opt('--base', undefined);

if (!existsSync(ECJ)) throw new Error(`missing ${ECJ} (Debian package libecj-java): run \`bash scripts/install-deps.sh\``);
mkdirSync(WORK, { recursive: true });

/** java.util's top-level sources from the JDK's src.zip, extracted once. */
function sources() {
  const javaHome = dirname(dirname(execFileSync('sh', ['-c', 'readlink -f "$(command -v javac)"'], { encoding: 'utf8' }).trim()));
  const dir = join(WORK, 'jdk-src');
  const util = join(dir, 'java.base', 'java', 'util');
  if (!existsSync(join(util, 'HashMap.java'))) {
    execFileSync('unzip', ['-q', '-o', join(javaHome, 'lib', 'src.zip'), 'java.base/java/util/*.java', '-x', 'java.base/java/util/*/*', '-d', dir]);
  }
  return readdirSync(util).filter((f) => f.endsWith('.java')).sort().map((f) => join(util, f));
}

function instrument(cli, out, extra = []) {
  if (!existsSync(out)) execFileSync(process.execPath, [join(cli, 'bin', 'komorium-ts.js'), 'instrument', ECJ, '-o', out, '-q', ...extra], { stdio: 'inherit' });
  return out;
}

const jars = { default: instrument(REPO, join(WORK, 'ecj-default.jar')), 'call-lines': instrument(REPO, join(WORK, 'ecj-call-lines.jar'), ['--call-lines']) };
if (base) jars.base = instrument(base, join(WORK, 'ecj-base.jar'));
const ecjArgs = ['-8', '-proc:none', '-d', 'none', '-nowarn', ...sources()].join(' ');
const main = 'org.eclipse.jdt.internal.compiler.batch.Main';
const props = `-Dkomorium.agent=${agent} -Dkomorium.quiet -Dkomorium.out=/dev/null -XX:-DontCompileHugeMethods`;
const configs = [{ name: 'plain', cmd: `java -cp ${ECJ} ${main} ${ecjArgs}` }];
for (const [name, jar] of Object.entries(jars)) configs.push({ name, cmd: `java ${props} -cp ${jar} ${main} ${ecjArgs}` });

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
    // ecj reports the errors of the Java 16+ syntax it predates and exits 255, every run alike.
    if (res.status !== 255 || !(wall > 0)) throw new Error(`${c.name}: exit ${res.status}, ${res.stderr}`);
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
