#!/usr/bin/env node
// How much per-test measurements vary from run to run: the JUnit 5 tests of test/fixtures/junit5,
// run N times each way, one fresh JVM per run, interleaved:
//   - uninstrumented, with the JUnit console launcher's XML report: each test's wall time;
//   - on the instrumented jar with -Dkomorium.tests: each test's exact bytecode count.
// Per test it prints the spread, (max - min) / median, of both, and the load average before and
// after (this machine is shared). README.md quotes the result.
//
//   npm run build && node scripts/test-spread.mjs [--runs 10]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';
const FIXTURE = join(REPO, 'test', 'fixtures', 'junit5');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 10;

const work = mkdtempSync(join(tmpdir(), 'komorium-spread-'));
const javaFiles = (d) => readdirSync(d, { recursive: true }).filter((f) => f.endsWith('.java')).map((f) => join(d, f));
execFileSync('javac', ['--release', '8', '-d', join(work, 'app'), ...javaFiles(join(FIXTURE, 'app'))]);
execFileSync('javac', ['--release', '8', '-cp', `${CONSOLE}:${join(work, 'app')}`, '-d', join(work, 'tests'), ...javaFiles(join(FIXTURE, 'tests'))]);
execFileSync('jar', ['cf', join(work, 'app.jar'), '-C', join(work, 'app'), '.']);
execFileSync(process.execPath, [join(REPO, 'bin', 'komorium-ts.js'), 'instrument', join(work, 'app.jar'), '-o', join(work, 'app-komorium.jar'), '-q']);

function launch(jar, props, reports) {
  const args = [...props, '-cp', `${CONSOLE}:${jar}:${join(work, 'tests')}`, 'org.junit.platform.console.ConsoleLauncher', '--disable-banner', '--details=none',
    '--select-package', 'com.example.calc', ...(reports ? ['--reports-dir', reports] : [])];
  const r = spawnSync('java', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the tests failed:\n${r.stdout}${r.stderr}`);
}

/** Test name → seconds, from the launcher's legacy XML report (testcase name and classname). */
function wallTimes(dir) {
  const out = new Map();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.xml'))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/<testcase name="([^"]*)" classname="([^"]*)" time="([\d.]+)"/g)) {
      out.set(`${m[2]}.${m[1].replace(/&amp;/g, '&')}`, Number(m[3]));
    }
  }
  return out;
}

/** Test name → bytecodes, from the per-test profiles' headers. */
function counts(dir) {
  const out = new Map();
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), 'utf8');
    out.set(/^header\ttest\t(.*)$/m.exec(text)[1], Number(/^totalBytecodes\t(\d+)$/m.exec(text)[1]));
  }
  return out;
}

const add = (all, run) => {
  for (const [k, v] of run) all.set(k, [...(all.get(k) ?? []), v]);
};
const times = new Map();
const bytecodes = new Map();
console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (let i = 0; i < RUNS; i++) {
  const reports = join(work, `xml-${i}`);
  const tests = join(work, `tests-${i}`);
  mkdirSync(reports);
  launch(join(work, 'app.jar'), [], reports);
  launch(join(work, 'app-komorium.jar'), [`-Dkomorium.tests=${tests}`], null);
  add(times, wallTimes(reports));
  add(bytecodes, counts(tests));
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => (Math.max(...xs) - Math.min(...xs)) / median(xs);
const pct = (xs) => (median(xs) === 0 ? 'under 1 ms' : `${(100 * spread(xs)).toFixed(0)}%`);
console.log(`\n${RUNS} runs, one JVM each, uninstrumented wall time (JUnit XML, ms resolution) vs exact bytecodes:\n`);
console.log(['test', 'wall median ms', 'wall min–max ms', 'wall spread', 'bytecodes', 'bytecode spread'].join(' | '));
for (const name of [...bytecodes.keys()].sort()) {
  // JUnit's XML names a parameterized invocation "knowsLargePrimes(int)[1]" as komorium-ts does.
  const t = times.get(name) ?? [];
  const b = bytecodes.get(name);
  const ms = t.map((s) => s * 1000);
  console.log([name, median(ms).toFixed(0), `${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}`, pct(ms),
    b.length === RUNS && new Set(b).size === 1 ? `${b[0]} (all ${RUNS} runs)` : b.join(','), `${(100 * spread(b)).toFixed(2)}%`].join(' | '));
}
rmSync(work, { recursive: true, force: true });
