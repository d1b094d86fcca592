/**
 * Issue 8, pathological methods: generated Java methods at the edges of what a class file allows
 * (code near 64 KB, 200 nested ifs and loops, 1,000 and 2,500 exception handlers, a tableswitch of
 * 10,000 cases, a lookupswitch of 5,000 sparse keys, table initialisers of 7,000 and 7,800 elements). Each is either instrumented correctly (the
 * program prints the same, verified, and the exact profile counts bytecodes in the method), or left as
 * it was and named in the `instrument` summary with a reason (and the program still prints the same).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { javac, jarDir, runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { verifyJar, describeVerify } from './support/verify.js';
import { listZipEntries } from './support/corpus.js';
import { readProfile } from '../src/profile/read.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { writeCode } from '../src/bytecode/code-writer.js';
import { isLabel } from '../src/bytecode/ir.js';

/** Class name → [method name, descriptor, Java source of the class]. */
const CASES: Record<string, { method: string; desc: string; src: () => string }> = {
  // ~56 KB of branchy code: over the limit once counters are added.
  Huge: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      const body = Array.from({ length: 3900 }, (_, k) => `    if (x > ${k}) x -= ${k % 97}; else x += ${(k * 7) % 89};`).join('\n');
      return `public class Huge {\n  public static int f(int x) {\n${body}\n    return x;\n  }\n}\n`;
    },
  },
  // ~33 KB of the same: about 108 KB once instrumented, so left as it was (the test takes either outcome).
  Large: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      const body = Array.from({ length: 2350 }, (_, k) => `    if (x > ${k}) x -= ${k % 97}; else x += ${(k * 7) % 89};`).join('\n');
      return `public class Large {\n  public static int f(int x) {\n${body}\n    return x;\n  }\n}\n`;
    },
  },
  // A 7,000-element table initialiser: 56 KB of straight-line <clinit>, over 64 KB with MaxPath's
  // checks every 50 instructions (bcprov's ReedSolomon), so instrumented without them.
  Tables: {
    method: '<clinit>',
    desc: '()V',
    src: () => {
      const values = Array.from({ length: 7000 }, (_, k) => 200 + ((k * 7919) % 30000)).join(', ');
      return `public class Tables {\n  static final int[] T = { ${values} };\n  public static int f(int x) {\n    return T[Math.floorMod(x, T.length)];\n  }\n}\n`;
    },
  },
  // A 7,800-element table (62 KB of <clinit>) and 600 more methods: the instrumented <clinit> fits,
  // but not with the initialisation of 600 method identifiers in front (jay-generated parsers such
  // as JRuby's RipperParser), so the identifiers go into a holder class, as an interface's do.
  Crowded: {
    method: '<clinit>',
    desc: '()V',
    src: () => {
      const values = Array.from({ length: 7800 }, (_, k) => 200 + ((k * 7919) % 30000)).join(', ');
      const small = Array.from({ length: 600 }, (_, k) => `  static int m${k}(int x) { return x * ${k + 1}; }`).join('\n');
      return `public class Crowded {\n  static final int[] T = { ${values} };\n${small}\n  public static int f(int x) {\n    return m599(T[Math.floorMod(x, T.length)]);\n  }\n}\n`;
    },
  },
  // 200 levels: ifs, loops and a try every tenth level.
  Nested: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      let open = '';
      let close = '';
      for (let k = 0; k < 200; k++) {
        const pad = ' '.repeat(4 + (k % 40));
        if (k % 10 === 9) {
          open += `${pad}try {\n`;
          close = `${pad}} catch (ArithmeticException e${k}) { s += ${k}; }\n` + close;
        } else if (k % 2 === 0) {
          open += `${pad}if (((s >>> ${k % 29}) & 3) != 3 || s < 0) {\n${pad}  s = s * 31 + ${k};\n`;
          close = `${pad}} else { s -= ${k}; }\n` + close;
        } else {
          open += `${pad}for (int i${k} = 0; i${k} < 1 + (s & 0); i${k}++) {\n${pad}  s ^= i${k} + ${k} / (1 + (x & 1));\n`;
          close = `${pad}}\n` + close;
        }
      }
      return `public class Nested {\n  public static int f(int x) {\n    int s = x;\n${open}    s += x;\n${close}    return s;\n  }\n}\n`;
    },
  },
  // 2,500 try/catch blocks: 2,500 exception handlers in one method.
  Handlers: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      const body = Array.from(
        { length: 2500 },
        (_, k) => `    try { s = g(s, ${k}); } catch (IllegalStateException e) { s += ${k % 13}; }`,
      ).join('\n');
      return (
        `public class Handlers {\n  static int g(int s, int k) { if ((s + k) % 7 == 0) throw new IllegalStateException(); return s * 3 + k; }\n` +
        `  public static int f(int x) {\n    int s = x;\n${body}\n    return s;\n  }\n}\n`
      );
    },
  },
  // 1,000 handlers: fits once instrumented.
  Handlers1k: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      const body = Array.from(
        { length: 1000 },
        (_, k) => `    try { s = Handlers.g(s, ${k}); } catch (IllegalStateException e) { s += ${k % 13}; }`,
      ).join('\n');
      return `public class Handlers1k {\n  public static int f(int x) {\n    int s = x;\n${body}\n    return s;\n  }\n}\n`;
    },
  },
  // tableswitch over 0..9,999: 100 distinct bodies, 100 labels each.
  Table: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      const groups: string[] = [];
      for (let g = 0; g < 100; g++) {
        const labels = Array.from({ length: 100 }, (_, i) => `case ${g * 100 + i}:`).join(' ');
        groups.push(`      ${labels}\n        return x * ${g + 3} + ${g};`);
      }
      return `public class Table {\n  public static int f(int x) {\n    switch (x) {\n${groups.join('\n')}\n      default: return -x;\n    }\n  }\n}\n`;
    },
  },
  // lookupswitch over 5,000 sparse keys: 50 distinct bodies.
  Lookup: {
    method: 'f',
    desc: '(I)I',
    src: () => {
      const groups: string[] = [];
      for (let g = 0; g < 50; g++) {
        const labels = Array.from({ length: 100 }, (_, i) => `case ${(g * 100 + i) * 7919 - 20_000_000}:`).join(' ');
        groups.push(`      ${labels}\n        return x ^ ${g * 31 + 1};`);
      }
      return `public class Lookup {\n  public static int f(int x) {\n    switch (x) {\n${groups.join('\n')}\n      default: return x + 1;\n    }\n  }\n}\n`;
    },
  },
};

