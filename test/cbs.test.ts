/**
 * Issue 20: the cbs kind (seed 004). On every Java fixture the instrumented jars verify in HotSpot
 * and print exactly what the plain program prints, sampled by the timer and by the counting
 * trigger; with period 1, stride 1 and unbounded samples the counting trigger records every call,
 * edge for edge what call-edges counts in the same run. The counting trigger gives the same call
 * graph under -Xint, C1 and C2; the timer thread never keeps the JVM alive and the profile is
 * written at a normal end, at System.exit and on SIGTERM; bad -D values stop the program before
 * it runs; and the CLI reports, draws, merges and measures cbs profiles.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jarDir, javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';
import { describeVerify, verifyJar, type VerifyResult } from './support/verify.js';
import { loadFixtures, type Fixture } from './support/fixtures.js';
import { readDocument } from '../src/profile/read.js';
import { kindNamed } from '../src/kinds/index.js';
import { SectionReader } from '../src/profile/document.js';
import type { CallEdge } from '../src/kinds/call-graph.js';
import type { Cbs } from '../src/kinds/cbs/section.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { runtimeJarPath } from '../src/instrument/runtime-jar.js';
import { readZipEntry } from './support/corpus.js';
import { methodCodeLength } from './support/code-length.js';
import { FREQ_INLINE_SIZE, MAX_INLINE_SIZE } from '../src/bytecode/hotspot-limits.js';

/** Fixtures whose calls differ from run to run (framework.test.ts says why): outputs compared, profiles not. */
const NONDETERMINISTIC = new Set(['control']);
/**
 * The counting trigger counts each thread's calls apart, so with period 1 each thread that calls
 * opens one window: the main thread, and interfaces' three task threads.
 */
const THREADS_CALLING: Record<string, number> = { interfaces: 4 };
/** The counting trigger with period 1, stride 1 and samples unbounded: every call is a sample. */
const EVERY_CALL = ['-Dkomorium.cbs.trigger=checks', '-Dkomorium.cbs.period=1', '-Dkomorium.cbs.stride=1', '-Dkomorium.cbs.samples=2147483647'];
/** The timer, fast, so that even short fixtures are sampled. */
const TIMER = ['-Dkomorium.cbs.period=200us', '-Dkomorium.cbs.stride=3', '-Dkomorium.cbs.samples=4'];

function section<T>(path: string, kind: string): T {
  const doc = readDocument(path);
  const raw = doc.sections.find((s) => s.kind === kind);
  if (!raw) throw new Error(`${path} has no ${kind} section`);
  return kindNamed(kind)!.section.read(new SectionReader(doc, raw)) as T;
}

const edgeRows = (edges: CallEdge[]) =>
  edges.map((e) => `${e.site.key} -> ${e.callee.key} ${e.count}`).sort();

/** Profile records that do not depend on the run: everything but the file header. */
const data = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('header\t'))
    .join('\n');

/** The inheritance fixture compiled into `work`/p.jar, and the fixture. */
async function inheritanceJar(work: string): Promise<{ plain: string; fixture: Fixture }> {
  const classes = join(work, 'classes');
  mkdirSync(classes);
  const fixture = loadFixtures().find((f) => f.name === 'inheritance')!;
  javac(fixture.sources, classes, { release: 17 });
  const plain = join(work, 'p.jar');
  await jarDir(classes, plain);
  return { plain, fixture };
}

interface Built {
  work: string;
  plain: string;
  cbs: string;
  both: string;
  verify: Record<'cbs' | 'both', VerifyResult>;
}

async function build(release: number, list: Fixture[]): Promise<Built> {
  const work = tmpDir(`komorium-cbs-${release}-`);
  const classes = join(work, 'classes');
  mkdirSync(classes);
  javac(list.flatMap((f) => f.sources), classes, { release });
  const plain = join(work, 'fixtures.jar');
  await jarDir(classes, plain);
  const cbs = join(work, 'cbs.jar');
  const both = join(work, 'both.jar');
  instrument(plain, cbs, ['-q', '--profile', 'cbs']);
  instrument(plain, both, ['-q', '--profile', 'cbs,call-edges', '--layout', 'exhaustive']);
  return { work, plain, cbs, both, verify: { cbs: verifyJar(cbs), both: verifyJar(both) } };
}

