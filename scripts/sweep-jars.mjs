#!/usr/bin/env node
// Corpus sweep, for maintainers (too long for `npm test`): instruments every jar of a folder
// (default /usr/share/java, so whatever Debian Java packages are installed) with the built CLI, links
// the original and the instrumented jar in HotSpot with verification on (test/support/VerifyAll.java),
// and prints one line per jar. A jar is BAD when the instrumented one has more verify or linkage
// problems than the original, FAIL when `instrument` refused it; methods left as they were are listed.
// Exits 1 when a jar is BAD or FAIL.
//
//   npm run build && node scripts/sweep-jars.mjs [--dir /usr/share/java] [--config 'LABEL=ARGS']... [--instrument-args ARGS] [--resume LOG] [NAME-SUBSTRING...]
//
// Every other jar of the folder is the classpath of both `instrument` and the verifier. Each
// --config instruments every jar once more with those `instrument` arguments (e.g.
// --config 'full-dup=--profile call-edges,field-access --layout full-dup'); the original is linked once
// per jar. Without --config, the default (Komorium) instrumentation. --instrument-args ARGS is one
// --config labelled by its arguments (e.g. --instrument-args '--profile cbs'). --resume LOG skips
// the jars that an earlier sweep's output LOG already reports (ok, BAD or FAIL) for every configuration:
// a sweep of every jar takes longer than a sitting, smallest jars first.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let dir = '/usr/share/java';
const filters = [];
const configs = [];
let resumeLog = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--dir') dir = args[++i];
  else if (args[i] === '--resume') resumeLog = args[++i];
  else if (args[i] === '--instrument-args') {
    const a = args[++i] ?? '';
    configs.push({ label: a, args: a.split(/\s+/).filter(Boolean) });
  } else if (args[i] === '--config') {
    const c = args[++i];
    const eq = c.indexOf('=');
    configs.push({ label: eq < 0 ? c : c.slice(0, eq), args: (eq < 0 ? '' : c.slice(eq + 1)).split(/\s+/).filter(Boolean) });
  } else filters.push(args[i]);
}
if (configs.length === 0) configs.push({ label: 'komorium', args: [] });
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
const reported = new Set();
if (resumeLog) {
  for (const m of readFileSync(resumeLog, 'utf8').matchAll(/^(?:ok  |BAD |FAIL) (?:\[([^\]]*)\] )?([^:\s]+):/gm)) reported.add(`${m[1] ?? ''}\t${m[2]}`);
}
const done = (name) => configs.every((c) => reported.has(`${configs.length > 1 ? c.label : ''}\t${name}`));
const jars = all
  .filter((p) => filters.length === 0 || filters.some((f) => p.slice(dir.length + 1).includes(f)))
  .filter((p) => !done(p.slice(dir.length + 1)))
  .sort((a, b) => statSync(a).size - statSync(b).size);
if (resumeLog) console.log(`--resume ${resumeLog}: ${all.length - jars.length} jars already reported, ${jars.length} to go`);

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
    let before = null;
    for (const config of configs) {
      const tag = configs.length > 1 ? `[${config.label}] ` : '';
      const out = join(work, 'out.jar');
      const report = join(work, 'report.json');
      rmSync(out, { force: true });
      const t0 = Date.now();
      const r = spawnSync('node', [cli, 'instrument', jar, '-o', out, '-q', '--no-cache', '--report-json', report, ...config.args, '--classpath', ...cp], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      const ms = Date.now() - t0;
      if (r.status !== 0) {
        bad++;
        console.log(`FAIL ${tag}${name}: instrument exited ${r.status}: ${(r.stderr ?? '').trim().split('\n')[0]}`);
        continue;
      }
      const summary = JSON.parse(readFileSync(report, 'utf8'));
      before ??= verify(jar, cp.join(':'));
      const after = verify(out, cp.join(':'));
      const added = after.problems.filter((p) => !before.problems.includes(p));
      if (added.length > 0) bad++;
      verifyErrors += added.filter((p) => p.startsWith('VERIFY ')).length;
      console.log(`${added.length > 0 ? 'BAD ' : 'ok  '} ${tag}${name}: ${summary.totals.methods} methods, ${summary.leftAsIs.length} left, ${ms} ms; original ${before.summary}; instrumented ${after.summary}`);
      for (const p of added.slice(0, 5)) console.log(`     ${p.slice(0, 400)}`);
      for (const l of summary.leftAsIs.slice(0, 5)) console.log(`     left: ${l.className}.${l.method}: ${l.reason}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`${jars.length} jars × ${configs.length} configurations (${configs.map((c) => c.label).join('; ')}), ${bad} BAD or FAIL, ${verifyErrors} new VerifyErrors`);
process.exit(bad > 0 ? 1 : 0);
