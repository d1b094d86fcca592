/**
 * Line-level profiles: a check's slow path passes the line of its block, so the exact agent charges
 * every block's bytecodes to its first line (exactly, with --checks all), and call lines (on unless
 * `--no-call-lines`) record which line of the caller each context was called from, without changing
 * the calling-context tree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { javac, jarDir, repoRoot, runJava, tmpDir } from './support/java.js';
import { debianClasspathFor, debianJar, jflexJavaFlex } from './support/corpus.js';
import { instrument } from './support/komorium.js';
import { readProfile, type ContextNode, type Profile } from '../src/profile/index.js';
import { renderText } from '../src/report/text.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { CONSTANT } from '../src/classfile/model.js';

const work = tmpDir('komorium-lines-');
const source = join(repoRoot, 'test', 'fixtures', 'lines', 'Lines.java');

async function profile(jar: string, name: string, agent: string): Promise<Profile> {
  const out = join(work, name);
  // Randomized: with a constant granularity the check that fires keeps the same phase in the loop.
  const sampling = ['-Dkomorium.granularity=97', '-Dkomorium.random=50'];
  const r = await runJava({ cp: [jar], main: 'Lines', jvmArgs: [`-Dkomorium.agent=${agent}`, ...sampling, `-Dkomorium.out=${out}`, '-Dkomorium.quiet'] });
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('2498500\n');
  return readProfile(out);
}

const named = (p: Profile, path: string): ContextNode => {
  let n = p.root;
  for (const name of path.split('>')) n = n.children.find((c) => c.method!.name === name)!;
  return n;
};
const byLine = (n: ContextNode) => new Map(n.self!.map((e) => [e.line, e.counter]));

describe('line-level profiles', () => {
  let plain: string;
  beforeAll(async () => {
    javac(source, join(work, 'classes'));
    plain = join(work, 'lines.jar');
    await jarDir(join(work, 'classes'), plain, { mainClass: 'Lines' });
  });

  it('the exact agent with --checks all charges each block to its own first line', async () => {
    const jar = join(work, 'all.jar');
    instrument(plain, jar, ['--checks', 'all', '--max-path', '0']);
    const p = await profile(jar, 'all.kprof', 'exact');
    const w = named(p, 'main>twice>work');
    // javac's loop: line 4 `s = 0; i = 0` (4 bytecodes), line 5 the test `i < n` (3, n + 1 times),
    // line 6 the body `s += i; i++; goto` (6, n times: the i++ of line 5 is in the block), line 8
    // `return s` (2); run for n = 1000 and n = 2000.
    expect(byLine(w)).toEqual(new Map([[4, 8], [5, 3 * 1001 + 3 * 2001], [6, 6 * 3000], [8, 4]]));
    expect(w.self!.every((e) => e.thread === 'main')).toBe(true);
  });

  it('with the default checks a block without a check is charged to the next check, in the same method', async () => {
    const jar = join(work, 'optimized.jar');
    instrument(plain, jar);
    const p = await profile(jar, 'optimized.kprof', 'exact');
    const w = named(p, 'main>twice>work');
    expect(w.counter).toBe(8 + 9006 + 18000 + 4);
    expect([...byLine(w).values()].reduce((a, b) => a + b, 0)).toBe(w.counter);
    // The loop body has no check of its own: its bytecodes go to the loop test's line.
    expect(byLine(w).get(6)).toBeUndefined();
    expect(byLine(w).get(5)).toBeGreaterThanOrEqual(9006 + 18000);
  });

  it('call lines (the default): each context knows the line that called it, and the tree is that of --no-call-lines', async () => {
    const off = join(work, 'off.jar');
    const on = join(work, 'on.jar');
    instrument(plain, off, ['--no-call-lines']);
    instrument(plain, on);
    const a = await profile(off, 'off.kprof', 'exact');
    const b = await profile(on, 'on.kprof', 'exact');
    const nodeLines = (path: string) => readFileSync(join(work, path), 'utf8').split('\n').filter((l) => l.startsWith('node\t') || l.startsWith('method\t'));
    expect(nodeLines('on.kprof')).toEqual(nodeLines('off.kprof'));
    expect(named(a, 'main>twice>work').calls).toBeUndefined();
    const w = named(b, 'main>twice>work');
    // work(1000) from line 12 and work(2000) from line 13: their bytecodes, 4 + 3(n + 1) + 6n + 2 each.
    expect(w.calls).toEqual([
      { line: 12, counter: 4 + 3 * 1001 + 6 * 1000 + 2 },
      { line: 13, counter: 4 + 3 * 2001 + 6 * 2000 + 2 },
    ]);
    expect(named(b, 'main>twice').calls).toEqual([{ line: 18, counter: named(b, 'main>twice').total }]);
    // The text call tree names a context by its file and the line it was called from (the heavier of
    // two), never by the method's first line.
    const tree = (p: Profile) => { const t = renderText(p, { threshold: 0 }); return t.slice(t.indexOf('Call tree')); };
    expect(tree(b)).toMatch(/─ \S+\.twice\(int\) \(\w+\.java, called from line 18\)$/m);
    expect(tree(b)).toMatch(/─ \S+\.work\(int\) \(\w+\.java, called from line 13\)$/m);
    expect(tree(a)).toMatch(/─ \S+\.work\(int\) \(\w+\.java\)$/m);
  });

  it('the sampling agent charges samples to lines in proportion', async () => {
    const jar = join(work, 'sampled.jar');
    instrument(plain, jar, ['--checks', 'all', '--max-path', '0']);
    const p = await profile(jar, 'sampled.kprof', 'sampling');
    const w = byLine(named(p, 'main>twice>work'));
    // 18,000 of work's 27,018 bytecodes are on line 6, 9,006 on line 5: 2 to 1, about 280 samples.
    const ratio = w.get(6)! / w.get(5)!;
    expect(ratio).toBeGreaterThan(1.6);
    expect(ratio).toBeLessThan(2.5);
  });

  it("call lines of a class whose method table takes several strings, a method's lines split between two", async () => {
    // 30 methods of 130 calls each, every call on its own line past line 1,000: about 4,000 call
    // lines, more than one constant string of MID.forClass holds, so one method's lines are split.
    const methods = 30;
    const calls = 130;
    const src: string[] = ['public class ManyLines {', '    static int leaf(int x) { return x + 1; }'];
    while (src.length < 1000) src.push('');
    const expected: number[][] = [];
    for (let m = 0; m < methods; m++) {
      src.push(`    static int m${m}(int s) {`);
      expected.push([]);
      for (let c = 0; c < calls; c++) {
        src.push(`        s += leaf(${c});`);
        expected[m]!.push(src.length);
      }
      src.push('        return s;', '    }');
    }
    src.push('    public static void main(String[] a) {', '        int s = 0;');
    for (let m = 0; m < methods; m++) src.push(`        s = m${m}(s);`);
    src.push('        System.out.println(s);', '    }', '}');
    const dir = join(work, 'many');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ManyLines.java'), src.join('\n') + '\n');
    javac(join(dir, 'ManyLines.java'), join(dir, 'classes'));
    instrument(join(dir, 'classes'), join(dir, 'out'));

    const cf = ClassFile.parse(readFileSync(join(dir, 'out', 'ManyLines.class')), 'ManyLines.class');
    const tables: string[] = [];
    for (let i = 1; i < cf.cp.size; i++) if (cf.cp.tag(i) === CONSTANT.String && cf.cp.string(i).includes('\t')) tables.push(cf.cp.string(i));
    // Several strings; a later one starts with a call line in full (its method's line is in the one
    // before), and the lines after a method's own line are short.
    expect(tables.length).toBeGreaterThan(1);
    expect(tables.slice(1).some((t) => t.split('\n')[0]!.split('\t').length === 4)).toBe(true);
    expect(tables[0]).toMatch(/^m0\t\(I\)I\t\d+\n\t\d+\n\t\d+\n/m);

    const out = join(dir, 'many.kprof');
    const r = await runJava({ cp: [join(dir, 'out')], main: 'ManyLines', jvmArgs: ['-Dkomorium.agent=exact', `-Dkomorium.out=${out}`, '-Dkomorium.quiet'] });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${methods * (calls * (calls + 1)) / 2}\n`);
    const p = readProfile(out);
    for (let m = 0; m < methods; m++) {
      // leaf is 4 bytecodes, called once from each line.
      expect(named(p, `main>m${m}>leaf`).calls, `m${m}`).toEqual(expected[m]!.map((line) => ({ line, counter: 4 })));
    }
  });

  it('call lines on a real program (Debian jflex): the same output and samples tree as --no-call-lines, and call lines', async () => {
    const jar = debianJar('jflex');
    const cp = debianClasspathFor('jflex').filter((p) => p !== jar);
    const run = async (jarPath: string, name: string) => {
      const dir = join(work, name);
      mkdirSync(dir);
      const out = join(work, `${name}.kprof`);
      const r = await runJava({ cp: [jarPath, ...cp], main: 'jflex.Main', args: ['-d', dir, jflexJavaFlex()], jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${out}`] });
      expect(r.code, r.stderr).toBe(0);
      return { stdout: r.stdout.replaceAll(dir, '<out>'), scanner: readFileSync(join(dir, 'Scanner.java'), 'utf8'), profile: out };
    };
    const plain = join(work, 'jflex-plain.jar');
    const lines = join(work, 'jflex-lines.jar');
    instrument(jar, plain, ['--classpath', ...cp, '--no-call-lines']);
    instrument(jar, lines, ['--classpath', ...cp]);
    const a = await run(plain, 'jflex-a');
    const b = await run(lines, 'jflex-b');
    expect(b.stdout).toBe(a.stdout);
    expect(b.scanner).toBe(a.scanner);
    const tree = (f: string) => readFileSync(f, 'utf8').split('\n').filter((l) => /^(method|node|self|thread)\t/.test(l));
    expect(tree(b.profile)).toEqual(tree(a.profile));
    const p = readProfile(b.profile);
    const called = p.nodes.filter((n) => n.calls !== undefined);
    // Nearly every context below the root frame knows the line that called it.
    expect(called.length / (p.nodes.length - 2)).toBeGreaterThan(0.9);
  });
});
