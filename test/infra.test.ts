// The test infrastructure itself: the real-world corpus is installed, the derived caches build, and the
// verifier harness both catches broken classes and passes Debian's pristine jars. A failure here means
// `bash scripts/install-deps.sh` was not run (or a helper is wrong), not that komorium-ts is broken.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  CorpusMissingError, DEBIAN_JAR_NAMES, debianClasspathFor, debianJar, jarClassEntries, javaBaseClassesDir, javaHome,
  jdkMajor, jdkSrcZip, jflexJavaFlex, listZipEntries, readZipEntry, secondJdkHome, type DebianJarName,
} from './support/corpus.js';
import { NPM_INPUT_NAMES, npmInput, npmInputVersion } from './support/npm-inputs.js';
import { describeVerify, verifyJar } from './support/verify.js';

/** Minimum class counts of Debian 12's packages (guava 31.1 has 2,040), to catch a wrong or empty jar. */
const MIN_CLASSES: Record<DebianJarName, number> = {
  guava: 2000, 'commons-lang3': 300, rhino: 500, ecj: 700, jflex: 90, cup: 50, 'cup-runtime': 20, asm: 30,
  'asm-tree': 30, 'asm-analysis': 10, 'asm-commons': 30, 'asm-util': 20, 'jacoco-core': 150, 'jacoco-report': 70,
  'jacoco-agent-rt': 20, junit4: 300, hamcrest: 100, clojure: 3500, groovy: 3000,
};

/**
 * The only dependencies Debian's jars reference without naming them in their manifests: Ant task
 * adapters (package ant), and Groovy's optional integrations (Grape's Ivy, the commons-cli parser
 * of its tools, XStream export), which the groovy package depends on but its jar does not list.
 */
const OPTIONAL_MISSING = /^org\.apache\.tools\.ant\./;
const OPTIONAL_MISSING_OF: Partial<Record<DebianJarName, RegExp>> = {
  groovy: /^(org\.apache\.ivy|org\.apache\.commons\.cli|com\.thoughtworks\.xstream)\./,
};

describe('corpus: Debian jars', () => {
  test.each(DEBIAN_JAR_NAMES)('%s is installed, a zip with classes, with its classpath present', (name) => {
    const jar = debianJar(name);
    expect(statSync(jar).isFile()).toBe(true);
    const classes = jarClassEntries(jar);
    expect(classes.length).toBeGreaterThanOrEqual(MIN_CLASSES[name]);
    const first = readZipEntry(jar, classes[0]!)!;
    expect(first.readUInt32BE(0)).toBe(0xcafebabe);
    for (const dep of debianClasspathFor(name)) expect(existsSync(dep), dep).toBe(true);
  });

  test('manifest Class-Path dependencies resolve (jflex → cup; junit4 → hamcrest)', () => {
    const jflexCp = debianClasspathFor('jflex');
    expect(jflexCp).toContain('/usr/share/java/cup.jar');
    expect(jflexCp.some((p) => /cup.*runtime/.test(p))).toBe(true);
    expect(debianClasspathFor('junit4')).toContain('/usr/share/java/hamcrest-core.jar');
    expect(debianClasspathFor('jacoco-core')).toContain('/usr/share/java/asm.jar');
  });

  test('a missing input is a loud CorpusMissingError naming the install script', () => {
    expect(() => debianClasspathFor('/nonexistent/komorium.jar')).toThrow(CorpusMissingError);
    expect(() => debianClasspathFor('/nonexistent/komorium.jar')).toThrow(/scripts\/install-deps\.sh/);
    expect(() => debianJar('no-such-jar' as DebianJarName)).toThrow(/unknown Debian corpus jar/);
  });
});

describe('corpus: JDK', () => {
  test('java.base classes extract from lib/modules (> 5,000 classes)', () => {
    const dir = javaBaseClassesDir();
    const object = readFileSync(join(dir, 'java', 'lang', 'Object.class'));
    expect(object.readUInt32BE(0)).toBe(0xcafebabe);
    let n = 0;
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (e.name.endsWith('.class')) n++;
      }
    };
    walk(dir);
    expect(n).toBeGreaterThan(5000);
    expect(javaBaseClassesDir()).toBe(dir); // cached
  });

  test('JDK sources (src.zip) and jflex java.flex are present', () => {
    const src = jdkSrcZip();
    expect(listZipEntries(src)).toContain('java.base/java/lang/Object.java');
    const flex = readFileSync(jflexJavaFlex(), 'utf8');
    expect(flex).toMatch(/%class/);
    expect(flex.length).toBeGreaterThan(1000);
    expect(jdkMajor()).toBeGreaterThanOrEqual(17);
  });
});

