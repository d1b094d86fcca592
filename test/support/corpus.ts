// Typed access to the real-world test inputs: Debian's Java library jars, the running JDK's
// java.base classes and sources, and jflex's shipped java.flex. Everything is installed by
// `bash scripts/install-deps.sh` (CI's .ci/run calls it). A missing input is a LOUD error,
// never a silent skip: a test that cannot find its input fails and says how to fix it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync, inflateRawSync } from 'node:zlib';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Git-ignored cache for derived inputs (java.base classes, the verify harness, npm inputs). */
export const CACHE_DIR = join(REPO_ROOT, '.cache');
export const INSTALL_HINT = 'run `bash scripts/install-deps.sh`';

/** Thrown when a test input is absent. Never catch it to skip a test. */
export class CorpusMissingError extends Error {
  override name = 'CorpusMissingError';
}

function missing(what: string, pkg?: string): never {
  throw new CorpusMissingError(`missing ${what}${pkg ? ` (Debian package ${pkg})` : ''}: ${INSTALL_HINT}`);
}

// ---------------------------------------------------------------------------------------------
// Debian jars

export const DEBIAN_JAVA_DIR = '/usr/share/java';

interface JarSpec {
  /** File name under /usr/share/java (Debian's unversioned symlink). */
  readonly file: string;
  /** The Debian package that ships it. */
  readonly pkg: string;
  /** Dependencies the manifest does not name (OSGi Import-Package only), as corpus names. */
  readonly deps?: readonly string[];
}

const DEBIAN_JARS = {
  guava: { file: 'guava.jar', pkg: 'libguava-java' }, // 31.1, 2,040 classes; failureaccess is inside
  'commons-lang3': { file: 'commons-lang3.jar', pkg: 'libcommons-lang3-java' },
  rhino: { file: 'js.jar', pkg: 'librhino-java' }, // = rhino.jar; Main-Class org.mozilla.javascript.tools.shell.Main
  ecj: { file: 'ecj.jar', pkg: 'libecj-java' }, // org.eclipse.jdt.internal.compiler.batch.Main
  jflex: { file: 'jflex.jar', pkg: 'jflex' }, // manifest Class-Path: /usr/share/java/cup.jar /usr/share/java/cup_runtime.jar
  cup: { file: 'cup.jar', pkg: 'cup' }, // manifest Class-Path: java-cup-0.11b-runtime.jar
  'cup-runtime': { file: 'cup_runtime.jar', pkg: 'cup' },
  asm: { file: 'asm.jar', pkg: 'libasm-java' },
  'asm-tree': { file: 'asm-tree.jar', pkg: 'libasm-java', deps: ['asm'] },
  'asm-analysis': { file: 'asm-analysis.jar', pkg: 'libasm-java', deps: ['asm', 'asm-tree'] },
  'asm-commons': { file: 'asm-commons.jar', pkg: 'libasm-java', deps: ['asm', 'asm-tree', 'asm-analysis'] },
  'asm-util': { file: 'asm-util.jar', pkg: 'libasm-java', deps: ['asm', 'asm-tree', 'asm-analysis'] },
  'jacoco-core': { file: 'org.jacoco.core.jar', pkg: 'libjacoco-java', deps: ['asm', 'asm-commons', 'asm-tree'] },
  'jacoco-report': { file: 'org.jacoco.report.jar', pkg: 'libjacoco-java', deps: ['jacoco-core'] },
  /** The agent runtime; Debian's build is not shaded, so it needs jacoco-core (and asm). */
  'jacoco-agent-rt': { file: 'org.jacoco.agent.rt.jar', pkg: 'libjacoco-java', deps: ['jacoco-core'] },
  junit4: { file: 'junit4.jar', pkg: 'junit4' }, // manifest Class-Path: hamcrest-core.jar
  hamcrest: { file: 'hamcrest.jar', pkg: 'libhamcrest-java' }, // hamcrest-core.jar is a symlink to it
  /** Compiled by Clojure itself (clojure/core*.class), not javac; Class-Path names spec.alpha and core.specs.alpha. */
  clojure: { file: 'clojure.jar', pkg: 'libclojure-java' },
  groovy: { file: 'groovy.jar', pkg: 'groovy' }, // 2.4; antlr and asm are repackaged inside
} as const satisfies Record<string, JarSpec>;

