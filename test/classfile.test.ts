import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassFile, findAttribute } from '../src/classfile/classfile.js';
import { ConstantPool } from '../src/classfile/constant-pool.js';
import {
  argSlots, isValidFieldDescriptor, isValidMethodDescriptor, parseMethodDescriptor, returnType, typeSize,
} from '../src/classfile/descriptor.js';
import { ACC, CONSTANT } from '../src/classfile/model.js';
import { decodeMutf8, encodeMutf8, Mutf8Error, mutf8Length } from '../src/classfile/mutf8.js';
import { ClassFormatError, KomoriumError } from '../src/errors.js';
import { debianJar, javaBaseClassesDir, javaBin } from './support/corpus.js';
import type { DebianJarName } from './support/corpus.js';

async function jarClasses(path: string): Promise<[string, Uint8Array][]> {
  const zip = await JSZip.loadAsync(readFileSync(path));
  const out: [string, Uint8Array][] = [];
  for (const [name, f] of Object.entries(zip.files)) {
    if (!f.dir && name.endsWith('.class')) out.push([name, await f.async('uint8array')]);
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

/** Looks entry i of `cp` up by its value through the builder for its tag. */
function findAgain(cp: ConstantPool, i: number): number {
  switch (cp.tag(i)) {
    case CONSTANT.Utf8:
      return cp.utf8Index(cp.utf8(i));
    case CONSTANT.Integer:
      return cp.integerIndex(cp.integer(i));
    case CONSTANT.Float:
      return cp.floatIndex(cp.floatBits(i));
    case CONSTANT.Long:
      return cp.longIndex(cp.long(i));
    case CONSTANT.Double:
      return cp.doubleIndex(cp.doubleBits(i));
    case CONSTANT.Class:
      return cp.classIndex(cp.className(i));
    case CONSTANT.String:
      return cp.stringIndex(cp.string(i));
    case CONSTANT.NameAndType: {
      const nt = cp.nameAndType(i);
      return cp.nameAndTypeIndex(nt.name, nt.desc);
    }
    case CONSTANT.Fieldref:
    case CONSTANT.Methodref:
    case CONSTANT.InterfaceMethodref: {
      const r = cp.memberRef(i);
      if (r.tag === CONSTANT.Fieldref) return cp.fieldrefIndex(r.owner, r.name, r.desc);
      return r.isInterface ? cp.interfaceMethodrefIndex(r.owner, r.name, r.desc) : cp.methodrefIndex(r.owner, r.name, r.desc);
    }
    case CONSTANT.MethodHandle: {
      const h = cp.methodHandle(i);
      return cp.methodHandleIndex(h.kind, h.refIndex);
    }
    case CONSTANT.MethodType:
      return cp.methodTypeIndex(cp.methodType(i));
    case CONSTANT.Dynamic:
    case CONSTANT.InvokeDynamic: {
      const d = cp.dynamic(i);
      return cp.tag(i) === CONSTANT.Dynamic ? cp.dynamicIndex(d.bsm, d.name, d.desc) : cp.invokeDynamicIndex(d.bsm, d.name, d.desc);
    }
    default:
      throw new Error(`entry ${i}: unexpected tag ${cp.tag(i)}`);
  }
}

/** Entry i of `cp` as its tag and decoded value: equal for two entries that mean the same. */
function valueOf(cp: ConstantPool, i: number): string {
  const tag = cp.tag(i);
  const v = (() => {
    switch (tag) {
      case CONSTANT.Utf8:
        return cp.utf8(i);
      case CONSTANT.Integer:
        return cp.integer(i);
      case CONSTANT.Float:
        return cp.floatBits(i);
      case CONSTANT.Long:
        return String(cp.long(i));
      case CONSTANT.Double:
        return String(cp.doubleBits(i));
      case CONSTANT.Class:
        return cp.className(i);
      case CONSTANT.String:
        return cp.string(i);
      case CONSTANT.NameAndType:
        return cp.nameAndType(i);
      case CONSTANT.MethodHandle: {
        const h = cp.methodHandle(i);
        return [h.kind, h.ref];
      }
      case CONSTANT.MethodType:
        return cp.methodType(i);
      case CONSTANT.Dynamic:
      case CONSTANT.InvokeDynamic:
        return cp.dynamic(i);
      default:
        return cp.memberRef(i);
    }
  })();
  return `${tag} ${JSON.stringify(v)}`;
}

/** Every .class file under `dir`, depth-first. */
function classFilesUnder(dir: string, out: string[] = []): string[] {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) classFilesUnder(p, out);
    else if (d.name.endsWith('.class')) out.push(p);
  }
  return out;
}

