/**
 * samples/maven: `mvn -o package` builds the jar, instruments it with komorium-ts through
 * exec-maven-plugin, runs it on the workload and reports the profile — offline, from Debian's
 * packaged Maven plugins in /usr/share/maven-repo (scripts/install-deps.sh installs them).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { readProfile } from '../src/profile/index.js';
import { repoRoot, tmpDir } from './support/java.js';

const DEBIAN_REPO = '/usr/share/maven-repo';

/** `mvn -o` offline from Debian's repository, komorium-ts from this checkout; status and log. */
function mvn(project: string, args: string[]): { status: number | null; log: string } {
  const r = spawnSync(
    'mvn',
    ['-B', '-o', '-q', '-Dstyle.color=never', `-Dmaven.repo.local=${DEBIAN_REPO}`, `-Dkomorium.cmd=${join(repoRoot, 'bin', 'komorium-ts.js')}`, ...args],
    { cwd: project, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.error) throw new Error(`cannot run mvn (scripts/install-deps.sh installs maven): ${r.error.message}`);
  return { status: r.status, log: `${r.stdout}\n${r.stderr}` };
}

describe('samples/maven', () => {
  const work = tmpDir('komorium-maven-');
  afterAll(() => {
    if (!process.env.KOMORIUM_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  });

  it('mvn -o package instruments the jar, runs the workload and writes a profile', async () => {
    expect(existsSync(join(repoRoot, 'dist', 'cli', 'main.js')), 'dist/ is missing: run `npm run build`').toBe(true);
    const project = join(work, 'maven');
    cpSync(join(repoRoot, 'samples', 'maven'), project, {
      recursive: true,
      filter: (src) => !/[\\/]target$/.test(src),
    });

    const r = spawnSync(
      'mvn',
      [
        '-B',
        '-o',
        '-q',
        '-Dstyle.color=never',
        `-Dmaven.repo.local=${DEBIAN_REPO}`,
        // Outside the repository the sample's in-repo profile is off: point it at our bin.
        `-Dkomorium.cmd=${join(repoRoot, 'bin', 'komorium-ts.js')}`,
        'package',
      ],
      { cwd: project, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.error) throw new Error(`cannot run mvn (scripts/install-deps.sh installs maven): ${r.error.message}`);
    const log = `${r.stdout}\n${r.stderr}`;
    expect(r.status, log).toBe(0);

    // The build log: the instrument summary, the workload's own output, then the report.
    expect(r.stdout).toMatch(/instrumented .*app\.jar -> .*app-komorium\.jar/);
    expect(r.stdout).toContain('primes below 200000: 17984\n');
    expect(r.stdout).toMatch(/Hottest methods by self[^\n]*\n[^\n]*\n\s+\d+\.\d%[\s\d,]+\d+\.\d%\s+com\.example\.workload\.Primes\.isPrime\(int\)/);

    const target = join(project, 'target');
    const instrumented = await JSZip.loadAsync(readFileSync(join(target, 'app-komorium.jar')));
    expect(instrumented.file('komorium/runtime/TC.class'), 'the runtime is inside the instrumented jar').not.toBeNull();
    expect(instrumented.file('com/example/workload/Main.class')).not.toBeNull();
    const plain = await JSZip.loadAsync(readFileSync(join(target, 'app.jar')));
    expect(plain.file('komorium/runtime/TC.class'), 'the plain jar is left as Maven built it').toBeNull();

    const text = readFileSync(join(target, 'app.kprof'), 'utf8');
    expect(text.split('\n')[0]).toBe('komorium-profile\t2');
    const profile = readProfile(join(target, 'app.kprof'));
    // Class names compared in dotted form: the format doc says internal names, the runtime writes dotted ones.
    const names = profile.methods.map((m) => `${m.className.replace(/\//g, '.')}.${m.name}${m.descriptor}`);
    expect(names).toContain('com.example.workload.Main.main([Ljava/lang/String;)V');
    expect(names).toContain('com.example.workload.Primes.isPrime(I)Z');
  });

  it('mvn verify: the unit tests on the instrumented jar with surefire, one exact profile each, and a baseline that catches a slower test', () => {
    const project = join(work, 'maven-tests');
    cpSync(join(repoRoot, 'samples', 'maven'), project, { recursive: true, filter: (src) => !/[\\/](target|\.komorium)$/.test(src) });
    const first = mvn(project, ['verify', '-Dkomorium.saveBaseline=main']);
    expect(first.status, first.log).toBe(0);
    const target = join(project, 'target');
    // surefire ran the tests twice: as usual in the test phase, and on the instrumented jar in verify.
    expect(readdirSync(join(target, 'surefire-reports')).filter((f) => f.endsWith('.xml')).sort()).toEqual(['TEST-com.example.workload.PrimesTest.xml', 'TEST-com.example.workload.ShuffleTest.xml']);
    expect(readdirSync(join(target, 'komorium-surefire-reports')).filter((f) => f.endsWith('.xml')).length).toBe(2);
    const tests = readdirSync(join(target, 'komorium-tests')).sort();
    expect(tests).toEqual([
      'com.example.workload.PrimesTest.countsThePrimesBelowTenThousand().kprof',
      'com.example.workload.ShuffleTest.checksumIsStable().kprof',
      'com.example.workload.ShuffleTest.insertionSortSorts().kprof',
    ]);
    const p = readProfile(join(target, 'komorium-tests', tests[0]!));
    expect(p.agent).toBe('exact');
    expect(p.methods.map((m) => m.name).sort()).toEqual(['countPrimes', 'isPrime']);
    expect(first.log).toMatch(/saved baseline main: 3 tests, [\d,]+ bytecodes, in .*\.komorium\/baselines\/main/);

    // The planted regression of the Gradle test: the same checksum, in quadratic time.
    const source = join(project, 'src', 'main', 'java', 'com', 'example', 'workload', 'Shuffle.java');
    const linear = 'for (int v : a) h = h * 31 + v;';
    writeFileSync(source, readFileSync(source, 'utf8').replace(linear, 'for (int i = 0; i < a.length; i++) for (int j = 0; j <= i; j++) if (j == i) h = h * 31 + a[j];'));
    const second = mvn(project, ['verify', '-Dkomorium.compareBaseline=main']);
    expect(second.status, second.log).not.toBe(0);
    expect(second.log).toMatch(/REGRESSED\s+\+[\d,.]+%\s+[\d,]+ → [\d,]+\s+com\.example\.workload\.ShuffleTest\.checksumIsStable\(\)/);
    expect(second.log).toMatch(/same\s+0\.00%\s+[\d,]+ → [\d,]+\s+com\.example\.workload\.PrimesTest\.countsThePrimesBelowTenThousand\(\)/);
    expect(second.log).toContain('com.example.workload.ShuffleTest.checksumIsStable(): com.example.workload.Shuffle.checksum(int[]) +');
    expect(second.log).toMatch(/Verdict: FAIL: 1 of 3 tests grew more than 5% \(--limit\)/);
  });
});
