/**
 * Helpers for tests that compile and run Java: javac, java, jars and temporary directories.
 *
 * Every JVM runs with bytecode verification on (the JVM's default): nothing here passes
 * -Xverify:none or -XX:-BytecodeVerification*, so a test that runs instrumented code also checks
 * that the verifier accepts it. A missing JDK fails the test loudly rather than skipping it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const runtimeJarPath = join(repoRoot, 'runtime-java', 'build', 'komorium-runtime.jar');

function tool(name: 'java' | 'javac'): string {
  const exe = process.platform === 'win32' ? `${name}.exe` : name;
  const home = process.env.JAVA_HOME;
  if (home && existsSync(join(home, 'bin', exe))) return join(home, 'bin', exe);
  const probe = spawnSync(exe, ['-version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new Error(
      `${name} not found (neither $JAVA_HOME/bin/${exe} nor ${exe} on the PATH): these tests need a JDK 8 or newer`,
    );
  }
  return exe;
}

let javaExe: string | undefined;
let javacExe: string | undefined;
/** Path of the java launcher; throws if there is none. */
export function javaPath(): string {
  return (javaExe ??= tool('java'));
}
/** Path of javac; throws if there is none. */
export function javacPath(): string {
  return (javacExe ??= tool('javac'));
}

/** The feature release of javac (8, 11, 17, ...). */
export function javacRelease(): number {
  const r = spawnSync(javacPath(), ['-version'], { encoding: 'utf8' });
  const m = /javac (\d+)(?:\.(\d+))?/.exec(`${r.stdout}${r.stderr}`);
  if (!m) throw new Error(`cannot read the javac version from: ${r.stdout}${r.stderr}`);
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

const tmpDirs: string[] = [];
process.on('exit', () => {
  if (process.env.KOMORIUM_KEEP_TMP) return;
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test process exits (unless KOMORIUM_KEEP_TMP is set). */
export function tmpDir(prefix = 'komorium-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tmpDirs.push(d);
  return d;
}

function listFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

export interface JavacOptions {
  /** Java release of the class files (default 8). */
  release?: number;
  /** Class path entries to compile against. */
  classpath?: string[];
  /** Extra javac arguments. */
  args?: string[];
  /** Home of the JDK whose javac to use (default: $JAVA_HOME or the javac on the PATH). */
  jdk?: string;
}

/**
 * Compiles a source directory (all .java files under it) or a list of files into outDir. Throws
 * with javac's output when compilation fails.
 */
export function javac(src: string | string[], outDir: string, opts: JavacOptions = {}): void {
  const files = Array.isArray(src) ? src : statSync(src).isDirectory() ? listFiles(src, '.java') : [src];
  if (files.length === 0) throw new Error(`javac: no .java files in ${String(src)}`);
  const release = opts.release ?? 8;
  const javacExe = opts.jdk ? join(opts.jdk, 'bin', 'javac') : javacPath();
  const releaseArgs = opts.jdk || javacRelease() >= 9 ? ['--release', String(release)] : ['-source', String(release), '-target', String(release)];
  const args = [
    ...releaseArgs,
    '-Xlint:-options',
    '-encoding',
    'UTF-8',
    '-d',
    outDir,
    ...(opts.classpath?.length ? ['-cp', opts.classpath.join(delimiter)] : []),
    ...(opts.args ?? []),
    ...files,
  ];
  const r = spawnSync(javacExe, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`javac failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
}

export interface RunJavaOptions {
  /** Class path entries (directories or jars). */
  cp: string[];
  /** Main class (binary name). */
  main: string;
  args?: string[];
  /** JVM options such as -Dkomorium.agent=exact or -Xss4m. Never verification switches. */
  jvmArgs?: string[];
  /** Home of the JDK whose java to use (default: $JAVA_HOME or the java on the PATH). */
  jdk?: string;
  /** Written to the program's standard input, which is then closed. */
  input?: string;
  /** Working directory (default: the current one). */
  cwd?: string;
  /** Killed with SIGKILL after this long (default 120 s); the result then has timedOut set. */
  timeoutMs?: number;
  /** Sends `signal` once standard output contains `when` (e.g. to test SIGTERM handling). */
  signalWhen?: { when: string; signal: NodeJS.Signals };
  /**
   * Polled every 50 ms; when it returns true the process is killed with SIGKILL (for programs that
   * never end by themselves, e.g. a shutdown hook that calls System.exit blocks the JVM forever).
   */
  killWhen?: () => boolean;
}

export interface RunJavaResult {
  stdout: string;
  stderr: string;
  /** Exit code, or null when the process ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

const FORBIDDEN = /^-(Xverify:none|XX:-BytecodeVerification|noverify)/;

/** Runs a Java program and collects its output. Never rejects because of the program's exit code. */
export function runJava(opts: RunJavaOptions): Promise<RunJavaResult> {
  for (const a of opts.jvmArgs ?? []) {
    if (FORBIDDEN.test(a)) throw new Error(`runJava: ${a} would turn bytecode verification off`);
  }
  const args = [...(opts.jvmArgs ?? []), '-cp', opts.cp.join(delimiter), opts.main, ...(opts.args ?? [])];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(opts.jdk ? join(opts.jdk, 'bin', 'java') : javaPath(), args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let signalled = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      stdout += d;
      if (opts.signalWhen && !signalled && stdout.includes(opts.signalWhen.when)) {
        signalled = true;
        child.kill(opts.signalWhen.signal);
      }
    });
    child.stderr.on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 120_000);
    const poll = opts.killWhen
      ? setInterval(() => {
          if (opts.killWhen!()) child.kill('SIGKILL');
        }, 50)
      : undefined;
    child.on('error', (e) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolvePromise({ stdout, stderr, code, signal, timedOut });
    });
    child.stdin.on('error', () => {
      // The program may exit without reading its input.
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Packs a directory into a jar with sorted entries and fixed dates; optional Main-Class. */
export async function jarDir(dir: string, jarPath: string, opts: { mainClass?: string } = {}): Promise<void> {
  const zip = new JSZip();
  const fileOpts = { date: new Date('1980-01-01T00:00:00Z'), createFolders: false };
  const manifest =
    'Manifest-Version: 1.0\r\nCreated-By: komorium-ts tests\r\n' +
    (opts.mainClass ? `Main-Class: ${opts.mainClass}\r\n` : '') +
    '\r\n';
  zip.file('META-INF/MANIFEST.MF', manifest, fileOpts);
  for (const f of listFiles(dir, '')) {
    const name = relative(dir, f).split(sep).join('/');
    if (name === 'META-INF/MANIFEST.MF') continue;
    zip.file(name, readFileSync(f), fileOpts);
  }
  const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', platform: 'UNIX' });
  writeFileSync(jarPath, bytes);
}

/**
 * The runtime jar, built first if needed (scripts/build-runtime.mjs is a no-op when the jar is
 * newer than the sources), so that `vitest` works without `npm run build` before it.
 */
export function runtimeJar(): string {
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build-runtime.mjs')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building the runtime jar failed:\n${r.stdout}${r.stderr}`);
  return runtimeJarPath;
}
