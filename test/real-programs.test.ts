/**
 * Issue 3: real programs no one here wrote, instrumented whole and run on real input, give
 * byte-identical output; their profiles are accurate (seed 002 §7.1, §7.2) and repeatable.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { debianJar, debianClasspathFor, jflexJavaFlex } from './support/corpus.js';
import { npmInput, npmInputFile } from './support/npm-inputs.js';
import { repoRoot, runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { readProfile } from '../src/profile/read.js';
import { overlap } from '../src/profile/analysis.js';

/** The profile without its header lines, which hold the date, pid and JVM. */
function profileData(path: string): string {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('header\t'))
    .join('\n');
}

/**
 * profileData with each node's `self` lines summed per thread over their source lines. Rhino is not the
 * same program twice: HotSpot sorts a class's methods by the address of their name symbols, so
 * getDeclaredMethods answers in an order that varies between runs (3 orders in 12 runs of one class here),
 * and FunctionObject.getMethodList takes one branch or the other per method in that order. A sample that
 * lands in that loop may then be charged to line 255 in one run and 257 in the next (CI saw exactly that
 * once), while every node, call line and total stays the same. The order also moves the samples of
 * findSingleMethod, which defineFunctionProperties calls over the same list: its 3 samples here fall on lines
 * 221 and 223 (two `self` lines) or all on one of them (one line), so the `end` line, which counts the records,
 * is left out too (CI saw end 65231 against 65232 once); readProfile checks that count in each file.
 */
function profileDataByNode(path: string): string {
  const selfSums = new Map<string, number>();
  const rest: string[] = [];
  for (const l of profileData(path).split('\n')) {
    const f = l.split('\t');
    if (f[0] === 'end') continue;
    if (f[0] !== 'self') {
      rest.push(l);
      continue;
    }
    const key = `self\t${f[1]}\t${f[2]}`;
    selfSums.set(key, (selfSums.get(key) ?? 0) + Number(f[4]));
  }
  return [...rest, ...[...selfSums].map(([k, n]) => `${k}\t${n}`)].join('\n');
}

