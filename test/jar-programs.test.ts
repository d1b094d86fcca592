/**
 * Whole jars as the JDK's own tools make them, instrumented by the real CLI and run with `java -jar`
 * under -Xverify:all: a multi-release jar, modular jars (module-info.class at the root and in
 * META-INF/versions/9), a jar whose manifest Class-Path names a library jar beside it and that
 * provides a service through META-INF/services, and a signed jar. Each program prints to stdout and
 * stderr and ends with an exit code of its own; the instrumented jar must give exactly the same three
 * as the original, and a run with the exact agent must write a profile naming the program's methods,
 * so that it is known the instrumented code ran. Inputs are built with javac, jar, keytool and
 * jarsigner of the JDK on the PATH (JAVA_HOME); the multi-release jar also runs on Temurin 25 when
 * /usr/lib/jvm/temurin-25-jdk-amd64 exists.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClassFile } from '../src/classfile/classfile.js';
import { readProfile } from '../src/profile/read.js';
import { javaBin, javaHome, listZipEntries, readZipEntry } from './support/corpus.js';
import { javac, tmpDir } from './support/java.js';
import { cli as runCli, instrument, type CliResult } from './support/komorium.js';

const TEMURIN_25 = '/usr/lib/jvm/temurin-25-jdk-amd64';
const hasTemurin25 = existsSync(join(TEMURIN_25, 'bin', 'java'));
if (!hasTemurin25) console.warn(`${TEMURIN_25} is missing: the multi-release jar runs on JDK ${javaHome()} only`);

const SIGNATURE_FILE = /^META-INF\/[^/]+\.(SF|RSA|DSA|EC)$/i;

/** Runs a tool of the JDK (jar, keytool, jarsigner); throws with its output when it fails. */
function jdkTool(name: 'jar' | 'keytool' | 'jarsigner', args: string[]): string {
  const r = spawnSync(join(javaHome(), 'bin', name), args, { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout + r.stderr;
}

function write(dir: string, rel: string, text: string): string {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** An environment without variables that could slip -Xverify:none / -noverify (or anything else) into the JVM. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.JAVA_TOOL_OPTIONS;
  delete env._JAVA_OPTIONS;
  delete env.JDK_JAVA_OPTIONS;
  return env;
}

/** `java -Xverify:all [jvmArgs] -jar jar`, from the jar's folder (its Class-Path is relative to it). */
function runJar(jar: string, jvmArgs: string[] = [], jdk = javaHome()): Run {
  const r = spawnSync(javaBin('java', jdk), ['-Xverify:all', ...jvmArgs, '-jar', jar], {
    cwd: dirname(jar),
    encoding: 'utf8',
    env: cleanEnv(),
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

/** JVM options of every instrumented run: no summary line on stderr, the profile into `profile`. */
function komoriumArgs(profile: string, agent: 'sampling' | 'exact' = 'sampling'): string[] {
  return [`-Dkomorium.agent=${agent}`, `-Dkomorium.out=${profile}`, '-Dkomorium.quiet=true', '-Dkomorium.granularity=1000'];
}

/**
 * Runs the original and the instrumented jar with the same options (plus `extra`) and checks that
 * stdout, stderr and exit code are identical; with the exact agent, returns the profiled methods
 * as `class.name` (internal class names).
 */
function runBoth(plain: string, instrumented: string, profile: string, extra: string[] = [], jdk?: string): { run: Run; methods: Set<string> } {
  const args = [...extra, ...komoriumArgs(profile, 'exact')];
  const before = runJar(plain, args, jdk);
  expect(existsSync(profile), 'the original jar writes no profile').toBe(false);
  const after = runJar(instrumented, args, jdk);
  expect(after.stderr).not.toMatch(/VerifyError|SecurityException|NoClassDefFoundError/);
  expect(after).toEqual(before);
  const p = readProfile(profile);
  expect(p.agent).toBe('exact');
  expect(p.totalBytecodes).toBeGreaterThan(0);
  return { run: before, methods: new Set(p.methods.map((m) => `${m.className}.${m.name}`)) };
}

/** Also with the sampling agent (the default one). */
function sameWithSampling(plain: string, instrumented: string, profile: string, extra: string[] = [], jdk?: string): void {
  const args = [...extra, ...komoriumArgs(profile, 'sampling')];
  expect(runJar(instrumented, args, jdk)).toEqual(runJar(plain, args, jdk));
  expect(readProfile(profile).agent).toBe('sampling');
}

function classIn(jar: string, entry: string): ClassFile {
  const bytes = readZipEntry(jar, entry);
  expect(bytes, `${jar} has ${entry}`).toBeDefined();
  return ClassFile.parse(bytes!, entry);
}

/** The marks every instrumented class carries: komorium$class() and an extended `m$komorium` per method named. */
function expectInstrumented(jar: string, entry: string, methods: string[]): ClassFile {
  const cf = classIn(jar, entry);
  const names = cf.methods.map((m) => m.name);
  expect(names, `${entry} is instrumented`).toContain('komorium$class');
  for (const m of methods) expect(names, `${entry}: ${m} has an extended version`).toContain(`${m}$komorium`);
  return cf;
}

function sameEntry(a: string, b: string, entry: string): void {
  const x = readZipEntry(a, entry);
  const y = readZipEntry(b, entry);
  expect(x, `${a} has ${entry}`).toBeDefined();
  expect(y, `${b} has ${entry}`).toBeDefined();
  expect(y!.equals(x!), `${entry} is byte-identical`).toBe(true);
}

/**
 * Instruments `input` again (with -q: warnings only, on stderr) into another folder under another
 * name; the output must have the same bytes.
 */
function expectReproducible(input: string, first: string, extra: string[] = []): CliResult {
  const again = join(tmpDir('komorium-jar-programs-again-'), 'again.jar');
  const r = instrument(input, again, ['-q', ...extra]);
  expect(readFileSync(again).equals(readFileSync(first)), `instrumenting ${input} twice gave different bytes`).toBe(true);
  return r;
}

/** The warnings of a run of the CLI without -q (which prints them after its summary, on stdout). */
function warningsOf(r: CliResult): string[] {
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => /warning/i.test(l));
}

/** A run of the CLI that printed no warning. */
function expectNoWarnings(r: CliResult): void {
  expect(warningsOf(r)).toEqual([]);
}

describe('a multi-release jar (Multi-Release: true, base classes for Java 8, META-INF/versions/11 for Java 11)', () => {
  const work = tmpDir('komorium-jar-programs-mr-');
  const plain = join(work, 'mr.jar');
  const out = join(work, 'mr-komorium.jar');
  let cli: CliResult;

  beforeAll(() => {
    const src8 = join(work, 'src8');
    const src11 = join(work, 'src11');
    write(src8, 'app/Main.java', `package app;
public class Main {
  public static void main(String[] args) {
    System.out.println(Greeter.greet("multi-release"));
    long sum = 0;
    for (int i = 0; i < 20000; i++) sum += Greeter.work(i);
    System.out.println("sum " + sum);
    System.err.println("Main: done");
    System.exit(3);
  }
}
`);
    write(src8, 'app/Greeter.java', `package app;
public class Greeter {
  public static String greet(String who) { return "base Greeter (release 8) greets " + who; }
  public static int work(int i) { return i % 7; }
}
`);
    // Same public API; a lambda (lambda$work$0) and a package-private class (Tag11) exist only here.
    // Tag11 is Serializable without a serialVersionUID: the value Java computes must not change when
    // it is instrumented, which needs Tag11 in the class hierarchy although it has no base version.
    write(src11, 'app/Greeter.java', `package app;
import java.util.function.IntUnaryOperator;
public class Greeter {
  public static String greet(String who) {
    var tag = new Tag11(who);
    return "versioned Greeter (release 11) on JDK " + Runtime.version().feature() + " greets " + tag.text() + " " + "!".repeat(3)
        + "\\nTag11 serialVersionUID " + java.io.ObjectStreamClass.lookup(Tag11.class).getSerialVersionUID();
  }
  public static int work(int i) { IntUnaryOperator f = x -> x % 7 + 1; return f.applyAsInt(i); }
}
class Tag11 implements java.io.Serializable {
  private final String who;
  Tag11(String who) { this.who = who; }
  String text() { return "<" + who + ">"; }
}
`);
    javac(join(src8, 'app'), join(work, 'base'), { release: 8 });
    javac(join(src11, 'app'), join(work, 'v11'), { release: 11, classpath: [join(work, 'base')] });
    const mf = write(work, 'manifest.txt', 'Main-Class: app.Main\nMulti-Release: true\n');
    jdkTool('jar', ['--create', '--file', plain, '--manifest', mf, '-C', join(work, 'base'), '.', '--release', '11', '-C', join(work, 'v11'), '.']);
    cli = instrument(plain, out);
  });

  it('is a real multi-release jar: both Greeter versions, the manifest says Multi-Release and Main-Class', () => {
    const entries = listZipEntries(plain);
    expect(entries).toEqual(expect.arrayContaining([
      'app/Main.class', 'app/Greeter.class', 'META-INF/versions/11/app/Greeter.class', 'META-INF/versions/11/app/Tag11.class',
    ]));
    const manifest = readZipEntry(plain, 'META-INF/MANIFEST.MF')!.toString('latin1');
    expect(manifest).toMatch(/^Multi-Release: true\r?$/m);
    expect(manifest).toMatch(/^Main-Class: app\.Main\r?$/m);
    expect(classIn(plain, 'app/Greeter.class').major).toBe(52);
    expect(classIn(plain, 'META-INF/versions/11/app/Greeter.class').major).toBe(55);
  });

  it('instruments base and versioned classes, each keeping its class file version, with no warning', () => {
    expectNoWarnings(cli);
    expect(cli.stdout).toMatch(/classes +4 \(4 rewritten/);
    expect(expectInstrumented(out, 'app/Main.class', ['main']).major).toBe(52);
    expect(expectInstrumented(out, 'app/Greeter.class', ['greet', 'work']).major).toBe(52);
    expect(expectInstrumented(out, 'META-INF/versions/11/app/Greeter.class', ['greet', 'work', 'lambda$work$0']).major).toBe(55);
    expect(expectInstrumented(out, 'META-INF/versions/11/app/Tag11.class', ['text']).major).toBe(55);
    // Nothing of the versioned classes leaks into the base, nor the other way round.
    expect(listZipEntries(out).filter((e) => e.includes('Tag11'))).toEqual(['META-INF/versions/11/app/Tag11.class']);
    sameEntry(plain, out, 'META-INF/MANIFEST.MF');
  });

  it('runs the versioned Greeter on JDK 17 with the same stdout, stderr and exit code, instrumented', () => {
    const { run, methods } = runBoth(plain, out, join(work, 'jdk17.kprof'));
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('Main: done\n');
    expect(run.stdout).toMatch(/^versioned Greeter \(release 11\) on JDK 17 greets <multi-release> !!!\nTag11 serialVersionUID -?\d+\nsum 79997\n$/);
    // lambda$work$0 and Tag11 exist only in META-INF/versions/11: the versioned, instrumented code ran.
    // The lambda is called back through its generated class and the stream: an [uninstrumented] node.
    expect(methods).toEqual(
      new Set(['app/Main.main', 'app/Greeter.greet', 'app/Greeter.work', 'app/Greeter.lambda$work$0', 'app/Tag11.<init>', 'app/Tag11.text', '[uninstrumented].[uninstrumented]']),
    );
    sameWithSampling(plain, out, join(work, 'jdk17-sampling.kprof'));
  });

  it('runs the base Greeter when multi-release lookup is off (-Djdk.util.jar.enableMultiRelease=false), same output, instrumented', () => {
    const { run, methods } = runBoth(plain, out, join(work, 'base.kprof'), ['-Djdk.util.jar.enableMultiRelease=false']);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('base Greeter (release 8) greets multi-release\nsum 59997\n');
    expect(methods).toEqual(new Set(['app/Main.main', 'app/Greeter.greet', 'app/Greeter.work']));
  });

  it.skipIf(!hasTemurin25)('runs the versioned Greeter on Temurin 25 with the same output, instrumented', () => {
    const { run, methods } = runBoth(plain, out, join(work, 'jdk25.kprof'), [], TEMURIN_25);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^versioned Greeter \(release 11\) on JDK 25 greets <multi-release> !!!\n/);
    expect(methods).toContain('app/Greeter.lambda$work$0');
    expect(methods).toContain('app/Tag11.text');
  });

  it('gives byte-identical output when instrumented twice', () => {
    expectReproducible(plain, out);
  });
});

// Run from the class path (java -jar), where module-info.class is ignored. On the module path
// (java -p jar -m demo.fib) the instrumented module does not run: its ModulePackages attribute does
// not list komorium.runtime, so the runtime classes beside it are not found (NoClassDefFoundError:
// komorium/runtime/TC). That is not tested here.
describe('module-info.class (made by `jar`, with ModulePackages and ModuleMainClass) is kept byte-identical', () => {
  const work = tmpDir('komorium-jar-programs-module-');
  /** module-info.class at the root. */
  const rootJar = join(work, 'modular.jar');
  /** Classes at the root, module-info.class in META-INF/versions/9 (a Java 8 library that is a module on 9+). */
  const versionedJar = join(work, 'modular-mr.jar');

  beforeAll(() => {
    const src = join(work, 'src');
    write(src, 'module-info.java', 'module demo.fib { exports demo.fib; }\n');
    write(src, 'demo/fib/Main.java', `package demo.fib;
public class Main {
  public static void main(String[] args) {
    System.out.println("fib(20) = " + fib(20));
    System.err.println("module " + Main.class.getModule().getName() + " (class path: unnamed)");
    System.exit(fib(5));
  }
  static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
}
`);
    const classes = join(work, 'classes');
    javac([join(src, 'module-info.java'), join(src, 'demo', 'fib', 'Main.java')], classes, { release: 9 });
    jdkTool('jar', ['--create', '--file', rootJar, '--main-class', 'demo.fib.Main', '-C', classes, '.']);
    mkdirSync(join(work, 'base', 'demo', 'fib'), { recursive: true });
    mkdirSync(join(work, 'v9'));
    copyFileSync(join(classes, 'demo', 'fib', 'Main.class'), join(work, 'base', 'demo', 'fib', 'Main.class'));
    copyFileSync(join(classes, 'module-info.class'), join(work, 'v9', 'module-info.class'));
    jdkTool('jar', ['--create', '--file', versionedJar, '--main-class', 'demo.fib.Main', '-C', join(work, 'base'), '.', '--release', '9', '-C', join(work, 'v9'), '.']);
  });

  it.each([
    ['at the root of a modular jar', 'modular.jar', 'module-info.class'],
    ['in META-INF/versions/9 of a multi-release jar', 'modular-mr.jar', 'META-INF/versions/9/module-info.class'],
  ])('%s: module-info.class byte-identical, the program instrumented and the same under java -jar', (_, name, entry) => {
    const plain = join(work, name);
    const out = join(work, name.replace('.jar', '-komorium.jar'));
    expect(listZipEntries(plain)).toContain(entry);
    // `jar` rewrote module-info.class: the attributes that say which packages the module has and its main class.
    const attrs = classIn(plain, entry).attributes.map((a) => a.name);
    expect(attrs).toEqual(expect.arrayContaining(['Module', 'ModulePackages', 'ModuleMainClass']));
    const cli = instrument(plain, out);
    expectNoWarnings(cli);
    expect(cli.stdout).toMatch(/classes +1 \(1 rewritten/);
    sameEntry(plain, out, entry);
    sameEntry(plain, out, 'META-INF/MANIFEST.MF');
    expectInstrumented(out, 'demo/fib/Main.class', ['main', 'fib']);
    const { run, methods } = runBoth(plain, out, join(work, `${name}.kprof`));
    expect(run).toEqual({ stdout: 'fib(20) = 6765\n', stderr: 'module null (class path: unnamed)\n', code: 5 });
    expect(methods).toEqual(new Set(['demo/fib/Main.main', 'demo/fib/Main.fib']));
    expectReproducible(plain, out);
  });
});

describe('manifest Class-Path to a library jar beside it, and a service in META-INF/services', () => {
  const work = tmpDir('komorium-jar-programs-services-');
  const libJar = join(work, 'libs', 'shout.jar');
  const plain = join(work, 'app.jar');
  const out = join(work, 'app-komorium.jar');
  const SERVICES = 'META-INF/services/app.Plugin';
  let libBefore: Buffer;
  let cli: CliResult;

  beforeAll(() => {
    const libSrc = join(work, 'lib-src');
    write(libSrc, 'lib/shout/Shout.java', `package lib.shout;
public final class Shout {
  private Shout() {}
  public static String loud(String s) { return s.toUpperCase(java.util.Locale.ROOT) + "!"; }
}
`);
    javac(libSrc, join(work, 'lib-classes'), { release: 8 });
    mkdirSync(dirname(libJar), { recursive: true });
    jdkTool('jar', ['--create', '--file', libJar, '-C', join(work, 'lib-classes'), '.']);
    libBefore = readFileSync(libJar);

    const src = join(work, 'src');
    write(src, 'app/Plugin.java', 'package app;\npublic interface Plugin { String name(); String run(String input); }\n');
    write(src, 'app/impl/LoudPlugin.java', `package app.impl;
public class LoudPlugin implements app.Plugin {
  public String name() { return "loud"; }
  public String run(String input) { return lib.shout.Shout.loud(input); }
}
`);
    write(src, 'app/impl/ReversePlugin.java', `package app.impl;
public class ReversePlugin implements app.Plugin {
  public String name() { return "reverse"; }
  public String run(String input) {
    char[] c = input.toCharArray();
    for (int i = 0, j = c.length - 1; i < j; i++, j--) { char t = c[i]; c[i] = c[j]; c[j] = t; }
    return new String(c);
  }
}
`);
    write(src, 'app/Main.java', `package app;
import java.util.ServiceLoader;
public class Main {
  public static void main(String[] args) {
    int n = 0;
    for (Plugin p : ServiceLoader.load(Plugin.class)) {
      System.out.println(p.name() + " (" + p.getClass().getName() + "): " + p.run("hello service"));
      n++;
    }
    String lib = lib.shout.Shout.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    System.out.println("lib.shout.Shout from " + lib.substring(lib.lastIndexOf('/', lib.lastIndexOf('/') - 1) + 1));
    System.err.println(n + " plugins");
    System.exit(n == 2 ? 0 : 1);
  }
}
`);
    const classes = join(work, 'classes');
    javac(src, classes, { release: 8, classpath: [libJar] });
    // A comment, CRLF line ends and a blank line: any rewrite of this file would show.
    write(classes, SERVICES, '# the providers of app.Plugin\r\napp.impl.LoudPlugin\r\n\r\napp.impl.ReversePlugin  # last\r\n');
    const mf = write(work, 'manifest.txt', 'Main-Class: app.Main\nClass-Path: libs/shout.jar\nImplementation-Title: services demo\n');
    jdkTool('jar', ['--create', '--file', plain, '--manifest', mf, '-C', classes, '.']);
    cli = instrument(plain, out, ['--classpath', libJar]);
  });

  it('keeps the manifest (Main-Class, Class-Path) and META-INF/services byte-identical, instruments the providers, leaves the library alone', () => {
    expectNoWarnings(cli);
    sameEntry(plain, out, 'META-INF/MANIFEST.MF');
    expect(readZipEntry(out, 'META-INF/MANIFEST.MF')!.toString('latin1')).toMatch(/^Class-Path: libs\/shout\.jar\r$/m);
    sameEntry(plain, out, SERVICES);
    expectInstrumented(out, 'app/impl/LoudPlugin.class', ['name', 'run']);
    expectInstrumented(out, 'app/impl/ReversePlugin.class', ['name', 'run']);
    expectInstrumented(out, 'app/Main.class', ['main']);
    expect(listZipEntries(out).some((e) => e.startsWith('lib/'))).toBe(false);
    expect(readFileSync(libJar).equals(libBefore), 'the --classpath jar is not modified').toBe(true);
  });

  it('java -jar finds the library through Class-Path and both instrumented providers through ServiceLoader, same output', () => {
    const { run, methods } = runBoth(plain, out, join(work, 'exact.kprof'));
    expect(run).toEqual({
      stdout: 'loud (app.impl.LoudPlugin): HELLO SERVICE!\nreverse (app.impl.ReversePlugin): ecivres olleh\nlib.shout.Shout from libs/shout.jar\n',
      stderr: '2 plugins\n',
      code: 0,
    });
    // ServiceLoader (the JDK) created and called the providers: their instrumented code ran and was profiled.
    for (const m of ['app/Main.main', 'app/impl/LoudPlugin.<init>', 'app/impl/LoudPlugin.run', 'app/impl/ReversePlugin.name', 'app/impl/ReversePlugin.run']) {
      expect(methods).toContain(m);
    }
    // The library is not instrumented, so it is not in the profile.
    expect([...methods].filter((m) => m.startsWith('lib/'))).toEqual([]);
    sameWithSampling(plain, out, join(work, 'sampling.kprof'));
  });

  it('gives byte-identical output when instrumented twice', () => {
    expectReproducible(plain, out, ['--classpath', libJar]);
  });

  it('takes --classpath as java takes -cp too: one list separated by the path delimiter', () => {
    expectReproducible(plain, out, ['--classpath', `${libJar}${delimiter}${libJar}`]);
    const missing = join(work, 'missing.jar');
    const r = runCli(['instrument', plain, '-o', join(work, 'never.jar'), '--classpath', `${libJar}${delimiter}${missing}`]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`komorium-ts: --classpath element ${missing} does not exist`);
    expect(existsSync(join(work, 'never.jar'))).toBe(false);
  });
});

describe('a signed jar (keytool -genkeypair, jarsigner)', () => {
  const work = tmpDir('komorium-jar-programs-signed-');
  const unsigned = join(work, 'unsigned.jar');
  const signed = join(work, 'signed.jar');
  const out = join(work, 'signed-komorium.jar');
  let cli: CliResult;

  beforeAll(() => {
    const src = join(work, 'src');
    write(src, 'app/Main.java', `package app;
public class Main {
  public static void main(String[] args) {
    System.out.println("checksum " + Util.checksum("signed jars lose their signature"));
    System.err.println("signed: done");
    System.exit(7);
  }
}
`);
    write(src, 'app/Util.java', `package app;
final class Util {
  static int checksum(String s) { int h = 17; for (int i = 0; i < s.length(); i++) h = h * 31 + s.charAt(i); return h; }
}
`);
    const classes = join(work, 'classes');
    javac(src, classes, { release: 8 });
    jdkTool('jar', ['--create', '--file', unsigned, '--main-class', 'app.Main', '-C', classes, '.']);
    const store = join(work, 'keystore.p12');
    jdkTool('keytool', [
      '-genkeypair', '-keystore', store, '-storetype', 'PKCS12', '-storepass', 'komorium', '-keypass', 'komorium',
      '-alias', 'komorium', '-keyalg', 'RSA', '-keysize', '2048', '-dname', 'CN=komorium-ts test', '-validity', '2',
    ]);
    jdkTool('jarsigner', ['-keystore', store, '-storepass', 'komorium', '-signedjar', signed, unsigned, 'komorium']);
    cli = instrument(signed, out);
  });

  it('the input is signed: signature files, per-entry digests, and jarsigner -verify accepts it', () => {
    expect(listZipEntries(signed).filter((e) => SIGNATURE_FILE.test(e)).sort()).toEqual(['META-INF/KOMORIUM.RSA', 'META-INF/KOMORIUM.SF']);
    expect(readZipEntry(signed, 'META-INF/MANIFEST.MF')!.toString('latin1')).toMatch(/^Name: app\/Main\.class\r\nSHA-256-Digest: /m);
    expect(jdkTool('jarsigner', ['-verify', signed])).toContain('jar verified.');
  });

  it('instrument warns that it removed the signature, naming the files; the output has no signature files and no digests', () => {
    const warning = 'warning: removed the jar signature (META-INF/KOMORIUM.SF, META-INF/KOMORIUM.RSA): its classes changed';
    expect(warningsOf(cli)).toEqual([warning]);
    expect(listZipEntries(out).filter((e) => SIGNATURE_FILE.test(e))).toEqual([]);
    const before = readZipEntry(signed, 'META-INF/MANIFEST.MF')!.toString('latin1');
    const after = readZipEntry(out, 'META-INF/MANIFEST.MF')!.toString('latin1');
    expect(after).not.toMatch(/Digest|^Name:/im);
    // The main section (Main-Class …) is kept byte for byte.
    expect(after).toBe(before.slice(0, before.indexOf('\r\n\r\n') + 4));
    expect(after).toMatch(/^Main-Class: app\.Main\r$/m);
    expect(jdkTool('jarsigner', ['-verify', out])).toContain('jar is unsigned');
    expectInstrumented(out, 'app/Main.class', ['main']);
    expectInstrumented(out, 'app/Util.class', ['checksum']);
  });

  it('java -jar runs the signed original and the instrumented jar with the same output', () => {
    const { run, methods } = runBoth(signed, out, join(work, 'exact.kprof'));
    expect(run).toEqual({ stdout: `checksum ${checksum('signed jars lose their signature')}\n`, stderr: 'signed: done\n', code: 7 });
    expect(methods).toEqual(new Set(['app/Main.main', 'app/Util.checksum']));
    expect(runJar(unsigned)).toEqual(run);
  });

  it('an instrumented class that kept the signature would not run: SecurityException (why the signature goes)', () => {
    const tampered = join(work, 'tampered.jar');
    copyFileSync(signed, tampered);
    const patched = join(work, 'patched');
    mkdirSync(join(patched, 'app'), { recursive: true });
    writeFileSync(join(patched, 'app', 'Main.class'), readZipEntry(out, 'app/Main.class')!);
    jdkTool('jar', ['--update', '--file', tampered, '-C', patched, 'app/Main.class']);
    expect(listZipEntries(tampered).filter((e) => SIGNATURE_FILE.test(e))).toHaveLength(2);
    const r = runJar(tampered);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/SecurityException: SHA-256 digest error for app\/Main\.class/);
  });

  it('gives byte-identical output when instrumented twice (and -q prints the same warning, on stderr)', () => {
    const r = expectReproducible(signed, out);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('warning: removed the jar signature (META-INF/KOMORIUM.SF, META-INF/KOMORIUM.RSA): its classes changed\n');
  });
});

/** Java's h = h * 31 + c in 32-bit arithmetic, from 17. */
function checksum(s: string): number {
  let h = 17;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