export type DebianJarName = keyof typeof DEBIAN_JARS;
export const DEBIAN_JAR_NAMES = Object.keys(DEBIAN_JARS) as DebianJarName[];

/** The Debian package that ships a corpus jar. */
export function debianPackageOf(name: DebianJarName): string {
  return DEBIAN_JARS[name].pkg;
}

/** `/usr/share/java/<file>.jar` for a corpus name; throws CorpusMissingError if absent. */
export function debianJar(name: DebianJarName): string {
  const spec: JarSpec | undefined = DEBIAN_JARS[name];
  if (!spec) throw new Error(`unknown Debian corpus jar '${name}' (known: ${DEBIAN_JAR_NAMES.join(', ')})`);
  const path = join(DEBIAN_JAVA_DIR, spec.file);
  if (!existsSync(path)) missing(path, spec.pkg);
  return path;
}

/** The Class-Path entries of a jar's manifest, resolved against the jar's location (as the JVM does). */
export function manifestClassPath(jar: string): string[] {
  const mf = readZipEntry(jar, 'META-INF/MANIFEST.MF');
  if (!mf) return [];
  const attrs = parseManifest(mf.toString('utf8'));
  const cp = attrs.get('Class-Path')?.trim();
  if (!cp) return [];
  const base = pathToFileURL(jar);
  return cp.split(/\s+/).filter(Boolean).map((e) => fileURLToPath(new URL(e, base)));
}

/** Main attributes of a MANIFEST.MF (continuation lines joined). */
export function parseManifest(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines: string[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (raw === '') break; // end of the main section
    if (raw.startsWith(' ') && lines.length > 0) lines[lines.length - 1] += raw.slice(1);
    else lines.push(raw);
  }
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1).trimStart());
  }
  return out;
}

/**
 * The jars a corpus jar (or any jar path) needs at run time: its manifest Class-Path, transitively,
 * plus the dependencies Debian declares only as OSGi imports (see DEBIAN_JARS.deps). The jar itself
 * is not included. A listed entry that does not exist is a LOUD error.
 */
export function debianClasspathFor(jar: DebianJarName | string): string[] {
  const startPath = jar in DEBIAN_JARS ? debianJar(jar as DebianJarName) : jar;
  if (!existsSync(startPath)) missing(startPath);
  const out: string[] = [];
  const seen = new Set<string>([realpathSync(startPath)]);
  const visit = (path: string, from: string): void => {
    if (!existsSync(path)) missing(`${path} (Class-Path of ${from})`);
    const real = realpathSync(path);
    if (seen.has(real)) return;
    seen.add(real);
    out.push(path);
    for (const dep of depsOf(path)) visit(dep, path);
  };
  const depsOf = (path: string): string[] => {
    const real = realpathSync(path);
    const extra: string[] = [];
    for (const spec of Object.values(DEBIAN_JARS) as JarSpec[]) {
      const p = join(DEBIAN_JAVA_DIR, spec.file);
      if (spec.deps && existsSync(p) && realpathSync(p) === real) extra.push(...spec.deps.map((d) => debianJar(d as DebianJarName)));
    }
    return [...manifestClassPath(path), ...extra];
  };
  for (const dep of depsOf(startPath)) visit(dep, startPath);
  return out;
}

/** jflex's own example lexer spec for Java, shipped by Debian's jflex package. */
export function jflexJavaFlex(): string {
  const plain = '/usr/share/doc/jflex/examples/java/java.flex';
  if (existsSync(plain)) return plain;
  const gz = `${plain}.gz`;
  if (existsSync(gz)) {
    const out = join(CACHE_DIR, 'jflex-examples', 'java.flex');
    if (!existsSync(out)) {
      mkdirSync(dirname(out), { recursive: true });
      const tmp = `${out}.tmp-${process.pid}`;
      writeFileSync(tmp, gunzipSync(readFileSync(gz)));
      renameSync(tmp, out);
    }
    return out;
  }
  return missing(plain, 'jflex');
}

