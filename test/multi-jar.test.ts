/**
 * Programs of several jars, instrumented as one program (`instrument a.jar b.jar … -d out`, issue 24).
 * The program is ANTLR 4 as Debian runs it (/usr/bin/antlr4): the tool, StringTemplate 4, the ANTLR 4
 * and ANTLR 3 runtimes and treelayout, five jars that call each other (the tool renders templates, the
 * templates are parsed by ANTLR 3's runtime, the generated parsers extend the runtime's classes).
 * JFlex with CUP covers a manifest Class-Path that names the other jars by absolute path.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, instrument } from './support/komorium.js';
import { jarDir, javac, repoRoot, runJava, tmpDir, type RunJavaResult } from './support/java.js';
import { jflexJavaFlex, readZipEntry } from './support/corpus.js';
import { readInput } from '../src/jar/index.js';
import { readProfile } from '../src/profile/read.js';
import { UNINSTRUMENTED_CLASS, type Profile } from '../src/profile/model.js';

/** In the order of /usr/bin/antlr4's class path. */
const ANTLR_JARS = ['stringtemplate4', 'antlr4', 'antlr4-runtime', 'antlr3-runtime', 'treelayout'];
const jarPath = (name: string) => join('/usr/share/java', `${name}.jar`);

let work: string;
/** Internal class name → the ANTLR jar that holds it. */
const jarOf = new Map<string, string>();

beforeAll(async () => {
  for (const j of ANTLR_JARS) {
    if (!existsSync(jarPath(j))) throw new Error(`missing ${jarPath(j)} (Debian package antlr4): run scripts/install-deps.sh`);
    for (const e of (await readInput(jarPath(j))).entries) if (e.isClass) jarOf.set(e.name.replace(/\.class$/, ''), j);
  }
  work = tmpDir('komorium-multi-jar-');
  writeFileSync(join(work, 'Expr.g4'), readFileSync(join(repoRoot, 'test', 'fixtures', 'antlr', 'Expr.g4')));
});

/** Every file under `dir`, by relative path. */
function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.set(relative(dir, join(d, e.name)), readFileSync(join(d, e.name)));
    }
  };
  walk(dir);
  return out;
}

/** ANTLR generating the Expr parser (with visitor) into `gen-<tag>`; exact profile to `<tag>.kprof` when instrumented. */
async function antlr(tag: string, cp: string[], exact: boolean): Promise<RunJavaResult & { generated: Map<string, Buffer> }> {
  const jvmArgs = exact ? ['-Dkomorium.agent=exact', '-Dkomorium.quiet', `-Dkomorium.out=${join(work, `${tag}.kprof`)}`] : [];
  const r = await runJava({ cp, main: 'org.antlr.v4.Tool', args: ['-o', `gen-${tag}`, '-visitor', 'Expr.g4'], jvmArgs, cwd: work });
  expect(r.code, r.stderr).toBe(0);
  return { ...r, generated: files(join(work, `gen-${tag}`)) };
}

/** Bytecodes per method (self), the exact profile's data without its calling contexts. */
function selfByMethod(p: Profile): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of p.nodes) if (n.method && n.counter) out.set(n.method.key, (out.get(n.method.key) ?? 0) + n.counter);
  return out;
}

/**
 * Inclusive bytecodes of calls from one ANTLR jar into another, by `from->to`: those whose callee
 * sits right under its caller, and those with an [uninstrumented] node in between.
 */
