/**
 * Full-dup's out-of-line twin (src/framework/layout/twin.ts) under its experiment switch
 * KOMORIUM_TWIN=stay, where the twin runs the rest of the invocation itself: the method then
 * returns what the twin returns and has no resume dispatch (the read of P[0] and the restores
 * of the loop head's locals), which the default layout keeps. Both run two samples at interval 7,
 * so that their twins run often, and print what the uninstrumented program prints.
 */
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { isLabel, type Insn } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { javac, repoRoot, runJava, runtimeJar, tmpDir } from './support/java.js';
import { FREQ_INLINE_SIZE, HUGE_METHOD_LIMIT } from '../src/bytecode/hotspot-limits.js';
import { methodCodeLength } from './support/code-length.js';
import { cli } from './support/komorium.js';
import { debianClasspathFor, debianJar, readZipEntry } from './support/corpus.js';
import { describeVerify, verifyJar } from './support/verify.js';
import { computeBlocks } from '../src/analysis/blocks.js';
import { findLoops } from '../src/analysis/loops.js';

const SAMPLES = ['fig4', 'callbacks'];

/** The instructions of each method in the class folder `dir` that is not a twin, with its class. */
function nonTwinMethods(dir: string): { cf: ClassFile; insns: Insn[] }[] {
  const out: { cf: ClassFile; insns: Insn[] }[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.class'))) {
    const cf = ClassFile.parse(readFileSync(join(dir, f)), f);
    for (const m of cf.methods) {
      const attr = m.attributes.find((a) => a.name === 'Code');
      if (!attr || m.name.includes('$sample$komorium')) continue;
      out.push({ cf, insns: readCode(cf, m, attr).nodes.filter((x): x is Insn => !isLabel(x)) });
    }
  }
  return out;
}

/** The most calls of a twin that one method (not a twin) makes: its entry check's, and one per loop head. */
function mostTwinCalls(dir: string): number {
  const calls = nonTwinMethods(dir).map(({ cf, insns }) => insns.filter((x) => x.op === OP.INVOKESTATIC && cf.cp.memberRef(x.cp!).name.endsWith('$sample$komorium')).length);
  return Math.max(0, ...calls);
}

/** long[] loads in the methods that are not twins (the resume reads P[0] and restores locals with them). */
function longArrayLoads(dir: string): number {
  return nonTwinMethods(dir).reduce((n, { insns }) => n + insns.filter((x) => x.op === OP.LALOAD).length, 0);
}

describe('KOMORIUM_TWIN=stay', () => {
  test.each(SAMPLES)('%s: the method keeps no resume dispatch, and the program runs as it did', async (sample) => {
    const work = tmpDir('komorium-twin-');
    const classes = join(work, 'classes');
    javac(join(repoRoot, 'samples', sample), classes);
    const expected = readFileSync(join(repoRoot, 'samples', sample, 'expected-output.txt'), 'utf8');
    for (const twin of ['return', 'stay', 'entry-only']) {
      const out = join(work, twin);
      const r = cli(['instrument', classes, '-o', out, '-q', '--no-cache', '--profile', 'call-edges', '--layout', 'full-dup'], {
        env: { KOMORIUM_TWIN: twin },
      });
      expect(r.code, r.stderr).toBe(0);
      const added = longArrayLoads(out) - longArrayLoads(classes);
      if (twin === 'return') expect(added).toBeGreaterThan(0);
      else expect(added).toBe(0);
      // entry-only (a diagnosis, BENCHMARKS-framework.md): no check on a backedge calls the twin.
      if (twin === 'entry-only') expect(mostTwinCalls(out)).toBe(1);
      else expect(mostTwinCalls(out)).toBeGreaterThan(1);
      const run = await runJava({ cp: [out], main: 'Main', jvmArgs: ['-Xverify:all', '-Dkomorium.interval=7', `-Dkomorium.out=${join(work, `${twin}.kprof`)}`, '-Dkomorium.quiet'] });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(expected);
    }
  });
});

