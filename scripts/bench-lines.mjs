#!/usr/bin/env node
// What line-level profiles cost at run time: ecj compiling java.util (a real workload, installed by
// scripts/install-deps.sh) uninstrumented, instrumented as usual, and instrumented with
// --call-lines, run interleaved with the order rotated (scripts/ab.mjs), medians printed with the
// load average before and after. `--base DIR` adds a jar instrumented by another komorium-ts
// checkout (built), e.g. one from before checks passed their line, to measure that change too.
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
const commands = [`plain=java -cp ${ECJ} ${main} ${ecjArgs}`];
for (const [name, jar] of Object.entries(jars)) commands.push(`${name}=java ${props} -cp ${jar} ${main} ${ecjArgs}`);

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`load average before: ${load()}`);
// ecj reports the errors of Java 16+ syntax it predates and exits 255, every run alike.
const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'ab.mjs'), '--reps', reps, '--exit', '255', ...commands], { stdio: 'inherit' });
console.log(`load average after: ${load()}`);
process.exit(r.status ?? 1);