const MAIN = `
public class Main {
  public static void main(String[] args) {
    int[] xs = { -5, 0, 1, 7, 99, 100, 4242, 9999, 10000, 123456, -20000000, 7919 * 250 - 20000000, 7919 * 4999 - 20000000 };
    StringBuilder sb = new StringBuilder();
    for (int x : xs) {
      sb.append(x).append(':')
        .append(Huge.f(x)).append(',').append(Large.f(x)).append(',').append(Nested.f(x)).append(',')
        .append(Handlers.f(x)).append(',').append(Handlers1k.f(x)).append(',').append(Table.f(x)).append(',').append(Lookup.f(x)).append(',').append(Tables.f(x)).append(',').append(Crowded.f(x)).append('\\n');
    }
    System.out.print(sb);
  }
}
`;

let work: string;
let jar: string;
let out: string;
let summary: string;

beforeAll(async () => {
  work = tmpDir('komorium-methods-');
  const src = join(work, 'src');
  mkdirSync(src);
  for (const [cls, c] of Object.entries(CASES)) writeFileSync(join(src, `${cls}.java`), c.src());
  writeFileSync(join(src, 'Main.java'), MAIN);
  javac(src, join(work, 'classes'), { release: 8, args: ['-J-Xss16m'] });
  jar = join(work, 'patho.jar');
  await jarDir(join(work, 'classes'), jar, { mainClass: 'Main' });
  out = join(work, 'patho-komorium.jar');
  summary = instrument(jar, out).stdout;
});