let tmp: string;
let sample: Uint8Array; // a small, ordinary class from commons-lang3
const SAMPLE = 'org/apache/commons/lang3/BooleanUtils.class';

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'komorium-classfile-'));
  const zip = await JSZip.loadAsync(readFileSync(debianJar('commons-lang3')));
  sample = await zip.file(SAMPLE)!.async('uint8array');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('modified UTF-8', () => {
  it('encodes ASCII as itself', () => {
    expect([...encodeMutf8('Ljava/lang/Object;')]).toEqual([...Buffer.from('Ljava/lang/Object;', 'latin1')]);
    expect(decodeMutf8(Buffer.from('hello'))).toBe('hello');
    expect(decodeMutf8(new Uint8Array(0))).toBe('');
  });

  it('encodes U+0000 as C0 80, never as a zero byte', () => {
    expect([...encodeMutf8('a\0b')]).toEqual([0x61, 0xc0, 0x80, 0x62]);
    expect(decodeMutf8(new Uint8Array([0x61, 0xc0, 0x80, 0x62]))).toBe('a\0b');
    expect(() => decodeMutf8(new Uint8Array([0x61, 0x00]))).toThrow(Mutf8Error);
  });

  it('encodes 2- and 3-byte characters like UTF-8', () => {
    expect([...encodeMutf8('é')]).toEqual([0xc3, 0xa9]);
    expect([...encodeMutf8('€')]).toEqual([0xe2, 0x82, 0xac]);
    expect([...encodeMutf8('\u07ff\u0800\uffff')]).toEqual([0xdf, 0xbf, 0xe0, 0xa0, 0x80, 0xef, 0xbf, 0xbf]);
    expect(decodeMutf8(encodeMutf8('Grüße, 世界'))).toBe('Grüße, 世界');
  });

  it('encodes a supplementary character as two 3-byte surrogates (6 bytes, not 4)', () => {
    const grin = '\u{1F600}';
    expect([...encodeMutf8(grin)]).toEqual([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]);
    expect(decodeMutf8(new Uint8Array([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]))).toBe(grin);
    // Standard UTF-8's 4-byte form is not modified UTF-8.
    expect(() => decodeMutf8(Buffer.from(grin, 'utf8'))).toThrow(Mutf8Error);
    // A lone surrogate survives a round trip (the JVM accepts it).
    expect(decodeMutf8(encodeMutf8('x\ud800y'))).toBe('x\ud800y');
  });

  it('rejects truncated sequences and bad continuation bytes, naming the offset', () => {
    expect(() => decodeMutf8(new Uint8Array([0x41, 0xc3]))).toThrow(/byte 1: truncated 2-byte/);
    expect(() => decodeMutf8(new Uint8Array([0xe2, 0x82]))).toThrow(/truncated 3-byte/);
    expect(() => decodeMutf8(new Uint8Array([0xc3, 0x41]))).toThrow(/byte 1: bad continuation/);
    expect(() => decodeMutf8(new Uint8Array([0x80]))).toThrow(/bad lead byte 0x80/);
    // Decoding a range checks only that range.
    expect(decodeMutf8(new Uint8Array([0x00, 0x41, 0x42, 0x00]), 1, 3)).toBe('AB');
  });

  it('handles strings longer than one fromCharCode chunk', () => {
    const ascii = 'a'.repeat(70_000);
    expect(decodeMutf8(encodeMutf8(ascii))).toBe(ascii);
    const mixed = 'é€\0x'.repeat(5000);
    expect(mutf8Length(mixed)).toBe(5000 * (2 + 3 + 2 + 1));
    expect(decodeMutf8(encodeMutf8(mixed))).toBe(mixed);
  });
});