describe('the resume after a twin call keeps every loop reducible', () => {
  // A twin entered at one loop head hands back at the next backedge whose check does not fire, and
  // the method's resume jumps to that head. A jump into a loop from outside the loops around it made
  // the graph irreducible (JFlex: 114 methods), and HotSpot compiled those methods' loops worse
  // though the resume never runs while the checks do not fire (BENCHMARKS-framework.md). Where the
  // method may not resume, the twin runs on in its own checking copy: the same checks, so the same
  // samples as a hand-back anywhere would take.
  test('nested and sequential loops: no irreducible loop outside the twins, and the samples are unbiased', async () => {
    const work = tmpDir('komorium-twin-nested-');
    const classes = join(work, 'classes');
    javac(join(repoRoot, 'test', 'fixtures', 'nested-loops'), classes);
    const profile = async (dir: string, props: string[], name: string) => {
      const out = join(work, name);
      const run = await runJava({ cp: [dir], main: 'Main', jvmArgs: ['-Xverify:all', ...props, `-Dkomorium.out=${out}`, '-Dkomorium.quiet'] });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('345498600\n');
      return out;
    };
    const laid: Record<string, string> = {};
    for (const layout of ['exhaustive', 'full-dup']) {
      laid[layout] = join(work, layout);
      const r = cli(['instrument', classes, '-o', laid[layout]!, '-q', '--no-cache', '--profile', 'call-edges', '--layout', layout]);
      expect(r.code, r.stderr).toBe(0);
    }
    const cf = ClassFile.parse(readFileSync(join(laid['full-dup']!, 'Main.class')), 'Main.class');
    const run = cf.methods.find((m) => m.name === 'run')!;
    const code = readCode(cf, run, run.attributes.find((a) => a.name === 'Code')!);
    const loops = findLoops(computeBlocks(code));
    expect(loops.headers.size).toBe(5);
    expect(loops.irreducibleEdges).toEqual([]);
    const exact = await profile(laid['exhaustive']!, [], 'exact.kprof');
    // Interval 7 shares no period with the loops' trip counts (3, 2, i % 7 is 0 to 6 … and 7
    // itself: the constant interval 10 aliases with them, under any layout, to 88%).
    const sampled = await profile(laid['full-dup']!, ['-Dkomorium.interval=7'], 'sampled.kprof');
    const d = cli(['diff', '--accuracy', exact, sampled, '--format', 'json']);
    expect(d.code, d.stderr).toBe(0);
    const rows = JSON.parse(d.stdout).kinds as { kind: string; overlap: number }[];
    expect(rows.find((x) => x.kind === 'call-edges')!.overlap).toBeGreaterThan(0.995);
  });
});

describe('a local whose frame type is null at a loop head', () => {
  // Clojure clears locals with aconst_null, and ASM's frames then type them null at the loop heads
  // after: clojure.core$__GT_ (the -> macro) has two such locals. The twin hands the loop head back
  // with the locals read from its arrays, and an Object read back there failed verification
  // ("Type 'java/lang/Object' ... is not assignable to null"), which stopped Clojure starting.
  test('full-dup: the class verifies, and Clojure runs the rewritten macro', async () => {
    const work = tmpDir('komorium-twin-null-');
    const classes = join(work, 'classes');
    execFileSync('unzip', ['-q', '-o', debianJar('clojure'), 'clojure/core$__GT_.class', 'clojure/core$__GT__GT_.class', '-d', classes]);
    const out = join(work, 'out');
    const lib = [debianJar('clojure'), ...debianClasspathFor('clojure').filter((p) => p !== debianJar('clojure'))];
    const r = cli(['instrument', classes, '-o', out, '-q', '--no-cache', '--profile', 'call-edges', '--layout', 'full-dup', '--classpath', ...lib]);
    expect(r.code, r.stderr).toBe(0);
    expect(longArrayLoads(join(out, 'clojure')), 'the resume restores locals').toBeGreaterThan(0);
    // The folder comes first, so these two classes are the rewritten ones; interval 1 runs their twins.
    const run = await runJava({
      cp: [out, ...lib],
      main: 'clojure.main',
      args: ['-e', '(println (-> 5 inc inc) (->> (range 5) (map inc) (reduce +)))'],
      jvmArgs: ['-Xverify:all', '-Xlog:class+load=info', '-Dkomorium.interval=1', '-Dkomorium.quiet'],
    });
    expect(run.stdout).toContain(`clojure.core$__GT_ source: file:${out}/`);
    expect(run.stdout.split('\n').filter((l) => !l.startsWith('['))).toEqual(['7 15', '']);
    expect(run.stderr).toBe('');
  });
});

describe('a loop head with values on the operand stack', () => {
  // Groovy's ThreadInterruptibleASTTransformation.createCondition keeps a new ArrayList on the stack
  // across a loop. Only locals travel to the twin and back, so the method keeps its copy inline.
  test('full-dup: the method is laid out without a twin, and the class verifies', () => {
    const work = tmpDir('komorium-twin-stack-');
    const classes = join(work, 'classes');
    const cls = 'org/codehaus/groovy/transform/ThreadInterruptibleASTTransformation';
    execFileSync('unzip', ['-q', '-o', debianJar('groovy'), `${cls}.class`, '-d', classes]);
    const lib = [debianJar('groovy'), ...debianClasspathFor('groovy').filter((p) => p !== debianJar('groovy'))];
    const out = join(work, 'out');
    const r = cli(['instrument', classes, '-o', out, '--no-cache', '--profile', 'call-edges', '--layout', 'full-dup', '--classpath', ...lib]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/0 methods got a simpler layout, 0 were left as they were/);
    const cf = ClassFile.parse(readFileSync(join(out, `${cls}.class`)), cls);
    const names = cf.methods.map((m) => m.name);
    expect(names).toContain('createCondition');
    expect(names).not.toContain('createCondition$sample$komorium');
    const v = verifyJar(out, lib);
    expect(v.verifyErrors, describeVerify(v)).toEqual([]);
    expect(v.verified).toBe(v.classes);
  });
});