describe('corpus: npm inputs', () => {
  test.each(NPM_INPUT_NAMES)('%s is unpacked at its pinned version', (name) => {
    const text = readFileSync(npmInput(name), 'utf8');
    expect(text).toContain(npmInputVersion(name));
  });
});

// ---------------------------------------------------------------------------------------------
// The verify harness

/** A minimal class file (version 52, no branches so no StackMapTable) with one static method `f`. */
function classFile(name: string, superName: string, desc: string, code: number[]): Buffer {
  const parts: Buffer[] = [];
  const u1 = (v: number) => parts.push(Buffer.from([v]));
  const u2 = (v: number) => parts.push(Buffer.from([v >> 8, v & 0xff]));
  const u4 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); parts.push(b); };
  const utf8 = (s: string) => { u1(1); u2(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  u4(0xcafebabe); u2(0); u2(52);
  u2(8);
  utf8(name); u1(7); u2(1); // #1, #2 this
  utf8(superName); u1(7); u2(3); // #3, #4 super
  utf8('f'); utf8(desc); utf8('Code'); // #5 #6 #7
  u2(0x21); u2(2); u2(4); u2(0); u2(0);
  u2(1); u2(0x09); u2(5); u2(6); u2(1);
  u2(7); u4(12 + code.length); u2(1); u2(1); u4(code.length); parts.push(Buffer.from(code)); u2(0); u2(0);
  u2(0);
  return Buffer.concat(parts);
}

describe('verify harness', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'komorium-verify-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('classifies a good, an unverifiable, an orphaned and a malformed class', () => {
    const ALOAD_0 = 0x2a, ARETURN = 0xb0;
    writeFileSync(join(tmp, 'Good.class'), classFile('Good', 'java/lang/Object', '(Ljava/lang/Object;)Ljava/lang/Object;', [ALOAD_0, ARETURN]));
    // Returns an Object where the descriptor promises a String: HotSpot's verifier rejects it.
    writeFileSync(join(tmp, 'Bad.class'), classFile('Bad', 'java/lang/Object', '(Ljava/lang/Object;)Ljava/lang/String;', [ALOAD_0, ARETURN]));
    writeFileSync(join(tmp, 'Orphan.class'), classFile('Orphan', 'komorium/test/Gone', '(Ljava/lang/Object;)Ljava/lang/Object;', [ALOAD_0, ARETURN]));
    writeFileSync(join(tmp, 'Broken.class'), classFile('Broken', 'java/lang/Object', '()V', [0xb1]).subarray(0, 40));
    const r = verifyJar(tmp);
    expect(r.classes, describeVerify(r)).toBe(4);
    expect(r.verified).toBe(1);
    expect(r.verifyErrors).toHaveLength(1);
    expect(r.verifyErrors[0]!.cls).toBe('Bad');
    expect(r.verifyErrors[0]!.method).toBe('Bad.f(Ljava/lang/Object;)Ljava/lang/String;');
    expect(r.verifyErrors[0]!.message).toMatch(/Bad return type/);
    expect(r.missing).toEqual([{ cls: 'Orphan', type: 'komorium.test.Gone' }]);
    expect(r.other.map((o) => o.cls)).toEqual(['Broken']);
    expect(r.other[0]!.message).toMatch(/ClassFormatError/);
  });

  test.each(DEBIAN_JAR_NAMES)('pristine Debian %s verifies with zero VerifyErrors', (name) => {
    const r = verifyJar(debianJar(name), debianClasspathFor(name));
    const text = describeVerify(r);
    console.log(`verify ${name}: ${text}`);
    expect(r.classes).toBe(jarClassEntries(debianJar(name)).filter((e) => !e.startsWith('META-INF/') && !e.endsWith('module-info.class')).length);
    expect(r.verifyErrors, text).toEqual([]);
    expect(r.other, text).toEqual([]);
    // Anything missing other than the optional Ant adapters means the classpath choice is wrong.
    const optional = (t: string) => OPTIONAL_MISSING.test(t) || (OPTIONAL_MISSING_OF[name]?.test(t) ?? false);
    expect(Object.keys(r.missingByType).filter((t) => !optional(t)), text).toEqual([]);
    expect(r.verified + r.missing.length).toBe(r.classes);
  });

  const second = secondJdkHome();
  // Optional by design: Debian 12 packages one JDK; the machine image may carry another (Temurin 25).
  test.skipIf(second === null)(`the harness runs on a second JDK too (${second ?? 'none on this machine'})`, () => {
    const r = verifyJar(debianJar('guava'), debianClasspathFor('guava'), { javaHome: second! });
    expect(r.javaVersion).not.toBe('');
    expect(jdkMajor(second!)).not.toBe(jdkMajor(javaHome()));
    expect(r.verifyErrors, describeVerify(r)).toEqual([]);
    expect(r.verified).toBe(r.classes);
  });
});