describe('pathological methods', () => {
  test('the instrumented jar verifies and prints the same', async () => {
    const v = verifyJar(out);
    expect(v.verified, describeVerify(v)).toBe(v.classes);
    const plain = await runJava({ cp: [jar], main: 'Main' });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.split('\n')).toHaveLength(14);
    const profiled = await runJava({
      cp: [out],
      main: 'Main',
      jvmArgs: ['-Dkomorium.agent=exact', '-Dkomorium.quiet=true', `-Dkomorium.out=${join(work, 'exact.kprof')}`],
    });
    expect(profiled.code, profiled.stderr).toBe(0);
    expect(profiled.stderr).toBe('');
    expect(profiled.stdout).toBe(plain.stdout);
  });

  test('each method is instrumented (the exact profile counts it) or left as it was and named with a reason', () => {
    const left = new Map<string, string>();
    for (const m of summary.matchAll(/^ {4}(\S+?)\.([\w<>]+)(\([^)]*\)\S+): (.+)$/gm)) left.set(`${m[1]}.${m[2]}${m[3]}`, m[4]!);
    const p = readProfile(join(work, 'exact.kprof'));
    const counted = new Map<string, number>();
    for (const n of p.nodes) {
      if (n.method) counted.set(`${n.method.className}.${n.method.name}${n.method.descriptor}`, (counted.get(`${n.method.className}.${n.method.name}${n.method.descriptor}`) ?? 0) + n.counter);
    }
    const outcome: string[] = [];
    for (const [cls, c] of Object.entries(CASES)) {
      const key = `${cls}.${c.method}${c.desc}`;
      const reason = left.get(key);
      if (reason !== undefined) {
        expect(reason.length).toBeGreaterThan(10);
        expect(counted.get(key) ?? 0, `${key} was left as it was, yet counted`).toBe(0);
        outcome.push(`${key}: left as it was (${reason})`);
      } else {
        expect(counted.get(key) ?? 0, `${key} is neither instrumented nor reported:\n${summary}`).toBeGreaterThan(0);
        outcome.push(`${key}: instrumented, ${counted.get(key)} bytecodes counted`);
      }
    }
    console.log(`pathological methods:\n  ${outcome.join('\n  ')}`);
    expect(summary).toMatch(/^note: 2 methods would outgrow 64 KiB with --max-path checks and were instrumented without them: Crowded\.<clinit>\(\)V, Tables\.<clinit>\(\)V$/m);
    expect(listZipEntries(out)).toContain('Crowded$$komorium.class');
    // Every name in the summary is one of the methods above.
    for (const k of left.keys()) expect(Object.entries(CASES).map(([cls, c]) => `${cls}.${c.method}${c.desc}`)).toContain(k);
  });
});

/**
 * kotlinc reuses the one-slot marker argument of its `$default` methods as the first half of a long
 * (Debian's kotlin-compiler: PerfUtilsKt.withMeasureWallAndThreadTimesAndMemory$default). javac never
 * does, so the method is compiled by javac with the long in slots 2-3 and then moved to slots 1-2.
 */
describe('a long kept in the last argument slot and the one after it', () => {
  test('is instrumented, verifies and prints the same', async () => {
    const dir = tmpDir('komorium-straddle-');
    const src = join(dir, 'src');
    mkdirSync(src);
    writeFileSync(
      join(src, 'Straddle.java'),
      `public class Straddle {
  static long f(int a, Object marker) {
    long t = a * 3_000_000_000L;
    if (a > 1) t += a; else t -= 7;
    for (int i = 0; i < a; i++) t ^= i;
    return t;
  }
  public static void main(String[] args) {
    for (int a = 0; a < 5; a++) System.out.println(f(a, null));
  }
}
`,
    );
    const classes = join(dir, 'classes');
    javac(src, classes, { release: 8 });
    const path = join(classes, 'Straddle.class');
    const cf = ClassFile.parse(readFileSync(path), 'Straddle.class');
    const m = cf.methods.find((x) => x.name === 'f')!;
    const attr = m.attributes.find((a) => a.name === 'Code')!;
    const code = readCode(cf, m, attr);
    // t: slots 2-3 → 1-2; the int i: slot 4 → 3.
    const moved = (v: number) => (v === 2 ? 1 : v === 4 ? 3 : v);
    let wide = 0;
    for (const n of code.nodes) {
      if (isLabel(n) || n.var === undefined) continue;
      if (n.var === 2) wide++;
      n.var = moved(n.var);
    }
    expect(wide).toBeGreaterThan(3);
    for (const f of code.frames?.values() ?? []) {
      // One VType per slot: [I, Object, J, T, I] → [I, J, T, I].
      f.locals = f.locals.filter((_, slot) => slot !== 1);
    }
    for (const s of code.attributes) if (s.kind === 'LocalVariableTable') s.entries = s.entries.filter((e) => e.index === 0);
    code.maxLocals = 4;
    m.attributes[m.attributes.indexOf(attr)] = writeCode(cf, m, code);
    writeFileSync(path, cf.toBytes());

    const plain = await runJava({ cp: [classes], main: 'Straddle', jvmArgs: ['-Xverify:all'] });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.split('\n')).toHaveLength(6);
    const out = join(dir, 'out');
    const summary = instrument(classes, out).stdout;
    expect(summary).toContain('left as they were: 0 methods');
    const exact = join(dir, 'exact.kprof');
    const profiled = await runJava({ cp: [out], main: 'Straddle', jvmArgs: ['-Xverify:all', '-Dkomorium.agent=exact', '-Dkomorium.quiet=true', `-Dkomorium.out=${exact}`] });
    expect(profiled.code, profiled.stderr).toBe(0);
    expect(profiled.stdout).toBe(plain.stdout);
    const counted = readProfile(exact).nodes.filter((n) => n.method?.name === 'f').reduce((s, n) => s + n.counter, 0);
    expect(counted).toBeGreaterThan(50);
  });
});
