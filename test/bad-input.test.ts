/**
 * Bad input (issues 2 and 3): each broken class, jar or method gets a clear message naming the
 * entry, class or method; the CLI exits 2 and writes nothing, or (--skip-broken, methods too large
 * once instrumented) copies what it cannot rewrite and reports it.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { javac, jarDir, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli } from './support/komorium.js';
import { readZipEntry } from './support/corpus.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { CONSTANT } from '../src/classfile/model.js';

let work: string;
let small: Uint8Array;

function indexOf(hay: Uint8Array, needle: number[]): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let k = 0; k < needle.length; k++) if (hay[i + k] !== needle[k]) continue outer;
    return i;
  }
  throw new Error(`pattern ${needle.map((b) => b.toString(16)).join(' ')} not found`);
}

/** A jar holding Small.class as `mutate` leaves it. */
async function jarWith(name: string, mutate: (b: Uint8Array) => Uint8Array): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'Small.class'), mutate(Uint8Array.from(small)));
  const jar = join(work, `${name}.jar`);
  await jarDir(dir, jar);
  return jar;
}

function expectRefused(input: string, pattern: RegExp): void {
  const out = join(work, `out-${readdirSync(work).length}.jar`);
  const before = readFileSync(input);
  const r = cli(['instrument', input, '-o', out]);
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(existsSync(out)).toBe(false);
  expect(readdirSync(work).filter((f) => f.includes('.tmp-'))).toEqual([]);
  expect(Buffer.compare(readFileSync(input), before)).toBe(0); // the input is never modified
}

beforeAll(() => {
  work = tmpDir('komorium-bad-');
  javac([join(repoRoot, 'test', 'fixtures', 'bad', 'Small.java')], join(work, 'classes'), { release: 8 });
  small = readFileSync(join(work, 'classes', 'Small.class'));
});