describe('descriptors', () => {
  it('parses method descriptors into field descriptors', () => {
    expect(parseMethodDescriptor('()V')).toEqual({ args: [], ret: 'V' });
    expect(parseMethodDescriptor('(IJ[Ljava/lang/String;[[DLx;)Ljava/util/List;')).toEqual({
      args: ['I', 'J', '[Ljava/lang/String;', '[[D', 'Lx;'],
      ret: 'Ljava/util/List;',
    });
    expect(() => parseMethodDescriptor('(I')).toThrow(KomoriumError);
    expect(() => parseMethodDescriptor('(V)V')).toThrow(/invalid method descriptor/);
  });

  it('counts argument slots without this; long and double take two', () => {
    expect(argSlots('()V')).toBe(0);
    expect(argSlots('(IJD[JLjava/lang/Object;)V')).toBe(1 + 2 + 2 + 1 + 1);
    expect(typeSize('V')).toBe(0);
    expect(typeSize('J')).toBe(2);
    expect(typeSize('D')).toBe(2);
    expect(typeSize('[D')).toBe(1);
    expect(typeSize('Ljava/lang/Long;')).toBe(1);
    expect(returnType('(I)[J')).toBe('[J');
  });

  it('validates field and method descriptors (JVMS 4.3)', () => {
    for (const ok of ['I', 'Z', '[I', 'Ljava/lang/String;', '[[Lx/y;', 'L$;']) expect(isValidFieldDescriptor(ok), ok).toBe(true);
    for (const bad of ['', 'V', 'L;', 'Ljava/lang/String', 'Ljava.lang.String;', 'La//b;', 'L/a;', 'La/;', 'II', '[', 'Q', '[V', 'L[I;']) {
      expect(isValidFieldDescriptor(bad), bad).toBe(false);
    }
    expect(isValidFieldDescriptor('['.repeat(255) + 'I')).toBe(true);
    expect(isValidFieldDescriptor('['.repeat(256) + 'I')).toBe(false);
    for (const ok of ['()V', '(I)I', '([Ljava/lang/Object;J)[[D']) expect(isValidMethodDescriptor(ok), ok).toBe(true);
    for (const bad of ['', 'V', '()', '(I', '()II', '(V)V', ')V', '()Lx', '(La;)V;']) expect(isValidMethodDescriptor(bad), bad).toBe(false);
    expect(isValidMethodDescriptor(`(${'I'.repeat(255)})V`)).toBe(true);
    expect(isValidMethodDescriptor(`(${'I'.repeat(254)}J)V`)).toBe(false);
  });
});

