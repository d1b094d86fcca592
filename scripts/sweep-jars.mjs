#!/usr/bin/env node
// Corpus sweep, for maintainers (too long for `npm test`): instruments every jar of a folder
// (default /usr/share/java, so whatever Debian Java packages are installed) with the built CLI, links
// the original and the instrumented jar in HotSpot with verification on (test/support/VerifyAll.java),
// and prints one line per jar. A jar is BAD when the instrumented one has more verify or linkage
// problems than the original, FAIL when `instrument` refused it; methods left as they were are listed.
// Exits 1 when a jar is BAD or FAIL.
//
//   npm run build && node scripts/sweep-jars.mjs [--dir /usr/share/java] [--instrument-args "--profile cbs"] [NAME-SUBSTRING...]
//
// --instrument-args: options added to every `instrument` (split at spaces), e.g. a profile kind.
// Every other jar of the folder is the classpath of both `instrument` and the verifier.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let dir = '/usr/share/java';
let instrumentArgs = [];
const filters = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--dir') dir = args[++i];
  else if (args[i] === '--instrument-args') instrumentArgs = (args[++i] ?? '').split(/\s+/).filter(Boolean);
  else filters.push(args[i]);
}
const cli = join(root, 'bin', 'komorium-ts.js');
if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('sweep-jars: run `npm run build` first');
  process.exit(2);
}

// The verifier, compiled for Java 8 into .cache once.
const harness = join(root, '.cache', 'sweep-harness');
if (!existsSync(join(harness, 'VerifyAll.class'))) {
  mkdirSync(harness, { recursive: true });
  execFileSync('javac', ['--release', '8', '-Xlint:-options', '-d', harness, join(root, 'test', 'support', 'VerifyAll.java')], { stdio: 'inherit' });
}

// Symbolic links (guava.jar -> guava-31.1-jre.jar) would sweep a jar twice.
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.jar'))
  .map((f) => join(dir, f))
  .filter((p) => !lstatSync(p).isSymbolicLink());
const jars = all.filter((p) => filters.length === 0 || filters.some((f) => p.slice(dir.length + 1).includes(f))).sort((a, b) => statSync(a).size - statSync(b).size);

function verify(jar, cp) {
  const r = spawnSync(
    'java',
    ['-XX:+UnlockDiagnosticVMOptions', '-XX:+BytecodeVerificationRemote', '-Xss8m', '-Xmx2g', '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true', '-cp', harness, 'VerifyAll', jar, cp],
    { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 900_000 },
  );
  const lines = (r.stdout ?? '').split('\n');
  const summary = lines.find((l) => l.startsWith('classes='));
  if (!summary) throw new Error(`VerifyAll on ${jar} gave no summary (exit ${r.status}):\n${(r.stderr ?? '').slice(-2000)}`);
  // Module and loader hashes (`unnamed module @0x4e4aea35`) differ from one JVM to the next.
  return { summary, problems: lines.filter((l) => /^(VERIFY|OTHER) /.test(l)).map((l) => l.replace(/@(0x)?[0-9a-f]{6,}\b/g, '@…')) };
}

const work = mkdtempSync(join(tmpdir(), 'komorium-sweep-'));
let bad = 0;
let verifyErrors = 0;
try {
  for (const jar of jars) {
    const name = jar.slice(dir.length + 1);
    const cp = all.filter((p) => p !== jar);
    const out = join(work, 'out.jar');
    const report = join(work, 'report.json');
    rmSync(out, { force: true });
    const t0 = Date.now();
    const r = spawnSync('node', [cli, 'instrument', jar, '-o', out, '-q', ...instrumentArgs, '--report-json', report, '--classpath', ...cp], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const ms = Date.now() - t0;
    if (r.status !== 0) {
      bad++;
      console.log(`FAIL ${name}: instrument exited ${r.status}: ${(r.stderr ?? '').trim().split('\n')[0]}`);
      continue;
    }
    const summary = JSON.parse(readFileSync(report, 'utf8'));
    const before = verify(jar, cp.join(':'));
    const after = verify(out, cp.join(':'));
    const added = after.problems.filter((p) => !before.problems.includes(p));
    if (added.length > 0) bad++;
    verifyErrors += added.filter((p) => p.startsWith('VERIFY ')).length;
    console.log(`${added.length > 0 ? 'BAD ' : 'ok  '} ${name}: ${summary.totals.methods} methods, ${summary.leftAsIs.length} left, ${ms} ms; original ${before.summary}; instrumented ${after.summary}`);
    for (const p of added.slice(0, 5)) console.log(`     ${p.slice(0, 400)}`);
    for (const l of summary.leftAsIs.slice(0, 5)) console.log(`     left: ${l.className}.${l.method}: ${l.reason}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`${jars.length} jars${instrumentArgs.length ? ` instrumented with ${instrumentArgs.join(' ')}` : ''}, ${bad} BAD or FAIL, ${verifyErrors} new VerifyErrors`);
process.exit(bad > 0 ? 1 : 0);
