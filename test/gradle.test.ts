/**
 * samples/gradle with komorium.gradle, run by a real Gradle (Debian's 4.4.1, `apt-get install
 * gradle`; KOMORIUM_GRADLE=/path/to/gradle runs the same checks on another), offline, in a temporary
 * copy laid out as after `npm install komorium-ts` (node_modules/komorium-ts is this repository, as
 * npm links a folder install), with its own GRADLE_USER_HOME and no daemon. The checks read what
 * Gradle prints: tasks run or UP-TO-DATE, the report, a diff gate failing the build.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/profile/index.js';
import { CorpusMissingError, INSTALL_HINT } from './support/corpus.js';
import { repoRoot, tmpDir } from './support/java.js';

const GRADLE = process.env.KOMORIUM_GRADLE ?? 'gradle';
const JUNIT_JARS: [string, string][] = [
  ['/usr/share/java/junit4.jar', 'junit4'],
  ['/usr/share/java/hamcrest-core.jar', 'libhamcrest-java'],
  // komoriumTests: the JUnit Platform's JUnit 4 runner and vintage engine, as samples/gradle/build.gradle lists them.
  ...['junit-platform-runner', 'junit-platform-launcher', 'junit-platform-engine', 'junit-platform-commons', 'junit-platform-suite-api',
    'junit-platform-suite-commons', 'junit-vintage-engine', 'opentest4j', 'apiguardian-api']
    .map((j): [string, string] => [`/usr/share/java/${j}.jar`, 'junit5']),
];
const CHECKSUM = 'Shuffle.checksum(int[])';

interface GradleRun {
  code: number | null;
  out: string;
  err: string;
}

/** `:task UP-TO-DATE` (Gradle 4) or `> Task :task UP-TO-DATE` (Gradle 5 and later), as a plain console prints it. */
function taskLine(task: string, outcome = ''): RegExp {
  return new RegExp(`^(?:> Task )?:${task}${outcome ? ` ${outcome}` : ''}$`, 'm');
}

/** Processes whose working folder is under `dir`: a Gradle daemon started here would be one. */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readlinkSync(`/proc/${p}/cwd`).startsWith(dir)) pids.push(Number(p));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}