describe('constant pool', () => {
  it('reads the names of a real class', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    expect(cf.thisClass).toBe('org/apache/commons/lang3/BooleanUtils');
    expect(cf.superClass).toBe('java/lang/Object');
    expect(cf.findMethod('toBoolean', '(Ljava/lang/Boolean;)Z')).toBeDefined();
    expect(cf.methods.every((m) => cf.cp.utf8(m.nameIndex) === m.name && cf.cp.utf8(m.descIndex) === m.desc)).toBe(true);
    expect(findAttribute(cf.attributes, 'SourceFile')).toBeDefined();
    expect(cf.cp.utf8(findAttribute(cf.attributes, 'SourceFile')!.info[1])).toBe('BooleanUtils.java');
  });

  it('finds existing entries instead of adding duplicates', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    const cp = cf.cp;
    const size = cp.size;
    const objectIndex = cp.classIndex('java/lang/Object');
    expect(cp.className(objectIndex)).toBe('java/lang/Object');
    expect(cp.utf8(cp.utf8Index('java/lang/Object'))).toBe('java/lang/Object');
    expect(cp.utf8Index('Code')).toBeLessThan(size);
    expect(cp.size).toBe(size);
    // An existing Methodref: javac's call to Object.<init> in the constructor.
    const init = cp.methodrefIndex('java/lang/Object', '<init>', '()V');
    expect(cp.size).toBe(size);
    expect(cp.memberRef(init)).toEqual({ tag: CONSTANT.Methodref, owner: 'java/lang/Object', name: '<init>', desc: '()V', isInterface: false });
  });

  it('appends every kind of entry once, and they survive toBytes and parse', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    const cp = cf.cp;
    const before = cp.size;
    const idx = {
      utf8: cp.utf8Index('new \0 string €\u{1F600}'),
      cls: cp.classIndex('komorium/New'),
      str: cp.stringIndex('a new string'),
      int: cp.integerIndex(-123456),
      float: cp.floatIndex(0x7fc00001), // a NaN with a payload
      long: cp.longIndex(-(2n ** 63n)),
      double: cp.doubleIndex(0x400921fb54442d18n), // π
      nat: cp.nameAndTypeIndex('field', 'J'),
      fref: cp.fieldrefIndex('komorium/New', 'field', 'J'),
      mref: cp.methodrefIndex('komorium/New', 'm', '(I)V'),
      iref: cp.interfaceMethodrefIndex('komorium/Iface', 'm', '()I'),
      mtype: cp.methodTypeIndex('(I)J'),
      condy: cp.dynamicIndex(3, 'constant', 'Ljava/lang/Object;'),
      indy: cp.invokeDynamicIndex(2, 'apply', '()Ljava/util/function/Function;'),
      module: cp.moduleIndex('komorium.mod'),
      pkg: cp.packageIndex('komorium/pkg'),
    };
    const mh = cp.methodHandleIndex(6, idx.mref);
    expect(Math.min(...Object.values(idx))).toBeGreaterThanOrEqual(before);
    // The second slot of the Long is unusable.
    expect(cp.has(idx.long + 1)).toBe(false);
    expect(() => cp.tag(idx.long + 1)).toThrow(/unusable slot after a Long or Double/);
    const grown = cp.size;
    // Find, not add, the second time.
    expect(cp.longIndex(-(2n ** 63n))).toBe(idx.long);
    expect(cp.methodrefIndex('komorium/New', 'm', '(I)V')).toBe(idx.mref);
    expect(cp.methodHandleIndex(6, idx.mref)).toBe(mh);
    expect(cp.integerIndex(-123456 >>> 0)).toBe(idx.int);
    expect(cp.size).toBe(grown);

    const back = ClassFile.parse(cf.toBytes(), SAMPLE);
    const p = back.cp;
    expect(p.size).toBe(grown);
    expect(p.utf8(idx.utf8)).toBe('new \0 string €\u{1F600}');
    expect(p.className(idx.cls)).toBe('komorium/New');
    expect(p.string(idx.str)).toBe('a new string');
    expect(p.integer(idx.int)).toBe(-123456);
    expect(p.floatBits(idx.float)).toBe(0x7fc00001);
    expect(Number.isNaN(p.float(idx.float))).toBe(true);
    expect(p.long(idx.long)).toBe(-(2n ** 63n));
    expect(p.double(idx.double)).toBe(Math.PI);
    expect(p.nameAndType(idx.nat)).toEqual({ name: 'field', desc: 'J' });
    expect(p.memberRef(idx.fref)).toMatchObject({ owner: 'komorium/New', name: 'field', desc: 'J', tag: CONSTANT.Fieldref });
    expect(p.memberRef(idx.iref)).toMatchObject({ owner: 'komorium/Iface', isInterface: true });
    expect(p.methodType(idx.mtype)).toBe('(I)J');
    expect(p.dynamic(idx.condy)).toEqual({ bsm: 3, name: 'constant', desc: 'Ljava/lang/Object;' });
    expect(p.tag(idx.condy)).toBe(CONSTANT.Dynamic);
    expect(p.dynamic(idx.indy)).toEqual({ bsm: 2, name: 'apply', desc: '()Ljava/util/function/Function;' });
    expect(p.tag(idx.indy)).toBe(CONSTANT.InvokeDynamic);
    expect(p.moduleName(idx.module)).toBe('komorium.mod');
    expect(p.packageName(idx.pkg)).toBe('komorium/pkg');
    expect(p.methodHandle(mh)).toMatchObject({ kind: 6, refIndex: idx.mref, ref: { owner: 'komorium/New', name: 'm' } });
    // The parsed pool finds the appended entries too.
    expect(p.stringIndex('a new string')).toBe(idx.str);
    expect(p.size).toBe(grown);
  });

  it('throws ClassFormatError naming the entry on a bad index or tag', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    const cp = cf.cp;
    const utf8 = cp.utf8Index('Code');
    expect(() => cp.memberRef(utf8)).toThrow(ClassFormatError);
    expect(() => cp.memberRef(utf8)).toThrow(`${SAMPLE}: constant pool index ${utf8} is not a Fieldref, Methodref or InterfaceMethodref (it is a Utf8)`);
    expect(() => cp.className(utf8)).toThrow(`constant pool index ${utf8} is not a Class (it is a Utf8)`);
    expect(() => cp.utf8(0)).toThrow(/index 0 is out of range/);
    expect(() => cp.utf8(cp.size)).toThrow(/out of range/);
    expect(() => cp.integer(-1)).toThrow(ClassFormatError);
    expect(() => cp.methodHandle(utf8)).toThrow(/is not a MethodHandle/);
    expect(() => cp.dynamic(utf8)).toThrow(/is not a Dynamic or InvokeDynamic/);
    expect(cp.has(0)).toBe(false);
    expect(cp.has(utf8)).toBe(true);
  });

  /** The class file bytes up to the end of a constant pool of `entries` (each a tag and its operands). */
  function poolOf(...entries: number[][]): Uint8Array {
    const count = entries.reduce((n, e) => n + (e[0] === CONSTANT.Long || e[0] === CONSTANT.Double ? 2 : 1), 1);
    return Uint8Array.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, count >> 8, count & 0xff, ...entries.flat()]);
  }

  it('reports undecodable Utf8 constants as ClassFormatError', () => {
    const cp = ConstantPool.read(poolOf([CONSTANT.Utf8, 0, 2, 0x41, 0x00]), 'x.class');
    expect(() => cp.utf8(1)).toThrow(/x\.class: constant pool index 1: invalid modified UTF-8 at byte 1/);
    // Find-or-add never matches it: adding "A\0" gives a new, valid entry.
    expect(cp.utf8Index('A\0')).toBe(2);
    // Appended after the pool as read, as javac would encode it (U+0000 as C0 80).
    const table = new Uint8Array(cp.byteLength);
    expect(cp.writeTo(table, 0)).toBe(table.length);
    expect([...table]).toEqual([CONSTANT.Utf8, 0, 2, 0x41, 0x00, CONSTANT.Utf8, 0, 3, 0x41, 0xc0, 0x80]);
  });

  it('finds the first of two equal entries, as javac would use it, and not an odd encoding', () => {
    const ab = [CONSTANT.Utf8, 0, 2, 0x61, 0x62];
    const overlong = [CONSTANT.Utf8, 0, 3, 0xc1, 0xa1, 0x62];
    const long = [CONSTANT.Long, 0, 0, 0, 1, 0, 0, 0, 2];
    const cp = ConstantPool.read(poolOf(overlong, ab, ab, [CONSTANT.Class, 0, 3], [CONSTANT.Class, 0, 2], long), 'x.class');
    // Index 1 decodes to "ab" too, through an overlong encoding of 'a'.
    expect(cp.utf8(1)).toBe('ab');
    expect(cp.utf8Index('ab')).toBe(2);
    expect(cp.classIndex('ab')).toBe(5);
    expect(cp.longIndex((1n << 32n) | 2n)).toBe(6);
    expect(cp.size).toBe(8);
    expect(cp.end).toBe(10 + 6 + 5 + 5 + 3 + 3 + 9);
  });

  it('tells apart entries of different tags with the same operands', () => {
    // Class, String and MethodType entries naming one Utf8 have the same operand bytes; thousands
    // of them make the probes of the find-or-add table run into each other.
    const cp = ConstantPool.empty('many.class');
    const names = Array.from({ length: 4000 }, (_, i) => `n${i}`);
    const made = names.map((n) => [cp.classIndex(n), cp.stringIndex(n), cp.methodTypeIndex(n)]);
    const size = cp.size;
    names.forEach((n, i) => {
      expect([cp.classIndex(n), cp.stringIndex(n), cp.methodTypeIndex(n)]).toEqual(made[i]);
      expect(made[i].map((j) => cp.tag(j))).toEqual([CONSTANT.Class, CONSTANT.String, CONSTANT.MethodType]);
    });
    expect(cp.size).toBe(size);
  });

  it('refuses to grow past 65,535 entries', () => {
    const cp = ConstantPool.empty('big.class');
    for (let i = 1; i < 0xffff; i++) cp.utf8Index(`s${i}`);
    expect(cp.size).toBe(0xffff);
    expect(cp.utf8Index('s1')).toBe(1); // finding still works
    expect(() => cp.utf8Index('one too many')).toThrow(KomoriumError);
    expect(() => cp.utf8Index('one too many')).toThrow(/big\.class: constant pool is full/);
    expect(() => cp.utf8Index('x'.repeat(70_000))).toThrow(KomoriumError);
  });
});