describe('JFlex (Debian jflex) generating the lexer of its examples/java/java.flex', () => {
  test('the instrumented jar prints the same and writes the same Scanner.java', async () => {
    const work = tmpDir('komorium-jflex-');
    const jar = debianJar('jflex');
    const cp = debianClasspathFor('jflex').filter((p) => p !== jar);
    const out = join(work, 'jflex-komorium.jar');
    const summary = instrument(jar, out, ['--classpath', ...cp]);
    expect(summary.stdout).toMatch(/classes\s+\d+ \(\d+ rewritten/);
    const run = async (jarPath: string, dir: string, props: string[] = []) => {
      mkdirSync(dir);
      const r = await runJava({ cp: [jarPath, ...cp], main: 'jflex.Main', args: ['-d', dir, jflexJavaFlex()], jvmArgs: props });
      expect(r.code, r.stderr).toBe(0);
      const files = readdirSync(dir).sort();
      return { stdout: r.stdout.replaceAll(dir, '<out>'), files, bytes: files.map((f) => readFileSync(join(dir, f))) };
    };
    const plain = await run(jar, join(work, 'plain'));
    const profiled = await run(out, join(work, 'profiled'), ['-Dkomorium.quiet=true', `-Dkomorium.out=${join(work, 'jflex.kprof')}`]);
    expect(plain.files).toEqual(['Scanner.java']);
    expect(profiled.stdout).toBe(plain.stdout);
    expect(profiled.files).toEqual(plain.files);
    expect(Buffer.compare(profiled.bytes[0]!, plain.bytes[0]!)).toBe(0);
    expect(readProfile(join(work, 'jflex.kprof')).totalBytecodes).toBeGreaterThan(1_000_000);
  });
});

// With call lines (the default) each frame holds an identifier per line it calls from; the samples tree
// still keeps one context per method, so the exact profile fits komorium.maxContexts as with
// --no-call-lines (it did not when the tree kept a context per chain of call lines: 2.5 times as many,
// 97% of the bytecodes under <truncated>).
describe.each([
  ['', [] as string[]],
  [' (--no-call-lines)', ['--no-call-lines']],
] as const)('Rhino (Debian rhino) running esprima to parse lodash\'s core.js%s', (_how, flags) => {
  const work = tmpDir('komorium-rhino-');
  const jar = debianJar('rhino');
  const out = join(work, 'js-komorium.jar');
  const script = join(repoRoot, 'test', 'fixtures', 'rhino-parse.js');
  const main = 'org.mozilla.javascript.tools.shell.Main';
  // -opt -1: Rhino interprets, so the parse runs in Rhino's (instrumented) code rather than in classes it generates.
  const args = ['-opt', '-1', script, npmInput('esprima'), npmInputFile('lodash', 'core.js')];
  let expected: string;

  beforeAll(async () => {
    instrument(jar, out, [...flags]);
    const r = await runJava({ cp: [jar], main, args });
    expect(r.code, r.stderr).toBe(0);
    expected = r.stdout;
    expect(expected).toMatch(/^FunctionDeclaration \d+$/m);
  });

  const profiled = async (name: string, props: string[]) => {
    const path = join(work, name);
    const r = await runJava({
      cp: [out],
      main,
      args,
      jvmArgs: ['-Dkomorium.quiet=true', `-Dkomorium.out=${path}`, ...props],
      timeoutMs: 600_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
    return path;
  };

  test('byte-identical output; sampled profile at 10,000 overlaps the exact one by >= 90%; totals within 1%; repeatable', async () => {
    const exact = await profiled('exact.kprof', ['-Dkomorium.agent=exact']);
    const sampled = await profiled('sampled.kprof', ['-Dkomorium.granularity=10000']);
    const again = await profiled('sampled-again.kprof', ['-Dkomorium.granularity=10000']);
    const e = readProfile(exact);
    const s = readProfile(sampled);
    const o = overlap(s, e);
    const delta = s.totalBytecodes / e.totalBytecodes - 1;
    expect(e.truncated).toBe(0);
    console.log(
      `rhino+esprima+lodash/core.js${flags.map((f) => ` ${f}`).join('')}: overlap(sampled g=10000, exact) = ${(o.total * 100).toFixed(2)}%, ` +
        `method overlap ${(o.methodOverlap * 100).toFixed(2)}%, exact total ${e.totalBytecodes}, sampled total ${s.totalBytecodes} (δb = ${delta.toExponential(2)})`,
    );
    expect(o.total).toBeGreaterThanOrEqual(0.9);
    expect(Math.abs(delta)).toBeLessThan(0.01);
    expect(readProfile(again).totalBytecodes).toBe(s.totalBytecodes);
    expect(profileDataByNode(again)).toBe(profileDataByNode(sampled));
  });
});

/**
 * Bytecode javac did not write: Clojure's jar is mostly compiled by Clojure, and both languages
 * generate classes at run time (left uninstrumented) that call into the instrumented runtime.
 */
describe.each([
  // aot: classes the language compiled ahead of time into the jar. Clojure loads clojure.core's only
  // when the jar records them newer than core.clj, and compiles the source (uninstrumented) otherwise.
  { lang: 'Clojure', corpus: 'clojure' as const, main: 'clojure.main', script: 'clojure-program.clj', compiler: 'clojure/lang/Compiler', aot: 'clojure/core$' },
  { lang: 'Groovy', corpus: 'groovy' as const, main: 'groovy.ui.GroovyMain', script: 'groovy_program.groovy', compiler: 'org/codehaus/groovy/control/CompilationUnit', aot: undefined },
])('$lang (Debian $corpus) running a script', ({ corpus, main, script, compiler, aot }) => {
  test('the whole jar instrumented prints the same; the profile shows the language compiling the script', async () => {
    const work = tmpDir(`komorium-${corpus}-`);
    const jar = debianJar(corpus);
    const cp = debianClasspathFor(corpus).filter((p) => p !== jar);
    const out = join(work, `${corpus}-komorium.jar`);
    const report = join(work, 'report.json');
    instrument(jar, out, ['-q', '--report-json', report, ...(cp.length ? ['--classpath', ...cp] : [])]);
    expect(JSON.parse(readFileSync(report, 'utf8')).leftAsIs).toEqual([]);
    const args = [join(repoRoot, 'test', 'fixtures', script)];
    const plain = await runJava({ cp: [jar, ...cp], main, args });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.split('\n').length).toBeGreaterThan(8);
    const profile = join(work, `${corpus}.kprof`);
    const profiled = await runJava({ cp: [out, ...cp], main, args, jvmArgs: ['-Dkomorium.quiet=true', `-Dkomorium.out=${profile}`] });
    expect(profiled.code, profiled.stderr).toBe(0);
    expect(profiled.stdout).toBe(plain.stdout);
    expect(profiled.stderr).toBe(plain.stderr);
    const p = readProfile(profile);
    const methods = new Set(p.nodes.filter((n) => n.method).map((n) => n.method!.className));
    expect([...methods].filter((c) => c === compiler)).toEqual([compiler]);
    if (aot) expect([...methods].filter((c) => c.startsWith(aot)).length, `methods of ${aot}*`).toBeGreaterThan(100);
    expect(p.totalBytecodes).toBeGreaterThan(10_000_000);
  });
});