describe('what C2 can inline of a sample', () => {
  // A check that fired while its method was profiled has its call of the twin compiled in; C2
  // inlines a hot callee of at most FreqInlineSize bytes, and twins and handlers inlined there
  // took the budget of the program's own callees (BENCHMARKS-framework.md).
  const length = methodCodeLength;

  test('every twin is longer than FreqInlineSize, and the program runs as it did', async () => {
    const work = tmpDir('komorium-twin-size-');
    const classes = join(work, 'classes');
    javac(join(repoRoot, 'samples', 'fig4'), classes);
    const out = join(work, 'out');
    const r = cli(['instrument', classes, '-o', out, '-q', '--no-cache', '--profile', 'call-edges,field-access', '--layout', 'full-dup']);
    expect(r.code, r.stderr).toBe(0);
    const sizes: number[] = [];
    for (const f of readdirSync(out).filter((x) => x.endsWith('.class'))) {
      const cf = ClassFile.parse(readFileSync(join(out, f)), f);
      for (const m of cf.methods.filter((x) => x.name.endsWith('$sample$komorium'))) sizes.push(length(cf, m.name, m.desc));
    }
    expect(sizes.length).toBeGreaterThan(0);
    for (const n of sizes) expect(n).toBeGreaterThan(FREQ_INLINE_SIZE);
    const expected = readFileSync(join(repoRoot, 'samples', 'fig4', 'expected-output.txt'), 'utf8');
    const run = await runJava({ cp: [out], main: 'Main', jvmArgs: ['-Xverify:all', '-Dkomorium.interval=3', `-Dkomorium.out=${join(work, 'p.kprof')}`, '-Dkomorium.quiet'] });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(expected);
  });

  test('the handlers of call-edges and field-access are longer than FreqInlineSize', () => {
    const cls = (name: string) => ClassFile.parse(readZipEntry(runtimeJar(), `komorium/runtime/${name}.class`)!, `${name}.class`);
    expect(length(cls('FieldAccess'), 'access', '(I)V')).toBeGreaterThan(FREQ_INLINE_SIZE);
    expect(length(cls('CallEdges'), 'edge', '(Ljava/lang/Object;I)V')).toBeGreaterThan(FREQ_INLINE_SIZE);
  });
});

describe('KOMORIUM_DUP=inline-big', () => {
  // The measured alternative to a twin (BENCHMARKS-framework.md, "The transfers, again"): a method
  // already past FreqInlineSize keeps its copy inside when it stays under HugeMethodLimit.
  test("Rhino's DToA.JS_dtobasestr keeps its copy inside, has no twin, and the class verifies", () => {
    const work = tmpDir('komorium-twin-big-');
    const classes = join(work, 'classes');
    const cls = 'org/mozilla/javascript/DToA';
    const DESC = '(ID)Ljava/lang/String;';
    execFileSync('unzip', ['-q', '-o', debianJar('rhino'), `${cls}.class`, '-d', classes]);
    expect(methodCodeLength(ClassFile.parse(readFileSync(join(classes, `${cls}.class`)), cls), 'JS_dtobasestr', DESC)).toBeGreaterThan(FREQ_INLINE_SIZE);
    const lib = [debianJar('rhino'), ...debianClasspathFor('rhino').filter((p) => p !== debianJar('rhino'))];
    const twins = (dir: string) =>
      ClassFile.parse(readFileSync(join(dir, `${cls}.class`)), cls)
        .methods.map((m) => m.name)
        .filter((n) => n.startsWith('JS_dtobasestr$'));
    for (const dup of ['twin', 'inline-big']) {
      const out = join(work, dup);
      const env = dup === 'inline-big' ? { KOMORIUM_DUP: dup } : {};
      const r = cli(['instrument', classes, '-o', out, '-q', '--no-cache', '--profile', 'call-edges,field-access', '--layout', 'full-dup', '--classpath', ...lib], { env });
      expect(r.code, r.stderr).toBe(0);
      if (dup === 'inline-big') {
        expect(twins(out)).toEqual([]);
        expect(methodCodeLength(ClassFile.parse(readFileSync(join(out, `${cls}.class`)), cls), 'JS_dtobasestr', DESC)).toBeLessThanOrEqual(HUGE_METHOD_LIMIT);
      } else expect(twins(out)).toEqual(['JS_dtobasestr$static$sample$komorium']);
      const v = verifyJar(out, lib);
      expect(v.verifyErrors, describeVerify(v)).toEqual([]);
      expect(v.verified).toBe(v.classes);
    }
  });
});
