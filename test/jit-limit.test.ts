/**
 * Issue 23: HotSpot never JIT-compiles a method of more than 8,000 bytes of bytecode (HugeMethodLimit)
 * unless the JVM runs with -XX:-DontCompileHugeMethods, which no user passes. A method under the limit
 * before instrumentation must stay compilable after it with plain `java`: `Dispatch.f` (2.9 KB, 8.0 KB
 * inline-instrumented) gets the compact form, with the same counts; `Giant.f` (6.6 KB, 11.7 KB even
 * compact) is left as it was. `--jit-limit ignore` keeps the inline form, as before. Call lines never
 * push a method past the limit: `Lines.f` (3.1 KB, 5.1 KB instrumented, 8.3 KB with a call-line store
 * before each of its 400 calls) is instrumented without them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { javac, jarDir, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';
import { verifyJar, describeVerify } from './support/verify.js';
import { readProfile } from '../src/profile/read.js';

/** A switch of `n` cases, every other one calling a small method: many blocks, checks and calls. */
function dispatchClass(name: string, n: number): string {
  const cases = Array.from({ length: n }, (_, k) =>
    k % 2 === 0 ? `      case ${k}: return g(x, ${k}) + ${k};` : `      case ${k}: x = x * ${(k % 7) + 3} + ${k}; if (x > ${k * 13}) x -= ${k}; return x;`,
  );
  return `public class ${name} {\n  static int g(int x, int k) { return x ^ k; }\n  public static int f(int op, int x) {\n    switch (op) {\n${cases.join('\n')}\n      default: return -x;\n    }\n  }\n}\n`;
}

/** `n` calls, each on a line of its own. */
function linesClass(n: number): string {
  const calls = Array.from({ length: n }, (_, k) => `    x = g(x, ${k});`);
  return `public class Lines {\n  static int g(int x, int k) { return x ^ k; }\n  public static int f(int x) {\n${calls.join('\n')}\n    return x;\n  }\n}\n`;
}

const MAIN = `public class Main {
  public static void main(String[] args) {
    long sum = 0;
    for (int i = 0; i < 200000; i++) sum += Dispatch.f(i % 160, i) + Giant.f(i % 330, i) + (i % 10 == 0 ? Lines.f(i) : 0);
    System.out.println("sum " + sum);
  }
}
`;

let work: string;
let jar: string;
const out: Record<'fit' | 'ignore' | 'noCallLines', { jar: string; summary: string }> = {} as never;

beforeAll(async () => {
  work = tmpDir('komorium-jit-limit-');
  const src = join(work, 'src');
  mkdirSync(src);
  writeFileSync(join(src, 'Dispatch.java'), dispatchClass('Dispatch', 150));
  writeFileSync(join(src, 'Giant.java'), dispatchClass('Giant', 320));
  writeFileSync(join(src, 'Lines.java'), linesClass(400));
  writeFileSync(join(src, 'Main.java'), MAIN);
  javac(src, join(work, 'classes'), { release: 8 });
  jar = join(work, 'jit.jar');
  await jarDir(join(work, 'classes'), jar, { mainClass: 'Main' });
  for (const mode of ['fit', 'ignore'] as const) {
    const o = join(work, `jit-${mode}.jar`);
    out[mode] = { jar: o, summary: instrument(jar, o, ['--jit-limit', mode]).stdout };
  }
  const o = join(work, 'jit-no-call-lines.jar');
  out.noCallLines = { jar: o, summary: instrument(jar, o, ['--no-call-lines']).stdout };
});

/** Methods HotSpot compiled (-XX:+PrintCompilation lines), and the program's own last line. */
async function compiled(cp: string, extra: string[] = []): Promise<{ methods: Set<string>; result: string }> {
  const r = await runJava({ cp: [cp], main: 'Main', jvmArgs: ['-XX:+PrintCompilation', '-Dkomorium.agent=none', ...extra] });
  expect(r.code, r.stderr).toBe(0);
  const methods = new Set<string>();
  for (const m of r.stdout.matchAll(/ (\w+)::([\w$<>]+) \(\d+ bytes\)/g)) methods.add(`${m[1]}.${m[2]}`);
  // PrintCompilation writes to the same stdout from the compiler threads: the program's line may share
  // a line with one of theirs.
  return { methods, result: /\bsum -?\d+/.exec(r.stdout)?.[0] ?? '' };
}

/** Bytecodes the exact agent counted per method (self), keyed Class.name. */
async function exactCounts(cp: string, name: string): Promise<Map<string, number>> {
  const kprof = join(work, `${name}.kprof`);
  const r = await runJava({ cp: [cp], main: 'Main', jvmArgs: ['-Dkomorium.agent=exact', '-Dkomorium.quiet=true', `-Dkomorium.out=${kprof}`] });
  expect(r.code, r.stderr).toBe(0);
  const counts = new Map<string, number>();
  for (const n of readProfile(kprof).nodes) {
    if (!n.method) continue;
    const key = `${n.method.className}.${n.method.name}`;
    counts.set(key, (counts.get(key) ?? 0) + n.counter);
  }
  return counts;
}