for (const release of [8, 17]) {
  const list = loadFixtures().filter((f) => f.minRelease <= release && f.pluginSources.length === 0);

  describe(`cbs on every fixture, release ${release}`, () => {
    let b: Built;
    beforeAll(async () => {
      b = await build(release, list);
    });

    test('the instrumented jars verify', () => {
      for (const jar of ['cbs', 'both'] as const) {
        const v = b.verify[jar];
        expect(v.verifyErrors, `${jar}: ${describeVerify(v)}`).toEqual([]);
        expect(v.other, `${jar}: ${describeVerify(v)}`).toEqual([]);
        expect(v.verified, jar).toBe(v.classes);
      }
    });

    for (const f of list) {
      test(`${f.name}: same output sampled by the timer and by every call; every call is the call-edges profile`, async () => {
        const run = (jar: string, props: string[], out: string) =>
          runJava({ cp: [jar], main: `${f.name}.Main`, jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${out}`, ...props], timeoutMs: 180_000 });
        const out = (what: string) => join(b.work, `${f.name}-${what}.kprof`);
        const [plain, timer, every] = await Promise.all([
          runJava({ cp: [b.plain], main: `${f.name}.Main` }),
          run(b.cbs, TIMER, out('timer')),
          run(b.both, EVERY_CALL, out('every')),
        ]);
        expect(plain.stdout).toBe(f.expected);
        for (const [what, r] of [['timer', timer], ['every call', every]] as const) {
          expect(r.stdout, what).toBe(plain.stdout);
          expect(r.stderr, what).toBe(plain.stderr);
          expect(r.code, what).toBe(plain.code);
        }
        expect(section<Cbs>(out('timer'), 'cbs').header.trigger).toBe('timer');
        if (NONDETERMINISTIC.has(f.name)) return;
        const exhaustive = section<{ edges: CallEdge[] }>(out('every'), 'call-edges').edges;
        const sampled = section<Cbs>(out('every'), 'cbs');
        expect(exhaustive.length).toBeGreaterThan(0);
        expect(edgeRows(sampled.edges)).toEqual(edgeRows(exhaustive));
        expect(sampled.header.windows).toBe(THREADS_CALLING[f.name] ?? 1);
      });
    }
  });
}

describe('the entry placements measured against the call placement (KOMORIUM_CBS_PLACEMENT)', () => {
  test('sampling every entry, they see the calls into instrumented methods: the slots exactly, the stack walk all but the ambiguous lines', async () => {
    const work = tmpDir('komorium-cbs-placements-');
    const { plain, fixture: f } = await inheritanceJar(work);
    for (const placement of ['entry-site', 'entry-thread', 'entry-stack']) {
      const jar = join(work, `${placement}.jar`);
      const r = cli(['instrument', plain, '-o', jar, '-q', '--profile', 'cbs,call-edges', '--layout', 'exhaustive'], { env: { KOMORIUM_CBS_PLACEMENT: placement } });
      expect(r.code, r.stderr).toBe(0);
      const out = join(work, `${placement}.kprof`);
      const run = await runJava({ cp: [jar], main: 'inheritance.Main', jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${out}`, ...EVERY_CALL] });
      expect(run.stdout).toBe(f.expected);
      const cbs = section<Cbs>(out, 'cbs');
      expect(cbs.header.placement).toBe(placement);
      // Calls from the JVM and the JDK into the fixture (main, toString from string concatenation) have no instrumented caller.
      expect(cbs.header.dropped).toBeGreaterThan(0);
      const intoFixture = section<{ edges: CallEdge[] }>(out, 'call-edges').edges.filter((e) => e.callee.className.startsWith('inheritance/'));
      if (placement !== 'entry-stack') {
        expect(edgeRows(cbs.edges), placement).toEqual(edgeRows(intoFixture));
        continue;
      }
      // The stack gives the caller's line: Main.main calls IntNode.get twice on one line, and those samples are dropped, not guessed.
      const exact = new Map(intoFixture.map((e) => [`${e.site.key} ${e.callee.key}`, e.count]));
      for (const e of cbs.edges) expect(exact.get(`${e.site.key} ${e.callee.key}`)).toBe(e.count);
      const missed = intoFixture.filter((e) => !cbs.edges.some((c) => c.site.key === e.site.key && c.callee.key === e.callee.key));
      expect(missed.map((e) => `${e.site.method.name}:${e.site.line} ${e.callee.name}`)).toEqual(['main:193 get', 'main:193 get']);
    }
  });
});