describe('class files', () => {
  const JARS: DebianJarName[] = ['guava', 'commons-lang3', 'rhino', 'ecj', 'jflex', 'asm'];

  it('round-trips every class of the Debian corpus jars byte for byte', async () => {
    const counts: Record<string, number> = {};
    const mismatches: string[] = [];
    for (const jar of JARS) {
      const classes = await jarClasses(debianJar(jar));
      counts[jar] = classes.length;
      for (const [name, bytes] of classes) {
        if (!sameBytes(ClassFile.parse(bytes, name).toBytes(), bytes)) mismatches.push(`${jar}!${name}`);
      }
    }
    console.log(`byte-identical round trip: ${JSON.stringify(counts)}`);
    expect(mismatches).toEqual([]);
    expect(counts.guava).toBeGreaterThan(2000);
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
  });

  it('finds every entry of real constant pools by its value, the first of equal ones', async () => {
    let looked = 0;
    let withDuplicates = 0;
    const wrong: string[] = [];
    for (const jar of ['guava', 'ecj', 'rhino', 'commons-lang3'] as const) {
      for (const [name, bytes] of await jarClasses(debianJar(jar))) {
        const cp = ClassFile.parse(bytes, name).cp;
        const size = cp.size;
        const values = new Map<string, number>();
        for (let i = 1; i < size; i++) if (cp.has(i) && !values.has(valueOf(cp, i))) values.set(valueOf(cp, i), i);
        const duplicates = values.size < [...Array(size).keys()].filter((i) => cp.has(i)).length;
        if (duplicates) withDuplicates++;
        for (let i = 1; i < size; i++) {
          if (!cp.has(i)) continue;
          const found = findAgain(cp, i);
          looked++;
          if (valueOf(cp, found) !== valueOf(cp, i)) wrong.push(`${jar}!${name}: entry ${i} found as ${found}, another value`);
          // Without duplicates (javac writes none), the entry found is this one. ecj writes some:
          // then an entry whose operand is the second of two equal ones is not found but added.
          else if (found !== i && (found > i || !duplicates) && !(duplicates && found >= size)) {
            wrong.push(`${jar}!${name}: entry ${i} found as ${found}`);
          }
        }
        if (!duplicates && cp.size !== size) wrong.push(`${jar}!${name}: grew from ${size} to ${cp.size}`);
      }
    }
    console.log(`find-or-add: ${looked} entries looked up again; ${withDuplicates} classes have equal entries`);
    expect(wrong).toEqual([]);
    expect(looked).toBeGreaterThan(400_000);
  });

  it('round-trips every class of java.base byte for byte', () => {
    const files = classFilesUnder(javaBaseClassesDir());
    const mismatches: string[] = [];
    for (const f of files) {
      const bytes = readFileSync(f);
      if (!sameBytes(ClassFile.parse(bytes, f).toBytes(), bytes)) mismatches.push(f);
    }
    console.log(`byte-identical round trip: java.base ${files.length} classes`);
    expect(files.length).toBeGreaterThan(5000);
    expect(mismatches).toEqual([]);
  });

  it('parses and writes guava quickly', async () => {
    const classes = await jarClasses(debianJar('guava'));
    const bytes = classes.reduce((n, [, b]) => n + b.length, 0);
    const t0 = performance.now();
    for (const [name, b] of classes) ClassFile.parse(b, name).toBytes();
    const ms = performance.now() - t0;
    console.log(
      `guava parse+write: ${classes.length} classes in ${ms.toFixed(0)} ms = ${Math.round((classes.length / ms) * 1000)} classes/s, ` +
        `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(0)} MB/s`,
    );
    // The target is well under 300 ms; the bound leaves room for a loaded shared machine.
    expect(ms).toBeLessThan(1500);
  });

  it('keeps attributes raw, as views, and reuses indices when nothing changed', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    const m = cf.findMethod('toBoolean', '(Ljava/lang/Boolean;)Z')!;
    const code = findAttribute(m.attributes, 'Code')!;
    expect(code.info).toBeInstanceOf(Uint8Array);
    expect(code.info.constructor).toBe(Uint8Array);
    expect(cf.cp.utf8(code.nameIndex)).toBe('Code');
    const size = cf.cp.size;
    expect(sameBytes(cf.toBytes(), sample)).toBe(true);
    expect(cf.cp.size).toBe(size);
  });

  it('parses Buffers into plain Uint8Array views', () => {
    const cf = ClassFile.parse(Buffer.from(sample), SAMPLE);
    expect(cf.attributes[0].info.constructor).toBe(Uint8Array);
  });

  it('adds members, attributes and interfaces, and the JVM loads the result', () => {
    const src = join(tmp, 'Hello.java');
    writeFileSync(
      src,
      'public class Hello {\n' +
        '  public static void main(String[] a) throws Exception {\n' +
        '    System.out.println(Hello.class.getDeclaredField("added").getInt(null) + " " +\n' +
        '      java.io.Serializable.class.isAssignableFrom(Hello.class) + " " + Hello.class.getDeclaredMethods().length);\n' +
        '  }\n' +
        '}\n',
    );
    execFileSync(javaBin('javac'), ['-d', tmp, src]);
    const file = join(tmp, 'Hello.class');
    const cf = ClassFile.parse(readFileSync(file), 'Hello.class');
    const constantValue = new Uint8Array(2);
    new DataView(constantValue.buffer).setUint16(0, cf.cp.integerIndex(4242));
    cf.addField(ACC.PUBLIC | ACC.STATIC | ACC.FINAL, 'added', 'I', [cf.makeAttribute('ConstantValue', constantValue)]);
    cf.interfaces.push('java/io/Serializable');
    cf.setAttribute(cf.attributes, 'komorium.Marker', new Uint8Array([1, 2, 3]));
    expect(() => cf.addField(0, 'added', 'I')).toThrow(/already exists/);
    expect(() => cf.addMethod(0, 'x', '(V)V')).toThrow(/invalid method descriptor/);
    writeFileSync(file, cf.toBytes());

    const again = ClassFile.parse(readFileSync(file), 'Hello.class');
    expect(again.interfaces).toEqual(['java/io/Serializable']);
    expect(again.findField('added', 'I')?.access).toBe(ACC.PUBLIC | ACC.STATIC | ACC.FINAL);
    expect([...findAttribute(again.attributes, 'komorium.Marker')!.info]).toEqual([1, 2, 3]);
    expect(cf.removeAttributes(again.attributes, 'komorium.Marker')).toBe(1);
    expect(findAttribute(again.attributes, 'komorium.Marker')).toBeUndefined();

    const out = execFileSync(javaBin('java'), ['-Xshare:off', '-cp', tmp, 'Hello'], { encoding: 'utf8' });
    expect(out.trim()).toBe('4242 true 1');
  });

  it('writes a changed name through a new constant', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    cf.superClass = 'java/lang/Number';
    const m = cf.methods[0];
    m.name = 'renamedByTest';
    const back = ClassFile.parse(cf.toBytes(), SAMPLE);
    expect(back.superClass).toBe('java/lang/Number');
    expect(back.methods[0].name).toBe('renamedByTest');
    expect(back.methods[0].nameIndex).toBe(m.nameIndex);
    expect(back.cp.size).toBeGreaterThan(ClassFile.parse(sample, SAMPLE).cp.size);
  });
});

