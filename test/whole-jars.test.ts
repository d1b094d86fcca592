/**
 * Issue 4, "Whole jars and real programs": every class of Debian's guava, commons-lang3, ecj,
 * rhino, jflex and asm is instrumented and links in a real JVM with zero VerifyErrors; at most 0.1%
 * of the methods are left uninstrumented (each with its reason). And the Eclipse compiler, whole
 * jar instrumented, compiles the JDK's own java.util sources with byte-identical diagnostics.
 */
import { describe, expect, test } from 'vitest';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { debianJar, debianClasspathFor, jdkSrcZip, type DebianJarName } from './support/corpus.js';
import { verifyJar, describeVerify } from './support/verify.js';
import { runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';

const JARS: DebianJarName[] = ['guava', 'commons-lang3', 'ecj', 'rhino', 'jflex', 'asm'];

interface Summary {
  totals: { methods: number; instrumented: number };
  leftAsIs: { className: string; method: string; reason: string }[];
}

describe.each(JARS)('Debian %s, instrumented whole', (name) => {
  test('links in a real JVM with zero VerifyErrors; at most 0.1% of methods left as they were', async () => {
    const work = tmpDir(`komorium-whole-${name}-`);
    const jar = debianJar(name);
    const cp = debianClasspathFor(name).filter((p) => p !== jar);
    const out = join(work, `${name}-komorium.jar`);
    const reportPath = join(work, 'report.json');
    instrument(jar, out, ['-q', '--report-json', reportPath, ...(cp.length ? ['--classpath', ...cp] : [])]);
    const summary = JSON.parse(readFileSync(reportPath, 'utf8')) as Summary;
    const left = summary.leftAsIs;
    const share = left.length / summary.totals.methods;
    const v = await verifyJar(out, cp);
    console.log(
      `[${name}] ${v.classes} classes, ${summary.totals.methods} methods: ${summary.totals.instrumented} instrumented, ` +
        `${left.length} left as they were (${(share * 100).toFixed(3)}%)` +
        left.map((l) => `\n    ${l.className}.${l.method}: ${l.reason}`).join('') +
        `; verify: ${v.verified} verified, ${v.verifyErrors.length} VerifyErrors, ${v.missing.length} missing dependencies`,
    );
    expect(v.verifyErrors, describeVerify(v)).toEqual([]);
    expect(v.other, describeVerify(v)).toEqual([]);
    expect(share).toBeLessThanOrEqual(0.001);
  });
});

test('ecj (Debian libecj-java) compiling java.util from the JDK sources prints byte-identical diagnostics', async () => {
  const work = tmpDir('komorium-ecj-');
  const src = join(work, 'src');
  mkdirSync(src);
  execFileSync('unzip', ['-q', '-o', jdkSrcZip(), 'java.base/java/util/*.java', '-x', 'java.base/java/util/*/*', '-d', src]);
  const files = readdirSync(join(src, 'java.base', 'java', 'util'))
    .filter((f) => f.endsWith('.java'))
    .sort()
    .map((f) => join(src, 'java.base', 'java', 'util', f));
  expect(files.length).toBeGreaterThan(100);
  const jar = debianJar('ecj');
  const out = join(work, 'ecj-komorium.jar');
  instrument(jar, out, ['-q', '--classpath', ...debianClasspathFor('ecj').filter((p) => p !== jar)]);
  // ecj 3.16 compiles up to Java 8, so the JDK 17 sources give a few hundred diagnostics: a real, deterministic output.
  const args = ['-source', '1.8', '-target', '1.8', '-proc:none', '-d', 'none', '-warn:+deprecation', ...files];
  const main = 'org.eclipse.jdt.internal.compiler.batch.Main';
  const plain = await runJava({ cp: [jar], main, args, timeoutMs: 600_000 });
  const profiled = await runJava({
    cp: [out],
    main,
    args,
    jvmArgs: ['-XX:-DontCompileHugeMethods', '-Dkomorium.quiet=true', `-Dkomorium.out=${join(work, 'ecj.kprof')}`],
    timeoutMs: 600_000,
  });
  expect(plain.stdout + plain.stderr).toMatch(/\d+ problems \(\d+ errors/);
  expect(profiled.code).toBe(plain.code);
  expect(profiled.stdout).toBe(plain.stdout);
  expect(profiled.stderr).toBe(plain.stderr);
});