/** `sources` compiled into `work`/`name`.jar, and that jar instrumented with cbs into `name`-cbs.jar. */
async function cbsJar(work: string, name: string, sources: string[], release: number): Promise<{ plain: string; jar: string }> {
  const classes = join(work, 'classes');
  mkdirSync(classes);
  javac(sources, classes, { release });
  const plain = join(work, `${name}.jar`);
  await jarDir(classes, plain);
  const jar = join(work, `${name}-cbs.jar`);
  instrument(plain, jar, ['-q', '--profile', 'cbs']);
  return { plain, jar };
}

/** samples/hot, plain and instrumented with cbs, and its output for `args`. */
async function hotJars(work: string, args: string[]): Promise<{ jar: string; expected: string }> {
  const { plain, jar } = await cbsJar(work, 'hot', [join(repoRoot, 'samples', 'hot', 'Main.java')], 17);
  const expected = (await runJava({ cp: [plain], main: 'Main', args })).stdout;
  return { jar, expected };
}

describe('the grid in one run (-Dkomorium.cbs.grid)', () => {
  test('with the counting trigger every cell is byte for byte the run of that cell alone', async () => {
    const work = tmpDir('komorium-cbs-grid-');
    const args = ['100000'];
    const { jar, expected } = await hotJars(work, args);
    const props = ['-Dkomorium.quiet', '-Dkomorium.cbs.trigger=checks', '-Dkomorium.cbs.period=2000'];
    const grid = await runJava({ cp: [jar], main: 'Main', args, jvmArgs: [...props, '-Dkomorium.cbs.grid=1,5x1,6', `-Dkomorium.out=${join(work, 'grid.kprof')}`] });
    expect(grid.stdout).toBe(expected);
    // The profile itself holds the first cell.
    expect(data(join(work, 'grid.kprof'))).toBe(data(join(work, 'grid.stride-1.samples-1.kprof')));
    for (const [stride, samples] of [[1, 1], [1, 6], [5, 1], [5, 6]]) {
      const out = join(work, `alone-${stride}-${samples}.kprof`);
      const r = await runJava({ cp: [jar], main: 'Main', args, jvmArgs: [...props, `-Dkomorium.cbs.stride=${stride}`, `-Dkomorium.cbs.samples=${samples}`, `-Dkomorium.out=${out}`] });
      expect(r.stdout).toBe(expected);
      const cell = data(join(work, `grid.stride-${stride}.samples-${samples}.kprof`));
      expect(cell, `${stride}/${samples}`).toMatch(/^edge\t/m);
      expect(cell, `${stride}/${samples}`).toBe(data(out));
    }
  });
});

describe('the counting trigger does not depend on the JIT', () => {
  test('samples/hot gives byte-identical cbs sections under -Xint, C1 and C2, and run to run', async () => {
    const work = tmpDir('komorium-cbs-jit-');
    const args = ['300000'];
    const { jar, expected } = await hotJars(work, args);
    const modes: Record<string, string[]> = { int: ['-Xint'], c1: ['-XX:TieredStopAtLevel=1'], c2: [], again: [] };
    const outs: Record<string, string> = {};
    for (const [name, flags] of Object.entries(modes)) {
      const out = join(work, `${name}.kprof`);
      const r = await runJava({
        cp: [jar],
        main: 'Main',
        args,
        jvmArgs: [...flags, '-Dkomorium.quiet', '-Dkomorium.cbs.trigger=checks', '-Dkomorium.cbs.period=5000', '-Dkomorium.cbs.stride=7', `-Dkomorium.out=${out}`],
      });
      expect(r.stdout, name).toBe(expected);
      outs[name] = data(out);
    }
    expect(outs.int).toMatch(/^edge\t/m);
    expect(outs.int).toMatch(/^windows\t[1-9]/m);
    for (const name of ['c1', 'c2', 'again']) expect(outs[name], name).toBe(outs.int);
  });
});