describe('samples/gradle with komorium.gradle, offline', () => {
  const work = realpathSync(tmpDir('komorium-gradle-'));
  const project = join(work, 'samples', 'gradle');
  const gradleHome = join(work, 'gradle-home');
  afterAll(() => {
    for (const pid of processesUnder(work)) process.kill(pid, 'SIGKILL');
    if (!process.env.KOMORIUM_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  });

  const gradle = (...args: string[]): GradleRun => {
    const r = spawnSync(GRADLE, ['--offline', '--no-daemon', '--console=plain', ...args], {
      cwd: project,
      encoding: 'utf8',
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
      // komorium.gradle runs its own komorium-ts with the node that runs this test.
      env: { ...process.env, GRADLE_USER_HOME: gradleHome, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
    });
    if (r.error) throw new CorpusMissingError(`cannot run ${GRADLE} (Debian package gradle): ${r.error.message}: ${INSTALL_HINT}`);
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const log = (r: GradleRun): string => `exit ${r.code}\n${r.out}\n${r.err}`;
  const build = (name: string): string => join(project, 'build', 'komorium', name);

  it('komoriumReport: jar, instrument, the workload, the report', () => {
    expect(existsSync(join(repoRoot, 'dist', 'cli', 'main.js')), 'dist/ is missing: run `npm run build`').toBe(true);
    for (const [jar, pkg] of JUNIT_JARS) {
      if (!existsSync(jar)) throw new CorpusMissingError(`missing ${jar} (Debian package ${pkg}): ${INSTALL_HINT}`);
    }
    const noBuild = (src: string): boolean => !/[\\/](build|\.gradle|node_modules)$/.test(src);
    cpSync(join(repoRoot, 'samples', 'gradle'), project, { recursive: true, filter: noBuild });
    cpSync(join(repoRoot, 'samples', 'maven', 'src'), join(work, 'samples', 'maven', 'src'), { recursive: true });
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(repoRoot, join(project, 'node_modules', 'komorium-ts'), 'dir');

    const version = /^Gradle (\S+)$/m.exec(gradle('--version').out)?.[1];
    console.log(`gradle.test: ${GRADLE} is Gradle ${version}`);

    const r = gradle('komoriumReport');
    expect(r.code, log(r)).toBe(0);
    expect(r.out).toMatch(taskLine('komoriumInstrument'));
    expect(r.out).toMatch(/^instrumented .*komorium-sample-app\.jar -> .*komorium-sample-app-komorium\.jar$/m);
    expect(r.out).toContain('primes below 200000: 17984\n');
    expect(r.out).toMatch(/Hottest methods by self[^\n]*\n[^\n]*\n\s+\d+\.\d%[\s\d,]+\d+\.\d%\s+com\.example\.workload\.Primes\.isPrime\(int\)/);
    const names = readProfile(build('app.kprof')).methods.map((m) => `${m.className.replace(/\//g, '.')}.${m.name}`);
    expect(names).toContain('com.example.workload.Primes.isPrime');
    // The base build's profile becomes the baseline that komoriumDiff compares with.
    copyFileSync(build('app.kprof'), join(project, 'komorium-baseline.kprof'));
  });

  it('nothing changed: komoriumInstrument and komoriumProfile are UP-TO-DATE, and the diff passes', () => {
    const r = gradle('komoriumDiff');
    expect(r.code, log(r)).toBe(0);
    expect(r.out).toMatch(taskLine('jar', 'UP-TO-DATE'));
    expect(r.out).toMatch(taskLine('komoriumInstrument', 'UP-TO-DATE'));
    expect(r.out).toMatch(taskLine('komoriumProfile', 'UP-TO-DATE'));
    expect(r.out).toContain('Verdict: PASS (2 gates)');
    expect(r.out).toContain('Overlap: calling contexts 100.00%, methods 100.00%');
  });

  it('a slower source file: instrument runs again, and the diff gate fails the build naming the method', () => {
    // A planted regression, as in samples/regression: the same checksum, computed in quadratic time.
    const source = join(work, 'samples', 'maven', 'src', 'main', 'java', 'com', 'example', 'workload', 'Shuffle.java');
    const linear = 'for (int v : a) h = h * 31 + v;';
    const text = readFileSync(source, 'utf8');
    expect(text).toContain(linear);
    writeFileSync(source, text.replace(linear, 'for (int i = 0; i < a.length; i++) for (int j = 0; j <= i; j++) if (j == i) h = h * 31 + a[j];'));

    const r = gradle('komoriumDiff');
    expect(r.code, log(r)).toBe(1);
    expect(r.out).toMatch(taskLine('compileJava'));
    expect(r.out).toMatch(taskLine('komoriumInstrument'));
    expect(r.out).toMatch(taskLine('komoriumProfile'));
    expect(r.out).toMatch(/^sorted 1000 numbers, checksum -?\d+$/m);
    expect(r.out).toMatch(new RegExp(`^Grew most: com\\.example\\.workload\\.${CHECKSUM.replace(/[()[\]]/g, '\\$&')} \\+[\\d,]+ bytecodes self`, 'm'));
    expect(r.out).toMatch(/^Verdict: FAIL: /m);
    // The build failure itself names the verdict and the method.
    const failure = r.err.slice(r.err.indexOf('What went wrong'));
    expect(failure, r.err).toMatch(/Execution failed for task ':komoriumDiff'\.\n> komorium-ts diff komorium-baseline\.kprof app\.kprof: a gate failed \(exit 1\)/);
    expect(failure).toMatch(/^ {2}Verdict: FAIL: total bytecodes \+\d+\.\d\d% > 5% \(--max-growth\)/m);
    expect(failure).toContain(`Grew most: com.example.workload.${CHECKSUM}`);
    console.log(`gradle.test: komoriumDiff after the slowdown: exit ${r.code}, ${/^Verdict: .*$/m.exec(r.out)?.[0]}; ${/^Grew most: .*$/m.exec(r.out)?.[0]}`);
  });

  it('komoriumTestReport: `test` on the instrumented jar, one profile per forked JVM, merged', () => {
    const r = gradle('komoriumTestReport');
    expect(r.code, log(r)).toBe(0);
    expect(r.out).toMatch(taskLine('test'));
    // forkEvery = 1 and two test classes: two JVMs, each its own profile.
    const parts = readdirSync(build('test')).sort();
    expect(parts).toHaveLength(2);
    for (const p of parts) expect(p).toMatch(/^jvm-\d+\.kprof$/);
    expect(r.out).toMatch(new RegExp(`^merged 2 profiles into ${build('test.kprof').replace(/[.]/g, '\\.')}: `, 'm'));
    const merged = readProfile(build('test.kprof'));
    const sum = parts.map((p) => readProfile(join(build('test'), p)).totalBytecodes).reduce((a, b) => a + b, 0);
    expect(merged.totalBytecodes).toBe(sum);
    const names = merged.methods.map((m) => `${m.className.replace(/\//g, '.')}.${m.name}`);
    expect(names).toEqual(expect.arrayContaining(['com.example.workload.Primes.isPrime', 'com.example.workload.Shuffle.insertionSort']));
    expect(r.out).toMatch(/Hottest methods by self[\s\S]*com\.example\.workload\.Shuffle\.insertionSort\(int\[\]\)/);
    // The tests passed on the instrumented classes.
    const results = readdirSync(join(project, 'build', 'test-results', 'test')).filter((f) => f.endsWith('.xml'));
    expect(results).toHaveLength(2);
    for (const f of results) expect(readFileSync(join(project, 'build', 'test-results', 'test', f), 'utf8')).toMatch(/failures="0" errors="0"/);
  });

  it('komorium-ts exit 2 fails the build and says so; the test profile is UP-TO-DATE', () => {
    copyFileSync(build('test.kprof'), join(project, 'tests-base.kprof'));
    const r = gradle('komoriumTestDiff', '-Pkomorium.testBaseline=tests-base.kprof', '-Pkomorium.maxGrowth=lots');
    expect(r.code, log(r)).toBe(1);
    expect(r.out).toMatch(taskLine('test', 'UP-TO-DATE'));
    expect(r.out).toMatch(taskLine('komoriumTestProfile', 'UP-TO-DATE'));
    expect(r.err).toContain('komorium-ts: --max-growth expects a percentage of at least -100 such as 5 or 5%, got "lots"');
    expect(r.err).toMatch(/Execution failed for task ':komoriumTestDiff'\.\n> komorium-ts diff exited 2: bad input or usage/);
  });

  it('a missing baseline is named, with how to store one; no Gradle process is left', () => {
    const r = gradle('komoriumTestDiff');
    expect(r.code, log(r)).toBe(1);
    expect(r.err).toContain(`komoriumTestDiff: no baseline profile at ${join(project, 'komorium-test-baseline.kprof')}. Store one from the base build`);
    expect(processesUnder(work)).toEqual([]);
  });
  it('komoriumTests: per-test profiles through Gradle\'s test executor on the JUnit Platform; a test that grew fails komoriumBaselineCompare', () => {
    const saved = gradle('komoriumBaselineSave');
    expect(saved.code, log(saved)).toBe(0);
    expect(saved.out).toMatch(taskLine('komoriumTests'));
    // Gradle 4.4 runs the platform through the JUnit 4 suite; the vintage engine's JUnit 4 tests read as Jupiter's do.
    const tests = ['PrimesTest.primesBelowOneHundredThousand()', 'PrimesTest.smallNumbers()', 'ShuffleTest.insertionSortSorts()']
      .map((t) => `com.example.workload.${t}`);
    expect(readdirSync(build('tests')).sort()).toEqual(tests.map((t) => `${t}.kprof`));
    expect(saved.out).toMatch(/^saved baseline main: 3 tests, [\d,]+ bytecodes, in /m);
    const one = readProfile(join(build('tests'), `${tests[2]}.kprof`));
    expect(one.methods.map((m) => m.name)).toContain('insertionSort');

    const same = gradle('komoriumBaselineCompare');
    expect(same.code, log(same)).toBe(0);
    expect(same.out).toMatch(taskLine('komoriumTests', 'UP-TO-DATE'));
    expect(same.out).toContain('Verdict: PASS: no test grew more than 5%');

    // Trial division up to 2·sqrt(n): the primes test does about twice the work.
    const source = join(work, 'samples', 'maven', 'src', 'main', 'java', 'com', 'example', 'workload', 'Primes.java');
    const text = readFileSync(source, 'utf8');
    expect(text).toContain('d * d <= n;');
    writeFileSync(source, text.replace('d * d <= n;', 'd * d <= 4 * n;'));
    const grew = gradle('komoriumBaselineCompare');
    expect(grew.code, log(grew)).toBe(1);
    expect(grew.out).toMatch(taskLine('komoriumTests'));
    expect(grew.out).toMatch(/^ {2}REGRESSED +\+\d+\.\d\d% .* com\.example\.workload\.PrimesTest\.primesBelowOneHundredThousand\(\)$/m);
    expect(grew.out).toMatch(/^ {2}same +0\.00% .* com\.example\.workload\.ShuffleTest\.insertionSortSorts\(\)$/m);
    const failure = grew.err.slice(grew.err.indexOf('What went wrong'));
    expect(failure, grew.err).toMatch(/Execution failed for task ':komoriumBaselineCompare'\.\n> komorium-ts baseline compare main: a test grew past 5% \(exit 1\)/);
    expect(failure).toContain('com.example.workload.PrimesTest.primesBelowOneHundredThousand(): com.example.workload.Primes.isPrime(int) +');
    console.log(`gradle.test: komoriumBaselineCompare after the slowdown: exit ${grew.code}, ${/^Verdict: .*$/m.exec(grew.out)?.[0]}`);
    expect(processesUnder(work)).toEqual([]);
  });
});
