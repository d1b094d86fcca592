/**
 * Per-test bytecode counts (iai-callgrind for the JVM): JUnit 5 tests from Debian's junit5 run by
 * the JUnit Platform console launcher on an instrumented jar; the runtime's listener, found
 * through META-INF/services, writes one exact profile per test; two runs give the same counts and
 * the same profiles; `baseline save` and `baseline compare` catch the test that grew, name the
 * method that grew most, and exit 1.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { javac, jarDir, javaPath, repoRoot, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';
import { readProfile } from '../src/profile/index.js';

const CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';
const work = tmpDir('komorium-per-test-');
const fixture = join(repoRoot, 'test', 'fixtures', 'junit5');

/** Runs the fixture's tests on the instrumented jar; returns the launcher's output. */
function runTests(jar: string, props: string[]): { code: number | null; out: string } {
  const r = spawnSync(
    javaPath(),
    [...props, '-cp', [CONSOLE, jar, join(work, 'tests')].join(':'), 'org.junit.platform.console.ConsoleLauncher', '--disable-banner', '--details=summary',
      '--select-class', 'com.example.calc.PrimesTest', '--select-class', 'com.example.calc.SorterTest'],
    { cwd: work, encoding: 'utf8', timeout: 120_000 },
  );
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Per test: its bytecodes, and the profile's data below the headers (which hold the pid, date and wall time). */
function perTest(dir: string): Map<string, { bytecodes: number; data: string }> {
  const out = new Map<string, { bytecodes: number; data: string }>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.kprof'))) {
    const p = readProfile(join(dir, f));
    const text = readFileSync(join(dir, f), 'utf8');
    out.set(p.headers.find((h) => h.key === 'test')!.value, { bytecodes: p.totalBytecodes, data: text.split('\n').filter((l) => !l.startsWith('header\t')).join('\n') });
  }
  return out;
}