describe('HugeMethodLimit', () => {
  test('the summary counts no method crossing the limit, names the compact one and the one left as it was', () => {
    const s = out.fit.summary;
    expect(s).toMatch(/^ {2}JIT limit 0 methods crossed HotSpot's 8000-byte HugeMethodLimit \(1 kept under it by the compact form\)$/m);
    expect(s).toMatch(/^note: 1 methods would have grown past the HugeMethodLimit and count through TC helper calls instead \(same counts\): Dispatch\.f\(II\)I$/m);
    expect(s).toMatch(/^ {4}Giant\.f\(II\)I: 6\d{3} bytes would grow to \d+ \(\d+ in the compact form\), past HotSpot's 8000-byte HugeMethodLimit/m);
    // Without fitting, both cross it, as before this issue.
    expect(out.ignore.summary).toMatch(/^ {2}JIT limit 2 methods crossed/m);
  });

  test('with plain java, HotSpot compiles both methods of the fitted jar, and neither of the inline one', async () => {
    const v = verifyJar(out.fit.jar);
    expect(v.verified, describeVerify(v)).toBe(v.classes);
    const plain = await compiled(jar);
    const fit = await compiled(out.fit.jar);
    const inline = await compiled(out.ignore.jar);
    expect(plain.result).toMatch(/^sum \d+$/);
    expect(fit.result).toBe(plain.result);
    expect(inline.result).toBe(plain.result);
    expect([...fit.methods]).toEqual(expect.arrayContaining(['Dispatch.f$komorium', 'Giant.f']));
    expect(inline.methods.has('Dispatch.f$komorium')).toBe(false);
    expect(inline.methods.has('Giant.f$komorium')).toBe(false);
    // -XX:-DontCompileHugeMethods is what the inline form needs.
    const flagged = await compiled(out.ignore.jar, ['-XX:-DontCompileHugeMethods']);
    expect([...flagged.methods]).toEqual(expect.arrayContaining(['Dispatch.f$komorium', 'Giant.f$komorium']));
  });

  test('call lines alone never push a method past the limit: Lines.f is instrumented without them and compiled', async () => {
    const note = /^note: 1 methods would have grown past the HugeMethodLimit with call lines and show their first line for their calls instead: Lines\.f\(I\)I$/m;
    expect(out.ignore.summary).toMatch(note);
    expect(out.fit.summary).toMatch(note);
    expect(out.noCallLines.summary).not.toMatch(/with call lines/);
    // The same methods cross it as with --no-call-lines (--jit-limit ignore: Dispatch.f and Giant.f).
    const jitLine = (s: string) => /^ {2}JIT limit .*$/m.exec(s)?.[0];
    expect(jitLine(out.ignore.summary)).toBe(jitLine(out.noCallLines.summary));
    const v = verifyJar(out.ignore.jar);
    expect(v.verified, describeVerify(v)).toBe(v.classes);
    const plain = await compiled(jar);
    const lines = await compiled(out.ignore.jar);
    expect(lines.result).toBe(plain.result);
    expect(lines.methods.has('Lines.f$komorium')).toBe(true);
    const counts = await exactCounts(out.ignore.jar, 'call-lines');
    const without = await exactCounts(out.noCallLines.jar, 'no-call-lines');
    expect(counts.get('Lines.f')).toBeGreaterThan(1_000_000);
    expect(counts.get('Lines.f')).toBe(without.get('Lines.f'));
  });

  test('the compact form counts exactly what the inline form counts; the method left as it was counts nothing', async () => {
    const fit = await exactCounts(out.fit.jar, 'fit');
    const inline = await exactCounts(out.ignore.jar, 'inline');
    expect(fit.get('Dispatch.f')).toBeGreaterThan(1_000_000);
    expect(fit.get('Dispatch.f')).toBe(inline.get('Dispatch.f'));
    expect(fit.get('Dispatch.g')).toBe(inline.get('Dispatch.g'));
    expect(fit.get('Giant.f') ?? 0).toBe(0);
    expect(inline.get('Giant.f')).toBeGreaterThan(1_000_000);
  });
});

describe('HugeMethodLimit under the framework kinds', () => {
  // A kind that probes every block (subpaths) keeps its exhaustive layout past the limit, where
  // plain java never compiles the method (Rhino's interpretLoop: 2.4 times Rhino's CPU time,
  // BENCHMARKS-subpaths.md); a sampled layout keeps it under the limit. The summary says which.
  test('subpaths names Giant.f as crossing the limit; full-dup crosses nothing', () => {
    const subpaths = instrument(jar, join(work, 'jit-subpaths.jar'), ['--profile', 'subpaths']).stdout;
    expect(subpaths).toMatch(/^ {2}JIT limit 1 methods crossed HotSpot's 8000-byte HugeMethodLimit$/m);
    expect(subpaths).toMatch(/^note: 1 methods grew past HotSpot's 8000-byte HugeMethodLimit and will stay interpreted; run with -XX:-DontCompileHugeMethods: Giant\.f\(II\)I$/m);
    const dup = instrument(jar, join(work, 'jit-full-dup.jar'), ['--profile', 'call-edges,field-access', '--layout', 'full-dup']).stdout;
    expect(dup).toMatch(/^ {2}JIT limit 0 methods crossed/m);
    expect(dup).not.toMatch(/^note: .*HugeMethodLimit/m);
  });
});

describe('probe methods keep an exhaustive method under the limit', () => {
  // Mid.f: 250 cases, about 5 KB; subpaths' block probes in line (8 to 10 bytes each) take it past
  // 8,000 bytes, as calls of one probe method each (3 bytes) they keep it under. Giant.f is past
  // the limit even so. Rhino's interpretLoop is the real case (BENCHMARKS-subpaths.md).
  let dir: string;
  let fitted: { jar: string; summary: string };
  let inline: string;
  beforeAll(async () => {
    dir = join(work, 'probe-methods');
    const src = join(dir, 'src');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'Mid.java'), dispatchClass('Mid', 250));
    writeFileSync(join(src, 'Giant.java'), dispatchClass('Giant', 320));
    writeFileSync(
      join(src, 'Main.java'),
      'public class Main {\n  public static void main(String[] args) {\n    long sum = 0;\n' +
        '    for (int i = 0; i < 200000; i++) sum += Mid.f(i % 260, i) + (i % 100 == 0 ? Giant.f(i % 330, i) : 0);\n' +
        '    System.out.println("sum " + sum);\n  }\n}\n',
    );
    javac(src, join(dir, 'classes'), { release: 8 });
    const plain = join(dir, 'mid.jar');
    await jarDir(join(dir, 'classes'), plain, { mainClass: 'Main' });
    fitted = { jar: join(dir, 'mid-fitted.jar'), summary: instrument(plain, join(dir, 'mid-fitted.jar'), ['--profile', 'subpaths']).stdout };
    inline = join(dir, 'mid-inline.jar');
    const r = cli(['instrument', plain, '-o', inline, '--profile', 'subpaths'], { env: { KOMORIUM_PROBE_METHODS: 'never' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}JIT limit 2 methods crossed/m);
  });

  test('the summary names Mid.f as kept under the limit by probe methods, Giant.f as crossing it; every class verifies', () => {
    expect(fitted.summary).toMatch(/^ {2}JIT limit 1 methods crossed HotSpot's 8000-byte HugeMethodLimit \(1 kept under it by probe methods\)$/m);
    expect(fitted.summary).toMatch(/^note: 1 methods would have grown past the HugeMethodLimit and call one small method per probe instead \(same probes\): Mid\.f\(II\)I$/m);
    expect(fitted.summary).toMatch(/will stay interpreted; run with -XX:-DontCompileHugeMethods: Giant\.f\(II\)I$/m);
    const v = verifyJar(fitted.jar);
    expect(v.verified, describeVerify(v)).toBe(v.classes);
  });

  test('with plain java, HotSpot compiles Mid.f of the fitted jar and not of the inline one', async () => {
    // The subpaths runtime writes its profile whatever komorium.agent says: into the test's folder.
    const methods = async (jar: string) => (await compiled(jar, ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(dir, 'pc.kprof')}`])).methods;
    expect(await methods(fitted.jar)).toContain('Mid.f');
    expect(await methods(inline)).not.toContain('Mid.f');
  });

  test('the exact subpaths are the same with the probes in line and in probe methods', async () => {
    const exact = async (jar: string, name: string) => {
      const out = join(dir, `${name}.kprof`);
      const r = await runJava({ cp: [jar], main: 'Main', jvmArgs: ['-Dkomorium.subpaths.mode=exact', '-Dkomorium.quiet=true', `-Dkomorium.out=${out}`] });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^sum -?\d+$/m);
      return { stdout: r.stdout, data: readFileSync(out, 'utf8').split('\n').filter((l) => !l.startsWith('header\t')).join('\n') };
    };
    const a = await exact(fitted.jar, 'fitted');
    const b = await exact(inline, 'inline');
    expect(a.stdout).toBe(b.stdout);
    expect(a.data.length).toBeGreaterThan(1000);
    expect(a.data).toBe(b.data);
  });
});