function crossJarCalls(p: Profile): { direct: Map<string, number>; marked: Map<string, number> } {
  const direct = new Map<string, number>();
  const marked = new Map<string, number>();
  for (const n of p.nodes) {
    if (!n.method || !n.parent?.method) continue;
    let caller = n.parent;
    const through = caller.method!.className === UNINSTRUMENTED_CLASS;
    if (through) caller = caller.parent!;
    const to = jarOf.get(n.method.className);
    const from = caller.method ? jarOf.get(caller.method.className) : undefined;
    if (!to || !from || to === from) continue;
    const m = through ? marked : direct;
    m.set(`${from}->${to}`, (m.get(`${from}->${to}`) ?? 0) + n.total);
  }
  return { direct, marked };
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

describe('ANTLR 4, five jars instrumented as one program', () => {
  let plain: Awaited<ReturnType<typeof antlr>>;
  let one: Awaited<ReturnType<typeof antlr>>;
  let alone: Awaited<ReturnType<typeof antlr>>;
  let oneSummary: string;
  beforeAll(async () => {
    plain = await antlr('plain', ANTLR_JARS.map(jarPath), false);
    const r = cli(['instrument', ...ANTLR_JARS.map(jarPath), '-d', join(work, 'one')]);
    expect(r.code, r.stderr).toBe(0);
    oneSummary = r.stdout;
    one = await antlr('one', ANTLR_JARS.map((j) => join(work, 'one', `${j}.jar`)), true);
    // The way it was done before: each jar rewritten alone, calls into the others call out.
    mkdirSync(join(work, 'alone'));
    for (const j of ANTLR_JARS) instrument(jarPath(j), join(work, 'alone', `${j}.jar`), ['-q']);
    alone = await antlr('alone', ANTLR_JARS.map((j) => join(work, 'alone', `${j}.jar`)), true);
  });

  it('writes each jar under its own name and says they are one program', () => {
    expect(readdirSync(join(work, 'one')).sort()).toEqual(ANTLR_JARS.map((j) => `${j}.jar`).sort());
    expect(oneSummary).toMatch(/jars +5, rewritten as one program/);
    expect(oneSummary).toMatch(/\/usr\/share\/java\/antlr4\.jar: \d+ classes, \d+ rewritten -> .*one\/antlr4\.jar/);
  });

  it('generates the same parser, byte for byte, with the same messages', () => {
    for (const run of [one, alone]) {
      expect([...run.generated.keys()].sort()).toEqual([...plain.generated.keys()].sort());
      for (const [name, bytes] of plain.generated) expect(run.generated.get(name)!.equals(bytes), name).toBe(true);
      expect(run.stdout).toBe(plain.stdout);
      expect(run.stderr).toBe(plain.stderr);
    }
    expect(plain.generated.size).toBeGreaterThanOrEqual(6);
  });

  it('calls between the jars keep the calling context: no [uninstrumented] node between caller and callee', () => {
    const joined = crossJarCalls(readProfile(join(work, 'one.kprof')));
    const separate = crossJarCalls(readProfile(join(work, 'alone.kprof')));
    for (const pair of ['antlr4->stringtemplate4', 'stringtemplate4->antlr3-runtime', 'antlr4->antlr3-runtime', 'antlr4->antlr4-runtime']) {
      expect(joined.direct.get(pair) ?? 0, pair).toBeGreaterThan(0);
      // Rewritten alone, the same calls left the instrumented program and came back through a wrapper.
      expect(separate.direct.get(pair) ?? 0, pair).toBe(0);
      expect(separate.marked.get(pair) ?? 0, pair).toBeGreaterThan(0);
    }
    // What still passes through uninstrumented code is reflection and lambdas: under 1% of the cross-jar work.
    expect(sum(joined.marked)).toBeLessThan(sum(joined.direct) / 100);
  });

  it('the exact profile has the same bytecodes, method by method, however the jars were grouped', () => {
    const a = readProfile(join(work, 'one.kprof'));
    const b = readProfile(join(work, 'alone.kprof'));
    expect(a.totalBytecodes).toBe(b.totalBytecodes);
    expect(a.totalBytecodes).toBeGreaterThan(10_000_000);
    expect(selfByMethod(a)).toEqual(selfByMethod(b));
  });

  it('from one class folder the program itself runs differently: StringTemplate reads its templates from file: URLs', async () => {
    // The 8 bytecodes of issue 24: STGroupFile(URL, …) strips "jar:" from a jar: URL, which a folder does not have.
    const folder = join(work, 'folder');
    for (const j of [...ANTLR_JARS].reverse()) {
      for (const e of (await readInput(jarPath(j))).entries) {
        if (e.isDirectory) continue;
        mkdirSync(dirname(join(folder, e.name)), { recursive: true });
        writeFileSync(join(folder, e.name), e.data);
      }
    }
    instrument(folder, join(work, 'folder-komorium'), ['-q']);
    const run = await antlr('folder', [join(work, 'folder-komorium')], true);
    expect(run.generated).toEqual(plain.generated);
    const fromJars = selfByMethod(readProfile(join(work, 'one.kprof')));
    const fromFolder = selfByMethod(readProfile(join(work, 'folder.kprof')));
    const differ = [...new Set([...fromJars.keys(), ...fromFolder.keys()])].filter((k) => fromJars.get(k) !== fromFolder.get(k));
    expect(differ.map((k) => k.split('\0').join(' '))).toEqual(['org/stringtemplate/v4/STGroupFile <init> (Ljava/net/URL;Ljava/lang/String;CC)V']);
    expect(fromJars.get(differ[0]!)! - fromFolder.get(differ[0]!)!).toBe(8);
  });
});

describe('jars that name each other on their manifest Class-Path (JFlex, CUP)', () => {
  const jflexJars = ['jflex', 'cup', 'cup_runtime'].map(jarPath);

  it('rewritten together, each manifest names the rewritten jars, so java -jar runs them all instrumented', async () => {
    const out = join(work, 'jflex-one');
    const r = cli(['instrument', ...jflexJars, '-d', out]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = readZipEntry(join(out, 'jflex.jar'), 'META-INF/MANIFEST.MF')!.toString('utf8');
    expect(manifest).toContain('Class-Path: cup.jar cup_runtime.jar\r\n'.replace('\r\n', manifest.includes('\r\n') ? '\r\n' : '\n'));
    expect(manifest).toContain('Main-Class: jflex.Main');
    const spec = jflexJavaFlex();
    const args = ['--nobak', '-d'];
    const plainOut = join(work, 'jflex-plain-out');
    const oneOut = join(work, 'jflex-one-out');
    const plainRun = await runJava({ cp: [jarPath('jflex')], main: 'jflex.Main', args: [...args, plainOut, spec] });
    const profile = join(work, 'jflex.kprof');
    const oneRun = await runJava({
      cp: [join(out, 'jflex.jar')],
      main: 'jflex.Main',
      args: [...args, oneOut, spec],
      jvmArgs: ['-Dkomorium.agent=exact', '-Dkomorium.quiet', `-Dkomorium.out=${profile}`],
    });
    expect(oneRun.code, oneRun.stderr).toBe(0);
    expect(oneRun.stdout.replaceAll(oneOut, plainOut)).toBe(plainRun.stdout);
    expect(files(oneOut)).toEqual(files(plainOut));
    // CUP's parser driver calls JFlex's scanner and actions, which call CUP's runtime back: all of it counted.
    const p = readProfile(profile);
    const edge = (from: RegExp, to: RegExp) =>
      p.nodes.some((n) => n.method && to.test(n.method.className) && n.parent?.method && from.test(n.parent.method.className));
    expect(edge(/^jflex\//, /^java_cup\/runtime\//)).toBe(true);
    expect(edge(/^java_cup\/runtime\//, /^jflex\//)).toBe(true);
  });

  it('rewritten alone, a jar reads the jars its manifest names for the class hierarchy and says so', () => {
    const r = cli(['instrument', jarPath('jflex'), '-o', join(work, 'jflex-alone.jar')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/note: \/usr\/share\/java\/cup\.jar \(on the Class-Path of \/usr\/share\/java\/jflex\.jar\) is read for the class hierarchy, not rewritten/);
    expect(r.stdout).not.toMatch(/java_cup\.\S+, which is not in the input or the --classpath/);
  });
});

describe('inputs and outputs of instrument', () => {
  it('a class folder written to a name ending in .jar is a jar, and runs', async () => {
    const src = join(work, 'hello-src');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'Hello.java'), 'public class Hello { public static void main(String[] a) { System.out.println("hello " + a.length); } }\n');
    javac(join(src, 'Hello.java'), join(work, 'hello-classes'));
    const out = join(work, 'hello.jar');
    instrument(join(work, 'hello-classes'), out, ['-q']);
    expect(readFileSync(out).subarray(0, 2).toString('latin1')).toBe('PK');
    const r = await runJava({ cp: [out], main: 'Hello', jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${join(work, 'hello.kprof')}`] });
    expect(r.stdout).toBe('hello 0\n');
    expect(existsSync(join(work, 'hello.kprof'))).toBe(true);
  });

  it('several inputs need -d, not -o; outputs that collide or land on an input are refused, nothing written', async () => {
    const a = join(work, 'a', 'same.jar');
    const b = join(work, 'b', 'same.jar');
    mkdirSync(dirname(a), { recursive: true });
    mkdirSync(dirname(b), { recursive: true });
    await jarDir(join(work, 'hello-classes'), a);
    await jarDir(join(work, 'hello-classes'), b);
    const refused = (args: string[], message: RegExp) => {
      const r = cli(['instrument', ...args]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    };
    refused([a, b], /2 inputs are rewritten as one program into a folder: give -d FOLDER/);
    refused([a, b, '-o', join(work, 'x.jar')], /instead of -o/);
    refused([a, '-o', join(work, 'x.jar'), '-d', join(work, 'x')], /either -o .* or -d/);
    refused([a, b, '-d', work], /output .*a\/same\.jar is the input/);
    refused([a, a, '-d', join(work, 'twice')], /would both be written to/);
    const r = cli(['instrument', a, b, '-d', join(work, 'ab-out')]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(work, 'ab-out', 'a', 'same.jar')) && existsSync(join(work, 'ab-out', 'b', 'same.jar'))).toBe(true);
    expect(existsSync(join(work, 'x.jar')) || existsSync(join(work, 'x'))).toBe(false);
  });
});