describe('the counting trigger does not depend on how threads interleave', () => {
  test('four threads calling at once give byte-identical cbs sections run to run and under -Xint', async () => {
    const work = tmpDir('komorium-cbs-threads-');
    const { plain, jar } = await cbsJar(work, 'threads', [join(repoRoot, 'test', 'fixtures', 'cbs-threads', 'Main.java')], 17);
    const args = ['400000'];
    const expected = (await runJava({ cp: [plain], main: 'Main', args })).stdout;
    const outs: string[] = [];
    for (const [name, flags] of [['c2', []], ['again', []], ['int', ['-Xint']]] as const) {
      const out = join(work, `${name}.kprof`);
      const r = await runJava({
        cp: [jar],
        main: 'Main',
        args,
        jvmArgs: [...flags, '-Dkomorium.quiet', '-Dkomorium.cbs.trigger=checks', '-Dkomorium.cbs.period=997', '-Dkomorium.cbs.stride=3', `-Dkomorium.out=${out}`],
        timeoutMs: 180_000,
      });
      expect(r.stdout, name).toBe(expected);
      outs.push(data(out));
    }
    // About two million calls at period 997: thousands of windows, most of them in the workers.
    expect(outs[0]).toMatch(/^windows\t[1-9]\d{3}/m);
    expect(outs[1]).toBe(outs[0]);
    expect(outs[2]).toBe(outs[0]);
  });
});

describe('what C2 makes of a check', () => {
  // HotSpot's defaults: a callee of at most MaxInlineSize bytes of bytecode is inlined wherever it
  // ran, a hot one of at most FreqInlineSize bytes too. The handlers must inline to a decrement
  // and one call of the out-of-line reached(), which must stay too big to inline (Cbs.java says
  // what it cost when not).
  test('every handler is a decrement and a call of reached(), which is too big for C2 to inline', () => {
    const cf = ClassFile.parse(readZipEntry(runtimeJarPath(), 'komorium/runtime/Cbs.class')!, 'Cbs.class');
    const length = (name: string, desc: string) => methodCodeLength(cf, name, desc);
    for (const [name, desc] of [['call', '(I)V'], ['call', '(Ljava/lang/Object;I)V'], ['entry', '(I)V'], ['entryAfterSite', '(I)V'], ['entryAfterThreadSite', '(I)V']]) {
      expect(length(name!, desc!), `${name}${desc}`).toBeLessThanOrEqual(MAX_INLINE_SIZE);
    }
    expect(length('reached', '(Lkomorium/runtime/CbsClock;ILjava/lang/Object;I)V')).toBeGreaterThan(FREQ_INLINE_SIZE);
  });
});

/**
 * A method HotSpot compiles (under 8,000 bytes) with so many calls that a check before each would
 * push it past HugeMethodLimit: a `while` loop whose switch has CASES cases of three calls, each
 * case a `continue` (a backedge of its own to the loop head).
 */
function bigLoopSource(cases: number): string {
  const arms = Array.from({ length: cases }, (_, k) => `        case ${k}: s += a(i + ${k}) + b(s) + g.f(${k}); continue;`);
  return `public class Big {
  interface F { int f(int x); }
  static int a(int x) { return x * 3 + 1; }
  static int b(long x) { return (int) (x >>> 7) ^ 5; }
  static long loop(int n, F g) {
    long s = 0;
    int i = 0;
    while (i < n) {
      i++;
      switch (i % ${cases}) {
${arms.join('\n')}
        default: s--;
      }
    }
    return s;
  }
  public static void main(String[] args) {
    int n = Integer.parseInt(args[0]);
    F g = x -> x + 7;
    long s = loop(n, g);
    // A second argument keeps the loop running that many milliseconds, so that a timer thread that
    // a loaded machine schedules late still finds the loop running.
    if (args.length > 1) {
      // nanoTime may be negative and is compared by difference (its javadoc).
      long until = System.nanoTime() + Long.parseLong(args[1]) * 1000000L;
      while (System.nanoTime() - until < 0) {
        loop(n, g);
      }
    }
    System.out.println(s);
  }
}
`;
}

