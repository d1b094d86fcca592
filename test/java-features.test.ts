/**
 * Issue 4: everything javac produces. Each folder of test/fixtures/java is a small deterministic program
 * (`<folder>.Main`) with its exact standard output in expected.txt beside it (JaCoCo-validation style). For each
 * Java release, all fixtures are compiled in one javac call and packed in one jar; the jar is instrumented once by
 * the real CLI and verified class by class by HotSpot; then each Main runs uninstrumented (which validates the
 * fixture against expected.txt), instrumented, and instrumented with the exact agent, all with bytecode
 * verification on. Output and exit code must be byte-identical.
 *
 * A fixture states the first release it compiles for in a `// fixture: min-release N` line of its Main.java.
 * Sources under a `plugin/` folder are not part of the program: they are compiled against the uninstrumented
 * classes into a folder of their own, passed as -Dfixture.plugins, and loaded at run time by the fixture.
 *
 * Releases 8, 11 and 17 use the default JDK (17). Releases 21 and 25 need a newer JDK in /usr/lib/jvm (the
 * machine image carries Temurin 25); without one those releases are skipped with a loud warning, and only those.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { javac, jarDir, repoRoot, runJava, tmpDir, type RunJavaResult } from './support/java.js';
import { javaFiles, loadFixtures, type Fixture } from './support/fixtures.js';
import { instrument } from './support/komorium.js';
import { verifyJar, describeVerify, type VerifyResult } from './support/verify.js';
import { debianJar, debianClasspathFor, javaHome, jdkMajor, readZipEntry, secondJdkHome } from './support/corpus.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { OP } from '../src/bytecode/opcodes.js';
import { isLabel } from '../src/bytecode/ir.js';

const fixtures = loadFixtures();

/** The JDK that compiles and runs a release, or null (with the reason) when none is installed. */
function jdkFor(release: number): { home: string | undefined; skip: string | null } {
  if (release <= 17) return { home: undefined, skip: null };
  const second = secondJdkHome();
  if (second && jdkMajor(second) >= release) return { home: second, skip: null };
  const found = second ? `${second} is JDK ${jdkMajor(second)}` : `only ${javaHome()} (JDK ${jdkMajor()}) is installed`;
  return { home: undefined, skip: `release ${release} needs a JDK ${release} or newer in /usr/lib/jvm (e.g. Temurin 25): ${found}` };
}

const QUIET = ['-Dkomorium.quiet=true'];

interface Built {
  work: string;
  plainJar: string;
  instrumentedJar: string;
  pluginsOf: Map<string, string>;
  verify: VerifyResult;
  report: { leftAsIs: unknown[]; warnings: string[]; totals: Record<string, number> };
}

/** Compiles every fixture of a release in one javac call, packs one jar, instruments it once and verifies it. */
async function build(release: number, jdk: string | undefined, list: Fixture[]): Promise<Built> {
  const work = tmpDir(`komorium-features-${release}-`);
  const classes = join(work, 'classes');
  mkdirSync(classes);
  javac(
    list.flatMap((f) => f.sources),
    classes,
    { release, jdk },
  );
  const pluginsOf = new Map<string, string>();
  for (const f of list) {
    if (f.pluginSources.length === 0) continue;
    const dir = join(work, 'plugins', f.name);
    mkdirSync(dir, { recursive: true });
    javac(f.pluginSources, dir, { release, jdk, classpath: [classes] });
    pluginsOf.set(f.name, dir);
  }
  const plainJar = join(work, 'fixtures.jar');
  const instrumentedJar = join(work, 'fixtures-komorium.jar');
  await jarDir(classes, plainJar);
  const reportPath = join(work, 'report.json');
  instrument(plainJar, instrumentedJar, ['-q', '--report-json', reportPath]);
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Built['report'];
  const verify = verifyJar(instrumentedJar, [], jdk ? { javaHome: jdk } : {});
  return { work, plainJar, instrumentedJar, pluginsOf, verify, report };
}

