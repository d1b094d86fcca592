/**
 * Jars inside jars (issue 24): a Spring Boot executable jar (BOOT-INF/classes, BOOT-INF/lib/*.jar)
 * and a web application archive (WEB-INF/classes, WEB-INF/lib/*.jar), built here around Debian's
 * commons-lang3. Debian packages no Spring Boot loader, so the Spring Boot jar runs through
 * test/fixtures/nested/launcher, a launcher that keeps the rules of Spring Boot's JarLauncher that
 * matter here (nested jars read in place, so stored uncompressed; classpath.idx order; Start-Class;
 * a loader below the one of the jar's root). The WAR runs in test/fixtures/nested/container, which
 * loads WEB-INF/ as a servlet container does, without the archive's root.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, instrument } from './support/komorium.js';
import { javac, javaPath, repoRoot, runJava, tmpDir } from './support/java.js';
import { debianJar } from './support/corpus.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { jarBytes, readInput, readJar, type Entry } from '../src/jar/index.js';
import { readProfile } from '../src/profile/read.js';
import { UNINSTRUMENTED_CLASS, type Profile } from '../src/profile/model.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'nested');
let work: string;
let lang3: Uint8Array;

/** Every file under `dir` as a jar entry named by its path below `dir`, prefixed. */
async function folderEntries(dir: string, prefix: string): Promise<Entry[]> {
  return (await readInput(dir)).entries.filter((e) => !e.isDirectory).map((e) => ({ ...e, name: prefix + e.name }));
}

const text = (name: string, s: string, stored = false): Entry => ({ name, data: Buffer.from(s, 'utf8'), isClass: false, stored });

async function entriesOf(jar: string): Promise<Map<string, Entry>> {
  return new Map((await readInput(jar)).entries.map((e) => [e.name, e]));
}

/** A context `caller → callee` whose callee's class starts with `calleePrefix`, directly or through [uninstrumented]. */
function calls(p: Profile, caller: string, calleePrefix: string, through: boolean): boolean {
  return p.nodes.some((n) => {
    if (!n.method?.className.startsWith(calleePrefix) || !n.parent?.method) return false;
    const between = n.parent.method.className === UNINSTRUMENTED_CLASS;
    const c = between ? n.parent.parent?.method : n.parent.method;
    return between === through && c !== null && c !== undefined && `${c.className}.${c.name}` === caller;
  });
}

beforeAll(async () => {
  work = tmpDir('komorium-nested-');
  const lang3Jar = debianJar('commons-lang3');
  lang3 = readFileSync(lang3Jar);
  javac(join(fixtures, 'launcher'), join(work, 'launcher'), { release: 8 });
  javac(join(fixtures, 'container'), join(work, 'container'), { release: 11 });
  javac(join(fixtures, 'app'), join(work, 'app'), { release: 8, classpath: [lang3Jar] });
});