describe('malformed class files', () => {
  function parseError(bytes: Uint8Array, entry = 'bad/Thing.class'): ClassFormatError {
    try {
      ClassFile.parse(bytes, entry);
    } catch (e) {
      expect(e).toBeInstanceOf(ClassFormatError);
      return e as ClassFormatError;
    }
    throw new Error('parsed without an error');
  }

  it('rejects a bad magic number', () => {
    const e = parseError(new Uint8Array([0xca, 0xfe, 0xd0, 0x0d, 0, 0, 0, 52, 0, 1]));
    expect(e.entry).toBe('bad/Thing.class');
    expect(e.message).toBe('bad/Thing.class: bad magic 0xcafed00d (not a class file)');
    expect(parseError(new Uint8Array([0xca])).detail).toMatch(/truncated at byte 1 while reading the magic number/);
  });

  it('rejects every truncation of a real class, saying where', () => {
    const seen = new Set<string>();
    for (let len = 0; len < sample.length; len++) {
      const e = parseError(sample.subarray(0, len));
      expect(e.message.startsWith('bad/Thing.class: ')).toBe(true);
      expect(e.detail).toMatch(/truncated at byte \d+ while reading /);
      seen.add(e.detail.replace(/\d+/g, 'N').replace(/: .*/, ''));
    }
    expect([...seen].some((d) => d.includes('the constant pool'))).toBe(true);
    expect([...seen].some((d) => d.includes('method N of N'))).toBe(true);
    expect([...seen].some((d) => d.includes('the class attributes'))).toBe(true);
  });

  it('rejects trailing bytes', () => {
    const withGarbage = new Uint8Array(sample.length + 3);
    withGarbage.set(sample);
    expect(parseError(withGarbage).detail).toBe(`3 trailing bytes after the end of the class (at byte ${sample.length})`);
  });

  it('rejects constant pool indices out of range', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    const bytes = Uint8Array.from(sample);
    // this_class follows the pool and access_flags: find it by its value.
    let at = -1;
    const thisIndex = cf.cp.classIndex(cf.thisClass);
    for (let i = 10; i < bytes.length - 4; i++) {
      if (((bytes[i] << 8) | bytes[i + 1]) === cf.access && ((bytes[i + 2] << 8) | bytes[i + 3]) === thisIndex) {
        at = i + 2;
        break;
      }
    }
    expect(at).toBeGreaterThan(10);
    bytes[at] = 0xff;
    bytes[at + 1] = 0xf0;
    expect(parseError(bytes).detail).toBe(`this_class: constant pool index ${0xfff0} is out of range (1..${cf.cp.size - 1})`);
  });

  it('rejects an unknown constant pool tag and a Long in the last slot', () => {
    const head = [0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52];
    expect(parseError(new Uint8Array([...head, 0, 2, 2, 0, 0])).detail).toBe('bad constant pool tag 2 at index 1 (byte 10)');
    expect(parseError(new Uint8Array([...head, 0, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0])).detail).toMatch(/index 1 is a Long without room/);
    expect(parseError(new Uint8Array([...head, 0, 0])).detail).toMatch(/constant_pool_count is 0/);
  });

  it('rejects an invalid member descriptor, naming the member', () => {
    const cf = ClassFile.parse(sample, SAMPLE);
    cf.methods[0].desc = '(Q)V';
    const e = parseError(cf.toBytes(), SAMPLE);
    expect(e.detail).toBe(`method ${cf.methods[0].name}: invalid descriptor '(Q)V'`);
  });

  it('never throws anything but ClassFormatError on corrupted bytes', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let parsed = 0;
    let rejected = 0;
    for (let round = 0; round < 3000; round++) {
      const bytes = Uint8Array.from(sample);
      for (let k = 1 + rnd(4); k > 0; k--) bytes[8 + rnd(bytes.length - 8)] = rnd(256);
      let cf: ClassFile;
      try {
        cf = ClassFile.parse(bytes, 'fuzz.class');
      } catch (e) {
        if (!(e instanceof ClassFormatError)) throw e;
        rejected++;
        continue;
      }
      parsed++;
      // What parses writes back unchanged.
      expect(sameBytes(cf.toBytes(), bytes)).toBe(true);
    }
    console.log(`fuzz: ${parsed} parsed, ${rejected} rejected with ClassFormatError`);
    expect(rejected).toBeGreaterThan(0);
    expect(parsed + rejected).toBe(3000);
  });
});