describe('per-test profiles and baselines', () => {
  let jar: string;
  beforeAll(async () => {
    expect(existsSync(CONSOLE), `${CONSOLE} is missing: Debian package junit5 (scripts/install-deps.sh)`).toBe(true);
    javac(join(fixture, 'app'), join(work, 'app'));
    javac(join(fixture, 'tests'), join(work, 'tests'), { classpath: [CONSOLE, join(work, 'app')] });
    await jarDir(join(work, 'app'), join(work, 'app.jar'));
    jar = join(work, 'app-komorium.jar');
    instrument(join(work, 'app.jar'), jar);
  });

  it('the instrumented jar registers the listener for the JUnit Platform', async () => {
    const zip = await JSZip.loadAsync(readFileSync(jar));
    expect(await zip.file('META-INF/services/org.junit.platform.launcher.TestExecutionListener')!.async('string')).toBe('komorium.runtime.PerTestListener\n');
  });

  it('each test gets its own exact profile, and two runs give the same counts and profiles', () => {
    const a = runTests(jar, ['-Dkomorium.tests=run-a']);
    const b = runTests(jar, ['-Dkomorium.tests=run-b']);
    expect(a.code, a.out).toBe(0);
    expect(a.out).toContain('[         5 tests successful      ]');
    const ra = perTest(join(work, 'run-a'));
    const rb = perTest(join(work, 'run-b'));
    expect([...ra.keys()].sort()).toEqual([
      'com.example.calc.PrimesTest.countsPrimesBelowTenThousand()',
      'com.example.calc.PrimesTest.knowsLargePrimes(int)[1]',
      'com.example.calc.PrimesTest.knowsLargePrimes(int)[2]',
      'com.example.calc.SorterTest.sortsAReversedArray()',
      'com.example.calc.SorterTest.sortsASmallArray()',
    ]);
    for (const [name, x] of ra) {
      expect(x.bytecodes, name).toBeGreaterThan(0);
      expect(rb.get(name), name).toEqual(x);
    }
    // Proportions the code fixes: isPrime(104729) runs about sqrt(104729) / sqrt(7919) = 3.6 times as long as isPrime(7919).
    const ratio = ra.get('com.example.calc.PrimesTest.knowsLargePrimes(int)[2]')!.bytecodes / ra.get('com.example.calc.PrimesTest.knowsLargePrimes(int)[1]')!.bytecodes;
    expect(ratio).toBeGreaterThan(3.4);
    expect(ratio).toBeLessThan(3.8);
    // Each profile holds its own test's code only.
    const small = readProfile(join(work, 'run-a', 'com.example.calc.SorterTest.sortsASmallArray().kprof'));
    expect(small.methods.map((m) => m.name).sort()).toEqual(['mergeSort', 'sort']);
    expect(small.agent).toBe('exact');
    // What ran between tests is no test's, and no profile of the whole run is written.
    expect(existsSync(join(work, 'komorium.kprof'))).toBe(false);
  });

  it('baseline compare finds the test that grew and the method that grew most, and exits 1', () => {
    const store = join(work, 'baselines');
    const save = cli(['baseline', 'save', 'main', '--tests', join(work, 'run-a'), '--store', store]);
    expect(save.code, save.stderr).toBe(0);
    expect(save.stdout).toMatch(/^saved baseline main: 5 tests, [\d,]+ bytecodes, in /);
    const same = cli(['baseline', 'compare', 'main', '--tests', join(work, 'run-b'), '--store', store]);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toContain('Verdict: PASS: no test grew more than 5%');

    const slow = runTests(jar, ['-Dkomorium.tests=run-slow', '-Dcalc.slow=true']);
    expect(slow.code, slow.out).toBe(0);
    const r = cli(['baseline', 'compare', 'main', '--tests', join(work, 'run-slow'), '--store', store, '--limit', '5%']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/REGRESSED\s+\+\d[\d,.]*%\s+[\d,]+ → [\d,]+\s+com\.example\.calc\.SorterTest\.sortsAReversedArray\(\)/);
    expect(r.stdout).toMatch(/same\s+0\.00%\s+[\d,]+ → [\d,]+\s+com\.example\.calc\.PrimesTest\.countsPrimesBelowTenThousand\(\)/);
    expect(r.stdout).toMatch(/com\.example\.calc\.SorterTest\.sortsAReversedArray\(\): com\.example\.calc\.Sorter\.insertionSort\(int\[\]\) \+[\d,]+ \(new\)/);
    expect(r.stdout).toMatch(/^Verdict: FAIL: \d of 5 tests grew more than 5% \(--limit\): com\.example\.calc\.SorterTest\.sortsAReversedArray\(\)/m);
  });

  it('bad input: a missing folder or baseline names it and exits 2', () => {
    const missing = cli(['baseline', 'compare', 'nope', '--tests', join(work, 'run-a'), '--store', join(work, 'baselines')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/baseline nope: .*nope: no such folder of per-test profiles .*save it first/);
    const noTests = cli(['baseline', 'save', 'x', '--tests', join(work, 'nowhere'), '--store', join(work, 'baselines')]);
    expect(noTests.code).toBe(2);
    expect(noTests.stderr).toContain(`${join(work, 'nowhere')}: no such folder of per-test profiles`);
    expect(existsSync(join(work, 'baselines', 'x'))).toBe(false);
    expect(cli(['baseline', 'save', '../x', '--tests', join(work, 'run-a')]).stderr).toContain('baseline name "../x"');
  });

  it('without komorium.tests the listener stays out of the way', () => {
    const r = runTests(jar, ['-Dkomorium.quiet', `-Dkomorium.out=${join(work, 'whole.kprof')}`]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/komorium:/);
    // The instrumented code profiles the whole run as usual.
    expect(readProfile(join(work, 'whole.kprof')).methods.map((m) => m.name)).toContain('isPrime');
  });
});