// ---------------------------------------------------------------------------------------------
// The JDK

/** JAVA_HOME if it holds a JDK, else the JDK of the `javac` on PATH (symlinks resolved). */
export function javaHome(): string {
  const env = process.env.JAVA_HOME;
  if (env && existsSync(join(env, 'bin', 'javac'))) return env;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const javac = join(dir, 'javac');
    if (dir && existsSync(javac)) return dirname(dirname(realpathSync(javac)));
  }
  return missing('a JDK (no JAVA_HOME with bin/javac, no javac on PATH)', 'openjdk-17-jdk-headless');
}

export function javaBin(tool: 'java' | 'javac' | 'jimage' | 'jar' | 'javap' = 'java', home = javaHome()): string {
  const p = join(home, 'bin', tool);
  if (!existsSync(p)) missing(p, 'openjdk-17-jdk-headless');
  return p;
}

/** Feature release of a JDK (17, 25, …), from its `release` file. */
export function jdkMajor(home = javaHome()): number {
  const rel = join(home, 'release');
  if (existsSync(rel)) {
    const m = /^JAVA_VERSION="(\d+)(?:\.(\d+))?/m.exec(readFileSync(rel, 'utf8'));
    if (m) return m[1] === '1' ? Number(m[2]) : Number(m[1]);
  }
  const out = execFileSync(javaBin('java', home), ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const m = /version "(?:1\.)?(\d+)/.exec(out);
  if (!m) throw new Error(`cannot tell the version of the JDK at ${home}`);
  return Number(m[1]);
}

/**
 * OPTIONAL: another JDK on this machine (a different feature release than javaHome()), or null.
 * Debian 12 packages only openjdk-17; the machine image also carries a Temurin 25 in /usr/lib/jvm,
 * which a fresh CI machine may or may not have. Tests that use it must tolerate null.
 */
export function secondJdkHome(): string | null {
  const main = realpathSync(javaHome());
  const mainMajor = jdkMajor(main);
  const root = '/usr/lib/jvm';
  if (!existsSync(root)) return null;
  for (const d of readdirSync(root).sort()) {
    const home = join(root, d);
    if (!existsSync(join(home, 'bin', 'javac'))) continue;
    const real = realpathSync(home);
    if (real === main) continue;
    try {
      if (jdkMajor(real) !== mainMajor) return real;
    } catch {
      /* not a usable JDK */
    }
  }
  return null;
}

/** The JDK's source archive (Debian: openjdk-17-source → $JAVA_HOME/lib/src.zip → /usr/lib/jvm/openjdk-17/lib/src.zip). */
export function jdkSrcZip(home = javaHome()): string {
  const p = join(home, 'lib', 'src.zip');
  if (!existsSync(p)) missing(p, 'openjdk-17-source');
  return p;
}

/**
 * A folder with java.base's classes in package layout (`<dir>/java/lang/Object.class`), extracted once
 * from $JAVA_HOME/lib/modules with `jimage extract --include 'regex:/java.base/.*\.class'` into
 * .cache/java-base/ and re-extracted when the JDK changes. Safe under concurrent test files.
 */
export function javaBaseClassesDir(home = javaHome()): string {
  const modules = join(home, 'lib', 'modules');
  if (!existsSync(modules)) missing(modules, 'openjdk-17-jre-headless');
  const st = statSync(modules);
  const stamp = `jimage java.base v1\n${realpathSync(modules)}\n${st.size}\n${st.mtimeMs}\n`;
  const root = buildCachedOnce('java-base', stamp, (tmp) => {
    execFileSync(javaBin('jimage', home), ['extract', '--dir', tmp, '--include', 'regex:/java.base/.*\\.class', modules], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (!existsSync(join(tmp, 'java.base', 'java', 'lang', 'Object.class'))) {
      throw new Error(`jimage extract of ${modules} gave no java/lang/Object.class`);
    }
  });
  return join(root, 'java.base');
}

// ---------------------------------------------------------------------------------------------
// Build-once cache with a cross-process lock (vitest runs test files in parallel forks)

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Returns CACHE_DIR/<name>, (re)building it with `build(tmpDir)` unless its STAMP file equals `stamp`.
 * One process builds while the others wait on a lock folder; the result appears by an atomic rename.
 */
export function buildCachedOnce(name: string, stamp: string, build: (tmpDir: string) => void, timeoutMs = 600_000): string {
  const dir = join(CACHE_DIR, name);
  const stampFile = join(dir, '.stamp');
  const fresh = () => existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
  if (fresh()) return dir;
  mkdirSync(CACHE_DIR, { recursive: true });
  const lock = join(CACHE_DIR, `${name}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (fresh()) return dir;
    let owner = NaN;
    try {
      owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    } catch {
      /* the owner has not written its pid yet */
    }
    let age = 0;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    if ((Number.isFinite(owner) && owner > 0 && !pidAlive(owner)) || age > timeoutMs) {
      rmSync(lock, { recursive: true, force: true }); // stale lock of a dead process
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock} (held by pid ${owner})`);
    sleepMs(200);
  }
  try {
    if (fresh()) return dir;
    const tmp = join(CACHE_DIR, `${name}.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    try {
      build(tmp);
      writeFileSync(join(tmp, '.stamp'), stamp);
      if (existsSync(dir)) {
        const old = join(CACHE_DIR, `${name}.old-${process.pid}`);
        renameSync(dir, old);
        rmSync(old, { recursive: true, force: true });
      }
      renameSync(tmp, dir);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** sha256 hex of some strings/buffers, for stamps. */
export function hashOf(...parts: (string | Uint8Array)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

// ---------------------------------------------------------------------------------------------
// A small synchronous zip reader (jars), so the helpers need neither `unzip` nor async code.

export interface ZipEntryInfo {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const zipCache = new Map<string, { key: string; buf: Buffer; entries: ZipEntryInfo[] }>();

function openZip(path: string): { buf: Buffer; entries: ZipEntryInfo[] } {
  if (!existsSync(path)) missing(path);
  const st = statSync(path);
  const key = `${st.size}:${st.mtimeMs}`;
  const hit = zipCache.get(path);
  if (hit && hit.key === key) return hit;
  const buf = readFileSync(path);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${path}: not a zip file (no end of central directory)`);
  const count = buf.readUInt16LE(eocd + 10);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new Error(`${path}: zip64 is not supported by this test reader`);
  const entries: ZipEntryInfo[] = [];
  let p = cdOffset;
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${path}: bad central directory entry ${n}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    entries.push({
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      localHeaderOffset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  const z = { key, buf, entries };
  zipCache.clear(); // keep one zip in memory at a time
  zipCache.set(path, z);
  return z;
}

/** Entry names of a zip/jar, in central-directory order. */
export function listZipEntries(path: string): string[] {
  return openZip(path).entries.map((e) => e.name);
}

/** Names of the .class entries of a jar (including META-INF/versions/N/…), in order. */
export function jarClassEntries(path: string): string[] {
  return listZipEntries(path).filter((n) => n.endsWith('.class'));
}

/** One entry's bytes, or undefined when the zip has no such entry. */
export function readZipEntry(path: string, name: string): Buffer | undefined {
  const { buf, entries } = openZip(path);
  const e = entries.find((x) => x.name === name);
  if (!e) return undefined;
  const lh = e.localHeaderOffset;
  if (buf.readUInt32LE(lh) !== 0x04034b50) throw new Error(`${path}: bad local header for ${name}`);
  const start = lh + 30 + buf.readUInt16LE(lh + 26) + buf.readUInt16LE(lh + 28);
  const data = buf.subarray(start, start + e.compressedSize);
  if (e.method === 0) return Buffer.from(data);
  if (e.method === 8) return inflateRawSync(data);
  throw new Error(`${path}: ${name} uses unsupported compression method ${e.method}`);
}