describe('a Spring Boot executable jar', () => {
  let fat: string;
  let out: string;
  let plain: { code: number | null; stdout: string; stderr: string };
  let summary: string;
  /** `java -jar`, as a Spring Boot jar is run. */
  const runFat = async (jar: string, jvmArgs: string[] = []) => {
    const r = spawnSync(javaPath(), [...jvmArgs, '-jar', jar], { encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  beforeAll(async () => {
    fat = join(work, 'boot.jar');
    const entries = [
      text('META-INF/MANIFEST.MF', 'Manifest-Version: 1.0\r\nMain-Class: komoriumtest.boot.NestedJarLauncher\r\nStart-Class: demo.App\r\n\r\n'),
      ...(await folderEntries(join(work, 'launcher'), '')),
      ...(await folderEntries(join(work, 'app'), 'BOOT-INF/classes/')),
      { name: 'BOOT-INF/lib/commons-lang3.jar', data: lang3, isClass: false, stored: true },
      text('BOOT-INF/classpath.idx', '- "BOOT-INF/lib/commons-lang3.jar"\n'),
    ];
    writeFileSync(fat, await jarBytes(entries));
    plain = await runFat(fat);
    expect(plain.code, plain.stderr).toBe(0);
    out = join(work, 'boot-komorium.jar');
    summary = instrument(fat, out).stdout;
  });

  it('runs through its launcher from its nested library (the fixture is a real layout)', () => {
    expect(plain.stdout).toMatch(/^00000[0-9a-z]* .*\n\d+ zeros in 3000 words, loaded by NestedLoader\n$/);
  });

  it('instruments the nested library as part of the program, keeps it stored, and the runtime only at the root', async () => {
    expect(summary).toMatch(/jars +2, rewritten as one program/);
    expect(summary).toMatch(/BOOT-INF\/lib\/commons-lang3\.jar: \d+ classes, \d+ rewritten/);
    const outer = await entriesOf(out);
    const nested = outer.get('BOOT-INF/lib/commons-lang3.jar')!;
    expect(nested.stored).toBe(true);
    expect(outer.get('BOOT-INF/classpath.idx')!.data).toEqual(Buffer.from('- "BOOT-INF/lib/commons-lang3.jar"\n'));
    expect(outer.has('komorium/runtime/TC.class')).toBe(true);
    const inner = new Map((await readJar('nested', nested.data)).map((e) => [e.name, e]));
    expect([...inner.keys()].some((n) => n.startsWith('komorium/'))).toBe(false);
    const stringUtils = ClassFile.parse(inner.get('org/apache/commons/lang3/StringUtils.class')!.data, 'StringUtils.class');
    expect(stringUtils.methods.some((m) => m.name === 'leftPad$komorium')).toBe(true);
    const app = ClassFile.parse(outer.get('BOOT-INF/classes/demo/App.class')!.data, 'App.class');
    expect(app.methods.some((m) => m.name === 'main$komorium')).toBe(true);
  });

  it('runs instrumented with the same output, and calls into the nested library keep their calling context', async () => {
    const profile = join(work, 'boot.kprof');
    const r = await runFat(out, ['-Dkomorium.agent=exact', '-Dkomorium.quiet', `-Dkomorium.out=${profile}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stderr).toBe(plain.stderr);
    const p = readProfile(profile);
    expect(calls(p, 'demo/App.main', 'org/apache/commons/lang3/StringUtils', false)).toBe(true);
    // The comparator is called back by the JDK's sort: below an [uninstrumented] node, then straight into the library.
    expect(calls(p, 'demo/App.main', 'demo/App', true)).toBe(true);
    expect(calls(p, 'demo/App.lambda$main$0', 'org/apache/commons/lang3/StringUtils', false)).toBe(true);
    const inLibrary = p.nodes.filter((n) => n.method?.className.startsWith('org/apache/commons/lang3/')).reduce((s, n) => s + n.counter, 0);
    expect(inLibrary).toBeGreaterThan(p.totalBytecodes / 2);
  });

  it("the launcher refuses a compressed nested jar, as Spring Boot's does", async () => {
    const deflated = [...(await entriesOf(out)).values()].map((e) => (e.name.endsWith('.jar') ? { ...e, stored: false } : e));
    const bad = join(work, 'boot-deflated.jar');
    writeFileSync(bad, await jarBytes(deflated));
    const r = await runFat(bad);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('nested jar files must be stored without compression');
  });

  it('--include selects what is rewritten: a nested jar without selected classes is copied as it was', async () => {
    const onlyApp = join(work, 'boot-app-only.jar');
    const r = cli(['instrument', fat, '-o', onlyApp, '--include', 'demo.**']);
    expect(r.code, r.stderr).toBe(0);
    const nested = (await entriesOf(onlyApp)).get('BOOT-INF/lib/commons-lang3.jar')!;
    expect(Buffer.from(nested.data).equals(lang3)).toBe(true);
    expect(nested.stored).toBe(true);
    const profile = join(work, 'boot-app-only.kprof');
    const run = await runFat(onlyApp, ['-Dkomorium.agent=exact', '-Dkomorium.quiet', `-Dkomorium.out=${profile}`]);
    expect(run.stdout).toBe(plain.stdout);
    expect(readProfile(profile).nodes.some((n) => n.method?.className.startsWith('org/apache/'))).toBe(false);
  });
});

describe('a web application archive', () => {
  let war: string;
  let out: string;

  /** Unpacks `jar` into a folder and runs its demo.App as a servlet container's loader would. */
  async function deploy(jar: string, tag: string, jvmArgs: string[] = []) {
    const dir = join(work, `deployed-${tag}`);
    for (const e of (await readInput(jar)).entries) {
      if (e.isDirectory) continue;
      mkdirSync(dirname(join(dir, e.name)), { recursive: true });
      writeFileSync(join(dir, e.name), e.data);
    }
    return runJava({ cp: [join(work, 'container')], main: 'komoriumtest.web.Container', args: [dir, 'demo.App'], jvmArgs });
  }

  beforeAll(async () => {
    war = join(work, 'app.war');
    const entries = [
      text('META-INF/MANIFEST.MF', 'Manifest-Version: 1.0\r\n\r\n'),
      text('index.html', '<p>hello</p>\n'),
      // An executable WAR's launcher sits at the root, outside the web application's loader.
      ...(await folderEntries(join(work, 'launcher'), '')),
      ...(await folderEntries(join(work, 'app'), 'WEB-INF/classes/')),
      { name: 'WEB-INF/lib/commons-lang3.jar', data: lang3, isClass: false },
    ];
    writeFileSync(war, await jarBytes(entries));
    out = join(work, 'app-komorium.war');
    const r = instrument(war, out);
    expect(r.stdout).toMatch(/note: .*app\.war: 4 classes outside WEB-INF\/classes\/ .* are copied as they are/);
  });

  it('puts the runtime where the web application loader finds it, and leaves the root classes alone', async () => {
    const before = await entriesOf(war);
    const after = await entriesOf(out);
    expect(after.has('WEB-INF/classes/komorium/runtime/TC.class')).toBe(true);
    expect(after.has('komorium/runtime/TC.class')).toBe(false);
    const launcher = 'komoriumtest/boot/NestedJarLauncher.class';
    expect(Buffer.from(after.get(launcher)!.data).equals(before.get(launcher)!.data)).toBe(true);
    const inner = new Map((await readJar('nested', after.get('WEB-INF/lib/commons-lang3.jar')!.data)).map((e) => [e.name, e]));
    expect(ClassFile.parse(inner.get('org/apache/commons/lang3/StringUtils.class')!.data, 'x').methods.some((m) => m.name === 'leftPad$komorium')).toBe(true);
  });

  it('runs in a container loader with the same output, calls into WEB-INF/lib keeping their context', async () => {
    const plain = await deploy(war, 'plain');
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/loaded by URLClassLoader\n$/);
    const profile = join(work, 'war.kprof');
    const r = await deploy(out, 'komorium', ['-Dkomorium.agent=exact', '-Dkomorium.quiet', `-Dkomorium.out=${profile}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(existsSync(profile)).toBe(true);
    expect(calls(readProfile(profile), 'demo/App.main', 'org/apache/commons/lang3/StringUtils', false)).toBe(true);
  });
});