describe('instrument refuses broken input with exit 2, naming it, writing nothing', () => {
  test('a jar that is not a zip', () => {
    const f = join(work, 'notzip.jar');
    writeFileSync(f, 'this is not a zip file\n');
    expectRefused(f, /notzip\.jar: not a jar \(zip\) file/);
  });

  test('a missing input', () => {
    const r = cli(['instrument', join(work, 'missing.jar')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing\.jar/);
  });

  test('a bad magic number', async () => {
    expectRefused(await jarWith('magic', (b) => ((b[0] = 0xca), (b[3] = 0x00), b)), /Small\.class: bad magic/);
  });

  test('a truncated class', async () => {
    expectRefused(await jarWith('trunc', (b) => b.subarray(0, Math.floor(b.length / 2))), /Small\.class: truncated/);
  });

  test('a constant pool index out of range', async () => {
    // this_class follows the constant pool and access_flags: find it through the class's own name.
    expectRefused(
      await jarWith('cpindex', (b) => {
        const cpCount = (b[8] << 8) | b[9];
        const at = indexOf(b, [0x00, 0x21]); // ACC_PUBLIC|ACC_SUPER just before this_class
        void cpCount;
        b[at + 2] = 0xff;
        b[at + 3] = 0xf0;
        return b;
      }),
      /Small\.class: .*constant pool index 65520/,
    );
  });

  test('an unknown opcode', async () => {
    // f: iload_0, bipush 31, imul, bipush 7, iadd, ireturn; imul becomes the undefined opcode 0xcb.
    expectRefused(
      await jarWith('opcode', (b) => ((b[indexOf(b, [0x1a, 0x10, 0x1f, 0x68]) + 3] = 0xcb), b)),
      /Small\.class: .*Small\.f\(I\)I.*(unknown|undefined|invalid) opcode/i,
    );
  });

  test('a branch into the middle of an instruction', async () => {
    // g: iload_0, ifle +5 …; the branch offset becomes +2, inside the ifle itself.
    expectRefused(
      await jarWith('branch', (b) => ((b[indexOf(b, [0x1a, 0x9e, 0x00, 0x05]) + 3] = 0x02), b)),
      /Small\.class: .*Small\.g\(I\)I.*middle of an instruction/i,
    );
  });

  test('--skip-broken copies a broken class unchanged and warns', async () => {
    const input = await jarWith('skip', (b) => b.subarray(0, 40));
    const out = join(work, 'skipped.jar');
    const r = cli(['instrument', input, '-o', out, '--skip-broken']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/warning: Small\.class: copied unchanged/);
    expect(existsSync(out)).toBe(true);
  });

  test('--skip-broken: calls into a class broken past its header keep their signatures', async () => {
    // Small's header reads, so it is planned before its body is found broken (f gets an undefined
    // opcode); Caller, rewritten beside it, must then call Small.g as it was, not an extended g.
    const dir = join(work, 'past-header');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Caller.java'), 'public class Caller {\n  public static void main(String[] a) { System.out.println(Small.g(1)); }\n}\n');
    javac([join(dir, 'Caller.java')], dir, { release: 8, classpath: [join(work, 'classes')] });
    const broken = Uint8Array.from(small);
    broken[indexOf(broken, [0x1a, 0x10, 0x1f, 0x68]) + 3] = 0xcb;
    writeFileSync(join(dir, 'Small.class'), broken);
    const input = join(work, 'past-header.jar');
    await jarDir(dir, input);
    const out = join(work, 'past-header-out.jar');
    const r = cli(['instrument', input, '-o', out, '--skip-broken']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/warning: Small\.class: copied unchanged, it is broken: .*opcode/i);
    expect(r.stdout).toMatch(/classes +2 \(1 rewritten, 0 left alone by --include\/--exclude, 1 broken and copied\)/);
    expect(Buffer.compare(readZipEntry(out, 'Small.class')!, broken)).toBe(0);
    const caller = ClassFile.parse(readZipEntry(out, 'Caller.class')!, 'Caller.class');
    const callsIntoSmall: string[] = [];
    for (let i = 1; i < caller.cp.size; i++) {
      if (caller.cp.tag(i) !== CONSTANT.Methodref) continue;
      const ref = caller.cp.memberRef(i);
      if (ref.owner === 'Small') callsIntoSmall.push(`${ref.name}${ref.desc}`);
    }
    expect(callsIntoSmall).toEqual(['g(I)I']);
  });

  // One byte of Debian's commons-lang3 changed (nio → ni/), as a damaged download would: the JVM
  // refuses both classes with a ClassFormatError. The descriptor is a method's own in Charsets
  // (read with the headers) and only a call site's in StringUtils (read with the code).
  const MALFORMED = [
    { entry: 'org/apache/commons/lang3/Charsets.class', where: /class org\.apache\.commons\.lang3\.Charsets, method toCharset: invalid descriptor/ },
    {
      entry: 'org/apache/commons/lang3/StringUtils.class',
      where: /org\.apache\.commons\.lang3\.StringUtils\.toString\(\[BLjava\/lang\/String;\)Ljava\/lang\/String;: invokestatic at \d+ names org\.apache\.commons\.lang3\.Charsets\.toCharset with an invalid descriptor/,
    },
  ];
  for (const { entry, where } of MALFORMED) {
    test(`a malformed descriptor in ${entry} is named with its class and method, and --skip-broken copies the class`, async () => {
      const name = entry.replace(/.*\//, '').replace('.class', '');
      const { readInput, jarBytes } = await import('../src/jar/index.js');
      const entries = (await readInput('/usr/share/java/commons-lang3.jar')).entries;
      const good = Buffer.from('(Ljava/lang/String;)Ljava/nio/charset/Charset;');
      const bad = Buffer.from('(Ljava/lang/String;)Ljava/ni//charset/Charset;');
      const target = entries.find((e) => e.name === entry)!;
      const at = Buffer.from(target.data).indexOf(good);
      expect(at).toBeGreaterThan(0);
      const broken = Buffer.from(target.data);
      bad.copy(broken, at);
      target.data = broken;
      const input = join(work, `lang3-${name}.jar`);
      writeFileSync(input, await jarBytes(entries));

      expectRefused(input, new RegExp(`${entry.replace(/[/.$]/g, '\\$&')}: ${where.source}`));

      const out = join(work, `lang3-${name}-skipped.jar`);
      const r = cli(['instrument', input, '-o', out, '--skip-broken']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`warning: ${entry.replace(/[/.$]/g, '\\$&')}: copied unchanged, .*${where.source}`));
      expect(r.stdout).toMatch(/1 broken and copied/);
      expect(Buffer.compare(readZipEntry(out, entry)!, broken)).toBe(0);
    });
  }
});

test('a method too large once instrumented is left as it was, reported by name, and the class still runs', async () => {
  const dir = join(work, 'big');
  mkdirSync(dir);
  // About 50 KB of branches: fine for javac, over 65,535 bytes with a counter in every block (with or
  // without MaxPath's checks).
  const body = Array.from({ length: 2000 }, (_, i) => `        if (x > ${i}) x = x * 31 + ${1000 + i}; else x -= ${i % 89};`).join('\n');
  writeFileSync(
    join(dir, 'Big.java'),
    `public class Big {\n    static int huge(int x) {\n${body}\n        return x;\n    }\n` +
      `    public static void main(String[] a) { System.out.println(huge(1)); }\n}\n`,
  );
  javac([join(dir, 'Big.java')], join(dir, 'classes'), { release: 8 });
  const jar = join(work, 'big.jar');
  await jarDir(join(dir, 'classes'), jar, { mainClass: 'Big' });
  const out = join(work, 'big-komorium.jar');
  const r = cli(['instrument', jar, '-o', out]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/left as they were: 1 methods/);
  expect(r.stdout).toMatch(/Big\.huge\(I\)I: .*65535/);
  const plain = await runJava({ cp: [jar], main: 'Big' });
  const profiled = await runJava({ cp: [out], main: 'Big', jvmArgs: ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(work, 'big.kprof')}`] });
  expect(profiled.code, profiled.stderr).toBe(0);
  expect(profiled.stdout).toBe(plain.stdout);
  copyFileSync(out, join(work, 'kept.jar'));
});