describe('a method the checks would push past HugeMethodLimit', () => {
  test('keeps its checks at its entry and loop heads and its probes in a twin: it stays compilable and every call is still seen', async () => {
    const work = tmpDir('komorium-cbs-huge-');
    const src = join(work, 'src');
    mkdirSync(src);
    writeFileSync(join(src, 'Big.java'), bigLoopSource(180));
    const classes = join(work, 'classes');
    mkdirSync(classes);
    javac([join(src, 'Big.java')], classes, { release: 17 });
    const plain = join(work, 'big.jar');
    await jarDir(classes, plain);
    const cbs = join(work, 'cbs.jar');
    const edges = join(work, 'edges.jar');
    const r = instrument(plain, cbs, ['--profile', 'cbs']);
    expect(r.stdout).toMatch(/1 × exhaustive -> full-dup: code would grow, past HotSpot's 8000-byte HugeMethodLimit \(Big\.loop\(ILBig\$F;\)J\)/);
    instrument(plain, edges, ['-q', '--profile', 'call-edges', '--layout', 'exhaustive']);
    const codeLength = (jar: string, name: string) => methodCodeLength(ClassFile.parse(readZipEntry(jar, 'Big.class')!, 'Big.class'), name);
    expect(codeLength(plain, 'loop')).toBeLessThanOrEqual(8000);
    expect(codeLength(edges, 'loop')).toBeGreaterThan(8000);
    expect(codeLength(cbs, 'loop')).toBeLessThanOrEqual(8000);
    // A static method's twin is named apart from an instance method's (twin.ts).
    expect(codeLength(cbs, 'loop$static$sample$komorium')).toBeGreaterThan(0);
    const v = verifyJar(cbs);
    expect(v.verifyErrors, describeVerify(v)).toEqual([]);

    const args = ['20000'];
    const run = (jar: string, props: string[], out: string, extra: string[] = []) =>
      runJava({ cp: [jar], main: 'Big', args: [...args, ...extra], jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${join(work, out)}`, ...props] });
    const [expected, timer, every, exact] = await Promise.all([
      runJava({ cp: [plain], main: 'Big', args }),
      // The loop alone can end before the timer thread first runs (CI, four JVMs on two cores: 0 samples).
      run(cbs, TIMER, 'timer.kprof', ['1500']),
      run(cbs, EVERY_CALL, 'every.kprof'),
      run(edges, [], 'exact.kprof'),
    ]);
    for (const [what, x] of [['timer', timer], ['every call', every], ['call-edges', exact]] as const) {
      expect(x.stdout, what).toBe(expected.stdout);
      expect(x.code, what).toBe(0);
    }
    expect(section<Cbs>(join(work, 'timer.kprof'), 'cbs').header.samples).toBeGreaterThan(0);
    // With the flag always up the twin runs every iteration: every call of the loop is sampled.
    const exhaustive = section<{ edges: CallEdge[] }>(join(work, 'exact.kprof'), 'call-edges').edges;
    expect(exhaustive.filter((e) => e.site.method.key.startsWith('Big\0loop\0')).length).toBeGreaterThan(3 * 179);
    expect(edgeRows(section<Cbs>(join(work, 'every.kprof'), 'cbs').edges)).toEqual(edgeRows(exhaustive));
  });
});

describe('the timer thread', () => {
  let work: string;
  let jar: string;
  beforeAll(async () => {
    work = tmpDir('komorium-cbs-timer-');
    const src = join(work, 'src');
    mkdirSync(join(src, 'spin'), { recursive: true });
    // Calls for a while, then ends as asked: by returning from main, by System.exit(3), or never.
    writeFileSync(
      join(src, 'spin', 'Main.java'),
      `package spin;
public class Main {
  static int f(int x) { return x * 31 + 7; }
  public static void main(String[] args) throws Exception {
    long until = System.nanoTime() + 400_000_000L;
    int s = 0;
    while (System.nanoTime() < until) for (int i = 0; i < 1000; i++) s = f(s);
    System.out.println("running " + (s == 42));
    if (args[0].equals("exit")) System.exit(3);
    while (args[0].equals("forever")) for (int i = 0; i < 1000; i++) s = f(s);
  }
}
`,
    );
    jar = (await cbsJar(work, 'spin', [join(src, 'spin', 'Main.java')], 8)).jar;
  });

  const complete = (path: string) => {
    const s = section<Cbs>(path, 'cbs');
    expect(s.header.ticks).toBeGreaterThan(5);
    expect(s.header.windows).toBeGreaterThan(5);
    expect(s.header.achieved).toBeGreaterThan(0);
    expect(s.header.samples).toBe(s.edges.reduce((n, e) => n + e.count, 0));
    expect(s.edges.map((e) => `${e.site.method.name}->${e.callee.name}`)).toContain('main->f');
  };

  for (const [mode, code, signal] of [
    ['return', 0, undefined],
    ['exit', 3, undefined],
    ['forever', 143, 'SIGTERM'],
  ] as const) {
    test(`${mode === 'forever' ? 'SIGTERM' : mode === 'exit' ? 'System.exit' : 'main returns'}: the JVM ends at once and the profile is complete`, async () => {
      const out = join(work, `${mode}.kprof`);
      const t0 = Date.now();
      const r = await runJava({
        cp: [jar],
        main: 'spin.Main',
        args: [mode],
        jvmArgs: ['-Dkomorium.quiet', '-Dkomorium.cbs.period=5ms', `-Dkomorium.out=${out}`],
        signalWhen: signal ? { when: 'running', signal } : undefined,
        timeoutMs: 60_000,
      });
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('running false\n');
      // 0.4 s of calls; a timer thread that kept the JVM alive would hit the 60 s timeout.
      expect(Date.now() - t0).toBeLessThan(30_000);
      complete(out);
    });
  }
});

describe('the timer with its window spread over the calls (-Dkomorium.cbs.spread=calls)', () => {
  test('a call that follows each call-free stretch gets the share of the calls it has, not of the time', async () => {
    const work = tmpDir('komorium-cbs-spread-');
    const src = join(work, 'src');
    mkdirSync(join(src, 'bias'), { recursive: true });
    // Almost all the time goes into sleeping, which makes no call; then one call of after() and
    // 2,000 of busy(). A tick nearly always lands in the sleep, so the paper's window, which opens
    // at the next call, starts at after() (one call in 2,003) a third of the time with stride 3.
    // (A loop of arithmetic instead of the sleep was not enough: on a loaded CI machine its ticks
    // came in anywhere, and after() got 0.03% of the samples without the spread.)
    writeFileSync(
      join(src, 'bias', 'Main.java'),
      `package bias;
public class Main {
  static int sink;
  static void after() { sink++; }
  static void busy(int i) { sink += i; }
  public static void main(String[] args) throws InterruptedException {
    long until = System.nanoTime() + 2_000_000_000L;
    while (System.nanoTime() < until) {
      Thread.sleep(1);
      after();
      for (int i = 0; i < 2_000; i++) busy(i);
    }
    System.out.println("done " + (sink == 42));
  }
}
`,
    );
    const { jar } = await cbsJar(work, 'bias', [join(src, 'bias', 'Main.java')], 17);
    const afterShare = async (spread: string) => {
      const out = join(work, `${spread}.kprof`);
      const props = ['-Dkomorium.quiet', '-Dkomorium.cbs.period=2ms', '-Dkomorium.cbs.stride=3', '-Dkomorium.cbs.samples=4'];
      const r = await runJava({ cp: [jar], main: 'bias.Main', jvmArgs: [...props, `-Dkomorium.cbs.spread=${spread}`, `-Dkomorium.out=${out}`] });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('done false\n');
      const cbs = section<Cbs>(out, 'cbs');
      expect(cbs.header.spread).toBe(spread);
      const total = cbs.edges.reduce((n, e) => n + e.count, 0);
      const after = cbs.edges.filter((e) => e.callee.name === 'after').reduce((n, e) => n + e.count, 0);
      return { total, share: after / total };
    };
    // Exact share of after(): 1 call in 2,003 (with System.nanoTime and Thread.sleep), 0.05%.
    const none = await afterShare('none');
    const calls = await afterShare('calls');
    console.log(`cbs spread: after() has ${(none.share * 100).toFixed(2)}% of ${none.total} samples right after the tick, ${(calls.share * 100).toFixed(2)}% of ${calls.total} spread over the calls (exact 0.05%)`);
    expect(none.total).toBeGreaterThan(100);
    expect(calls.total).toBeGreaterThan(100);
    // Right after the tick, about a twelfth of the samples (one window of four in three starts at
    // after()); spread over the calls, near the exact share (the bound is learnt from 1,024 calls
    // upwards, so the first windows start early).
    expect(none.share).toBeGreaterThan(0.04);
    expect(calls.share).toBeLessThan(0.03);
  });
});

describe('bad -D values stop the program before it runs', () => {
  const cases: [string, RegExp][] = [
    ['-Dkomorium.cbs.stride=0', /^komorium: -Dkomorium\.cbs\.stride=0 is not valid \(expected an integer >= 1\); the program was not started$/],
    ['-Dkomorium.cbs.samples=-1', /^komorium: -Dkomorium\.cbs\.samples=-1 is not valid \(expected an integer >= 1\); the program was not started$/],
    ['-Dkomorium.cbs.period=soon', /^komorium: -Dkomorium\.cbs\.period=soon is not valid \(expected a duration .*\); the program was not started$/],
    ['-Dkomorium.cbs.period=10xs', /^komorium: -Dkomorium\.cbs\.period=10xs is not valid/],
    ['-Dkomorium.cbs.period=0ms', /^komorium: -Dkomorium\.cbs\.period=0ms is not valid/],
    ['-Dkomorium.cbs.trigger=clock', /^komorium: -Dkomorium\.cbs\.trigger=clock is not valid \(expected timer, checks or bytecodes\); the program was not started$/],
    ['-Dkomorium.cbs.spread=50', /^komorium: -Dkomorium\.cbs\.spread=50 is not valid \(expected none or calls\); the program was not started$/],
    ['-Dkomorium.cbs.grid=1,0x16', /^komorium: -Dkomorium\.cbs\.grid=1,0x16 is not valid \(expected two comma-separated lists of integers >= 1 joined by x, such as 1,3,7x1,16\); the program was not started$/],
  ];
  let jar: string;
  let work: string;
  beforeAll(async () => {
    work = tmpDir('komorium-cbs-bad-');
    const { plain } = await inheritanceJar(work);
    jar = join(work, 'p-cbs.jar');
    instrument(plain, jar, ['-q', '--profile', 'cbs']);
  });

  test.each([...cases, ['-Dkomorium.cbs.trigger=checks -Dkomorium.cbs.period=10ms', /^komorium: -Dkomorium\.cbs\.period=10ms is not valid \(expected a number of calls >= 1 with komorium\.cbs\.trigger=checks; a duration only with the timer\)/] as [string, RegExp]])(
    '%s',
    async (props, message) => {
      const out = join(work, 'never.kprof');
      const r = await runJava({ cp: [jar], main: 'inheritance.Main', jvmArgs: [...props.split(' '), `-Dkomorium.out=${out}`] });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(existsSync(out)).toBe(false);
    },
  );
});

describe('the CLI with cbs profiles', () => {
  let work: string;
  let every: string;
  let sampled: string;
  beforeAll(async () => {
    work = tmpDir('komorium-cbs-cli-');
    const { plain } = await inheritanceJar(work);
    const both = join(work, 'both.jar');
    instrument(plain, both, ['-q', '--profile', 'cbs,call-edges', '--layout', 'exhaustive']);
    every = join(work, 'every.kprof');
    sampled = join(work, 'sampled.kprof');
    await runJava({ cp: [both], main: 'inheritance.Main', jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${every}`, ...EVERY_CALL] });
    await runJava({
      cp: [both],
      main: 'inheritance.Main',
      jvmArgs: ['-Dkomorium.quiet', `-Dkomorium.out=${sampled}`, '-Dkomorium.cbs.trigger=checks', '-Dkomorium.cbs.period=3', '-Dkomorium.cbs.stride=2', '-Dkomorium.cbs.samples=2'],
    });
  });

  test('a sampled layout beside cbs is refused: cbs samples by its own trigger', () => {
    const r = cli(['instrument', '/usr/share/java/commons-lang3.jar', '-o', join(work, 'x.jar'), '--profile', 'cbs,call-edges']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--layout full-dup \(the default\): cbs samples on its own .* only with --layout exhaustive \(which records every event of call-edges too\)/);
    expect(existsSync(join(work, 'x.jar'))).toBe(false);
    const alone = cli(['instrument', '/usr/share/java/commons-lang3.jar', '-o', join(work, 'x.jar'), '--profile', 'cbs', '--layout', 'no-dup']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--layout no-dup: cbs samples on its own .* only with --layout exhaustive$/m);
    expect(existsSync(join(work, 'x.jar'))).toBe(false);
  });

  test('report: the top edges with their sites as stack traces show them, and --method', () => {
    const r = cli(['report', sampled]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cbs: [\d,]+ samples on \d+ edges in \d+ windows \(checks trigger every 3 calls, stride 2, 2 samples per window\)$/m);
    // Sites as a stack trace shows a position, Class.method(File.java:line); callees as methods.
    expect(r.stdout).toMatch(/^ +[\d.]+% +\d+ +inheritance\.Main(\$\w+)?\.[\w<>]+\(Main\.java:\d+\) +→ +inheritance\.Main\$\w+\.\w+\(/m);
    const m = cli(['report', sampled, '--method', 'inheritance.Main$Animal.speak']);
    expect(m.stdout).toMatch(/Called from \(\d+ edges\):/);
    expect(m.stdout).toMatch(/Calls \(\d+ edges\):/);
  });

  test('report --format dot: one digraph per call graph, the heaviest edges', () => {
    const r = cli(['report', every, '--format', 'dot', '--top', '5']);
    expect(r.code).toBe(0);
    const graphs = r.stdout.match(/^digraph "([^"]+)" \{$/gm);
    expect(graphs).toEqual(['digraph "call-edges" {', 'digraph "cbs" {']);
    expect(r.stdout.match(/ -> /g)).toHaveLength(10);
    // The same graph in both: every call was a sample.
    const [ce, cbs] = r.stdout.split('\n\n');
    expect(cbs!.replace('digraph "cbs"', 'digraph "call-edges"')).toBe(ce + '\n');
    const none = cli(['report', join(repoRoot, 'test', 'fixtures', 'profiles', 'exact.kprof'), '--format', 'dot']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--format dot draws a call graph \(a call-edges, call-pairs or cbs section\), and this profile holds komorium/);
  });

  test('diff --accuracy measures cbs against the call-edges section of the exhaustive profile', () => {
    const self = cli(['diff', '--accuracy', every, every]);
    expect(self.code).toBe(0);
    expect(self.stdout).toMatch(/^ {2}cbs against call-edges\s+100\.00%/m);
    const r = cli(['diff', '--accuracy', every, sampled, '--format', 'json']);
    const rows = JSON.parse(r.stdout).kinds as { kind: string; against?: string; overlap: number }[];
    const cbs = rows.find((x) => x.kind === 'cbs')!;
    expect(cbs.against).toBe('call-edges');
    expect(cbs.overlap).toBeGreaterThan(0.3);
    expect(cbs.overlap).toBeLessThan(1);
  });

  test('merge sums cbs sections of the same sampling and refuses different ones', async () => {
    const merged = join(work, 'merged.kprof');
    const r = cli(['merge', sampled, sampled, '-o', merged]);
    expect(r.code, r.stderr).toBe(0);
    const one = section<Cbs>(sampled, 'cbs');
    const two = section<Cbs>(merged, 'cbs');
    expect(two.header.samples).toBe(2 * one.header.samples);
    expect(two.header.windows).toBe(2 * one.header.windows);
    const bad = cli(['merge', sampled, every, '-o', join(work, 'bad.kprof')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/the cbs section of .*every\.kprof was sampled with checks trigger every 1 calls, stride 1, .* but that of .*sampled\.kprof with checks trigger every 3 calls/);
  });

  test('the spread record: absent (a profile written before it) reads as none, an unknown value names the file and line', () => {
    const text = readFileSync(sampled, 'utf8');
    expect(text).toMatch(/^spread\tnone$/m);
    // Without the line, and with the end line's count of the lines after the header one less.
    const old = join(work, 'old.kprof');
    writeFileSync(old, text.replace(/^spread\tnone\n/m, '').replace(/^end\t(\d+)$/m, (_, n: string) => `end\t${Number(n) - 1}`));
    expect(section<Cbs>(old, 'cbs').header.spread).toBe('none');
    expect(edgeRows(section<Cbs>(old, 'cbs').edges)).toEqual(edgeRows(section<Cbs>(sampled, 'cbs').edges));
    const odd = join(work, 'odd.kprof');
    writeFileSync(odd, text.replace(/^spread\tnone$/m, 'spread\tsometimes'));
    const r = cli(['report', odd]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/odd\.kprof:\d+: spread "sometimes" is not none or calls/);
  });
});
