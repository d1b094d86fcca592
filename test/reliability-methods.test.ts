/**
 * Issue 8, pathological methods: generated Java methods at the edges of what a class file allows
 * (code near 64 KB, 200 nested ifs and loops, 1,000 and 2,500 exception handlers, a tableswitch of
 * 10,000 cases, a lookupswitch of 5,000 sparse keys, a 7,000-element table initialiser). Each is either instrumented correctly (the
 * program prints the same, verified, and the exact profile counts bytecodes in the method), or left as
 * it was and named in the `instrument` summary with a reason (and the program still prints the same).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { javac, jarDir, runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { verifyJar, describeVerify } from './support/verify.js';
import { readProfile } from '../src/profile/read.js';

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
  // ~33 KB of the same: about 63 KB once instrumented, just under the limit (or left as it was).
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
        .append(Handlers.f(x)).append(',').append(Handlers1k.f(x)).append(',').append(Table.f(x)).append(',').append(Lookup.f(x)).append(',').append(Tables.f(x)).append('\\n');
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
    expect(summary).toMatch(/^note: 1 methods would outgrow 64 KiB with --max-path checks and were instrumented without them: Tables\.<clinit>\(\)V$/m);
    // Every name in the summary is one of the methods above.
    for (const k of left.keys()) expect(Object.entries(CASES).map(([cls, c]) => `${cls}.${c.method}${c.desc}`)).toContain(k);
  });
});