async function runMain(
  b: Built,
  f: Fixture,
  jar: string,
  jdk: string | undefined,
  extra: string[] = [],
  args: string[] = [],
): Promise<RunJavaResult> {
  const plugins = b.pluginsOf.get(f.name);
  const jvmArgs = [...(plugins ? [`-Dfixture.plugins=${plugins}`] : []), ...extra];
  return runJava({ cp: [jar], main: `${f.name}.Main`, args, jvmArgs, jdk, timeoutMs: 180_000 });
}

function profileArgs(b: Built, name: string, agent?: string): string[] {
  return [...QUIET, `-Dkomorium.out=${join(b.work, `${name}.kprof`)}`, ...(agent ? [`-Dkomorium.agent=${agent}`] : [])];
}

const RELEASES = [8, 11, 17, 21, 25];

for (const release of RELEASES) {
  const { home: jdk, skip } = jdkFor(release);
  const list = fixtures.filter((f) => f.minRelease <= release);
  if (skip) {
    // Loud: a missing newer JDK is the only reason a release may be skipped.
    console.warn(`\n*** java-features: SKIPPING ${skip} ***\n`);
  }
  describe.skipIf(skip !== null)(`release ${release}${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
    let b: Built;

    beforeAll(async () => {
      b = await build(release, jdk, list);
    });

    test('the instrumented jar verifies, nothing is left uninstrumented', () => {
      expect(b.verify.verifyErrors, describeVerify(b.verify)).toEqual([]);
      expect(b.verify.other, describeVerify(b.verify)).toEqual([]);
      expect(b.verify.missing, describeVerify(b.verify)).toEqual([]);
      expect(b.verify.verified).toBe(b.verify.classes);
      expect(b.report.leftAsIs).toEqual([]);
      expect(b.report.warnings).toEqual([]);
    });

    test('bigargs: extended versions up to 252 argument slots, in place beyond', () => {
      const bytes = readZipEntry(b.instrumentedJar, 'bigargs/Main.class')!;
      const names = new Set(ClassFile.parse(bytes, 'bigargs/Main.class').methods.map((m) => m.name));
      for (const m of ['s252', 'i251', 'd126', 'mixed']) expect(names.has(`${m}$komorium`), m).toBe(true);
      for (const m of ['s253', 's255', 'i252', 'i127']) expect(names.has(`${m}$komorium`), m).toBe(false);
    });

    test('runtimesub: interface calls reach instrumented implementations through the companion interface', () => {
      const interfacesOf = (name: string) => ClassFile.parse(readZipEntry(b.instrumentedJar, `${name}.class`)!, name).interfaces;
      // measure is implemented by the class (BaseMeter) or a superclass-declared abstract method's override (ConcreteMeter).
      expect(interfacesOf('runtimesub/BaseMeter')).toContain('runtimesub/Meter$$komoriumCalls');
      expect(interfacesOf('runtimesub/ConcreteMeter')).toContain('runtimesub/Meter$$komoriumCalls');
      // No extended version of an unimplemented abstract method, or of one inherited from the JDK.
      expect(interfacesOf('runtimesub/AbstractMeter')).toEqual(['runtimesub/Meter']);
      expect(interfacesOf('runtimesub/SizedList')).toEqual(['runtimesub/Sized']);
      const companion = ClassFile.parse(readZipEntry(b.instrumentedJar, 'runtimesub/Meter$$komoriumCalls.class')!, 'companion');
      expect(companion.methods.map((m) => m.name + m.desc)).toEqual(['measure$komorium(ILkomorium/runtime/TC;[II)I']);
      // The interface itself is untouched: its reflection, proxies and lambdas see no new method.
      const meter = ClassFile.parse(readZipEntry(b.instrumentedJar, 'runtimesub/Meter.class')!, 'Meter');
      expect(meter.interfaces).toEqual([]);
      expect(meter.methods.filter((m) => (m.access & 0x0400) !== 0).map((m) => m.name)).toEqual(['measure']);
    });

    test('newcalls: `new` and super(…) of constructors in another package pass the reified stack', () => {
      const parse = (name: string) => ClassFile.parse(readZipEntry(b.instrumentedJar, `${name}.class`)!, name);
      const calls = (name: string) => {
        const cf = parse(name);
        const out: string[] = [];
        for (const m of cf.methods) {
          const attr = m.attributes.find((a) => a.name === 'Code');
          if (!attr) continue;
          for (const n of readCode(cf, m, attr).nodes) {
            if (isLabel(n) || (n.op !== OP.INVOKESPECIAL && n.op !== OP.INVOKESTATIC)) continue;
            const ref = cf.cp.memberRef(n.cp!);
            if (ref.owner.startsWith('newcalls/shapes/')) out.push(`${n.op === OP.INVOKESPECIAL ? 'special' : 'static'} ${ref.owner}.${ref.name}${ref.desc}`);
          }
        }
        return out;
      };
      // Every `new` of Main reaches shapes through a factory, and super(...) of a protected
      // constructor the extended one, which is protected too.
      expect(calls('newcalls/Main').filter((c) => c.startsWith('special'))).toEqual([]);
      expect(calls('newcalls/Main').filter((c) => c.includes('.komorium$new(')).length).toBe(11);
      expect(calls('newcalls/Main$Named')).toEqual(['special newcalls/shapes/Point.<init>(Ljava/lang/String;Lkomorium/runtime/TC;[II)V']);
      // One factory per public constructor (not the protected one), and the constant that initializes the class.
      const point = parse('newcalls/shapes/Point');
      expect(point.methods.filter((m) => m.name === 'komorium$new').map((m) => m.desc).sort()).toEqual([
        '(DJLjava/lang/String;Lkomorium/runtime/TC;[II)Lnewcalls/shapes/Point;',
        '(DJLkomorium/runtime/TC;[II)Lnewcalls/shapes/Point;',
        '(Ljava/util/List;Lkomorium/runtime/TC;[II)Lnewcalls/shapes/Point;',
        '([ILkomorium/runtime/TC;[II)Lnewcalls/shapes/Point;',
      ]);
      expect(point.fields.filter((f) => f.name === 'komorium$new').map((f) => f.access)).toEqual([0x1019]);
      // Extended constructors are never public (getConstructors() does not list them): those of public
      // and protected constructors are protected.
      const extended = point.methods.filter((m) => m.name === '<init>' && m.desc.includes('komorium'));
      expect(extended.length).toBe(5);
      expect(extended.map((m) => m.access & 0x0007)).toEqual([0x0004, 0x0004, 0x0004, 0x0004, 0x0004]);
      // A package-private interface's companion is package-private too: Tag (its package) implements
      // it, the subclass in newcalls inherits it and does not list it (IllegalAccessError otherwise).
      expect(parse('newcalls/shapes/Tag').interfaces).toEqual(['newcalls/shapes/Tagged', 'newcalls/shapes/Tagged$$komoriumCalls']);
      expect(parse('newcalls/Main$Custom').interfaces).toEqual([]);
    });

    if (release === 8 || release === 17) {
      test('control: C1 compiles every instrumented method with finally and synchronized handlers', async () => {
        const f = list.find((x) => x.name === 'control')!;
        // -Xcomp makes C1 compile each method at its first call; a handler covering its own throwing
        // entry makes C1 give up ("exception handler covers itself").
        const r = await runMain(b, f, b.instrumentedJar, jdk, [...profileArgs(b, 'c1'), '-Xcomp', '-XX:TieredStopAtLevel=1', '-XX:+PrintCompilation']);
        expect(r.code).toBe(0);
        const compiled = r.stdout.split('\n').filter((l) => /control\.Main::\w+\$komorium/.test(l));
        expect(compiled.length).toBeGreaterThan(5);
        expect(r.stdout.split('\n').filter((l) => l.includes('COMPILE SKIPPED') && l.includes('control.'))).toEqual([]);
      });
    }

    for (const f of list) {
      test(`${f.name}: same output instrumented, with the sampling and the exact agent`, async () => {
        const plain = await runMain(b, f, b.plainJar, jdk);
        expect(plain.stderr).toBe('');
        expect(plain.code).toBe(0);
        expect(plain.stdout, 'the uninstrumented fixture must print expected.txt').toBe(f.expected);
        const [sampled, exact] = await Promise.all([
          runMain(b, f, b.instrumentedJar, jdk, profileArgs(b, f.name)),
          runMain(b, f, b.instrumentedJar, jdk, profileArgs(b, `${f.name}-exact`, 'exact')),
        ]);
        for (const [what, r] of [
          ['sampling', sampled],
          ['exact', exact],
        ] as const) {
          expect(r.stderr, `${what} agent: stderr`).toBe(plain.stderr);
          expect(r.stdout, `${what} agent: stdout`).toBe(plain.stdout);
          expect(r.code, `${what} agent: exit code`).toBe(plain.code);
        }
      });
    }

    if (release === 8 || release === 17) {
      test('runtimesub with Derived excluded: overrides in an uninstrumented superclass are still reached', async () => {
        const f = list.find((x) => x.name === 'runtimesub')!;
        const partial = join(b.work, 'fixtures-partial.jar');
        instrument(b.plainJar, partial, ['-q', '--exclude', 'runtimesub.Derived']);
        const r = await runMain(b, f, partial, jdk, profileArgs(b, 'partial'));
        expect(r.stderr).toBe('');
        expect(r.stdout).toBe(f.expected);
      });
    }

    if (list.some((f) => f.name === 'serial')) {
      test('serial: data written by the uninstrumented program reads instrumented, and back; same serialVersionUIDs', async () => {
        const f = list.find((x) => x.name === 'serial')!;
        const fromPlain = join(b.work, 'plain.ser');
        const fromInstrumented = join(b.work, 'instrumented.ser');
        expect((await runMain(b, f, b.plainJar, jdk, [], ['write', fromPlain])).code).toBe(0);
        expect((await runMain(b, f, b.instrumentedJar, jdk, profileArgs(b, 'ser-w'), ['write', fromInstrumented])).code).toBe(0);
        const readByInstrumented = await runMain(b, f, b.instrumentedJar, jdk, profileArgs(b, 'ser-r'), ['read', fromPlain]);
        expect(readByInstrumented.stderr).toBe('');
        expect(readByInstrumented.stdout).toBe(f.expected);
        const readByPlain = await runMain(b, f, b.plainJar, jdk, [], ['read', fromInstrumented]);
        expect(readByPlain.stderr).toBe('');
        expect(readByPlain.stdout).toBe(f.expected);
        const suidPlain = await runMain(b, f, b.plainJar, jdk, [], ['suid']);
        const suidInstrumented = await runMain(b, f, b.instrumentedJar, jdk, profileArgs(b, 'ser-s'), ['suid']);
        expect(suidPlain.stdout).toMatch(/^Person -?\d+$/m);
        expect(suidInstrumented.stdout).toBe(suidPlain.stdout);
      });
    }
  });
}

describe('junit4: Debian JUnitCore runs an instrumented test class', () => {
  test('finds and runs exactly the @Test methods', async () => {
    const work = tmpDir('komorium-junit4-');
    const junit = debianJar('junit4');
    const cp = [junit, ...debianClasspathFor('junit4')];
    const src = join(repoRoot, 'test', 'fixtures', 'junit4');
    const classes = join(work, 'classes');
    mkdirSync(classes);
    javac(javaFiles(src), classes, { release: 8, classpath: [junit] });
    const plainJar = join(work, 'tests.jar');
    const outJar = join(work, 'tests-komorium.jar');
    await jarDir(classes, plainJar);
    instrument(plainJar, outJar, ['-q', '--classpath', ...cp]);
    const annotated = javaFiles(src)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    // @Test methods run: 5 in CalcTest (one more is @Ignore'd), 2 x 3 parameter sets in SquareTest.
    expect((annotated.match(/^\s*@Test\b/gm) ?? []).length).toBe(8);
    const run = (jar: string, extra: string[] = []) =>
      runJava({ cp: [jar, ...cp], main: 'org.junit.runner.JUnitCore', args: ['junitfx.CalcTest', 'junitfx.SquareTest'], jvmArgs: extra });
    const plain = await run(plainJar);
    const inst = await run(outJar, [...QUIET, `-Dkomorium.out=${join(work, 'junit.kprof')}`]);
    const normalize = (s: string) => s.replace(/^Time: .*$/m, 'Time: <t>');
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toMatch(/^OK \(11 tests\)$/m);
    expect(inst.code, inst.stdout).toBe(0);
    expect(normalize(inst.stdout)).toBe(normalize(plain.stdout));
    expect(inst.stdout).toMatch(/^OK \(11 tests\)$/m);
    expect(inst.stdout).not.toMatch(/ran|Failures/);
  });
});

/**
 * No jar of /usr/share/java holds a class older than version 49, let alone jsr/ret (scanned: the oldest are
 * atinject's, version 49). Debian's ecj (libecj-java, 3.16) still compiles for targets 1.1 to 1.4, where it
 * emits finally blocks as jsr/ret subroutines, so the subroutines fixture is compiled for every target it has.
 */
describe('jsr/ret and class versions 45 to 52 (Debian ecj)', () => {
  const targets: [string, string, number][] = [
    ['1.1', '1.3', 45],
    ['1.2', '1.3', 46],
    ['1.3', '1.3', 47],
    ['1.4', '1.4', 48],
    ['1.5', '1.5', 49],
    ['1.6', '1.6', 50],
    ['1.7', '1.7', 51],
    ['1.8', '1.8', 52],
  ];
  const fixture = fixtures.find((f) => f.name === 'subroutines')!;
  for (const [target, source, major] of targets) {
    test(`target ${target} (version ${major})`, async () => {
      const work = tmpDir(`komorium-ecj-${target}-`);
      const classes = join(work, 'classes');
      const r = await runJava({
        cp: [debianJar('ecj')],
        main: 'org.eclipse.jdt.internal.compiler.batch.Main',
        args: ['-source', source, '-target', target, '-nowarn', '-encoding', 'UTF-8', '-d', classes, ...fixture.sources],
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const classFile = join(classes, 'subroutines', 'Main.class');
      const cf = ClassFile.parse(readFileSync(classFile), 'subroutines/Main.class');
      expect(cf.major).toBe(major);
      let subroutines = 0;
      for (const m of cf.methods) {
        const code = m.attributes.find((a) => a.name === 'Code');
        if (code) subroutines += readCode(cf, m, code).nodes.filter((n) => !isLabel(n) && (n.op === OP.JSR || n.op === OP.JSR_W)).length;
      }
      if (major < 49) expect(subroutines).toBeGreaterThan(10);
      else expect(subroutines).toBe(0);
      const out = join(work, 'instrumented');
      instrument(classes, out, ['-q']);
      const verify = verifyJar(out);
      expect(verify.verifyErrors, describeVerify(verify)).toEqual([]);
      expect(verify.other, describeVerify(verify)).toEqual([]);
      const plain = await runJava({ cp: [classes], main: 'subroutines.Main' });
      expect(plain.stdout).toBe(fixture.expected);
      for (const agent of ['sampling', 'exact']) {
        const inst = await runJava({
          cp: [out],
          main: 'subroutines.Main',
          jvmArgs: [...QUIET, `-Dkomorium.agent=${agent}`, `-Dkomorium.out=${join(work, `${agent}.kprof`)}`],
        });
        expect(inst.stderr).toBe('');
        expect(inst.stdout).toBe(fixture.expected);
        expect(inst.code).toBe(0);
      }
    });
  }
});
