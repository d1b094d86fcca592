/**
 * Finds the running JDK and reads its classes lazily:
 *  - JDK 9+: lib/modules through the jimage reader (no JVM start; about 10 ms to open, a few
 *    hundredths of a millisecond per class);
 *  - if the image cannot be read directly (a jlink image with 'compact-cp' compression, a future
 *    format), `jimage extract` into ~/.cache/komorium-ts/<jdk version>/ once, then plain files;
 *  - JDK 8: jre/lib/rt.jar read as a jar.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { JImage, JImageUnsupportedError } from './jimage.js';
import { ZipIndex } from '../jar/zip-index.js';

export interface JdkClassSource {
  /** Human-readable: which file or folder, which version. */
  readonly description: string;
  readonly javaHome: string;
  readonly version: string;
  readClass(internalName: string): Uint8Array | null;
  close(): void;
}

/** java.home of the JDK that runs the instrumented program: JAVA_HOME, else `java` on PATH. */
export function findJavaHome(): string | null {
  const candidates: string[] = [];
  if (process.env.JAVA_HOME) candidates.push(process.env.JAVA_HOME);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const exe = join(dir, 'java');
    if (existsSync(exe)) {
      try {
        // /usr/bin/java is a chain of symlinks to <home>/bin/java.
        candidates.push(dirname(dirname(realpathSync(exe))));
      } catch {
        /* a dangling link: try the next PATH entry */
      }
      break;
    }
  }
  for (const home of candidates) if (jdkLayout(home) !== null) return home;
  // Last resort (one JVM start): ask the JVM itself.
  try {
    const out = execFileSync('java', ['-XshowSettings:properties', '-version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const m = /java\.home = (.*)/.exec(out);
    if (m && jdkLayout(m[1]!.trim()) !== null) return m[1]!.trim();
  } catch (e) {
    const err = e as { stderr?: string };
    const m = /java\.home = (.*)/.exec(err.stderr ?? '');
    if (m && jdkLayout(m[1]!.trim()) !== null) return m[1]!.trim();
  }
  return null;
}

function jdkLayout(home: string): { kind: 'jimage' | 'rt.jar'; path: string } | null {
  const modules = join(home, 'lib', 'modules');
  if (existsSync(modules)) return { kind: 'jimage', path: modules };
  for (const rt of [join(home, 'jre', 'lib', 'rt.jar'), join(home, 'lib', 'rt.jar')]) {
    if (existsSync(rt)) return { kind: 'rt.jar', path: rt };
  }
  return null;
}

function jdkVersion(home: string): string {
  try {
    const release = readFileSync(join(home, 'release'), 'utf8');
    const m = /^JAVA_VERSION="?([^"\n]*)"?/m.exec(release);
    if (m) return m[1]!;
  } catch {
    /* no release file (some JDK 8 JREs) */
  }
  return 'unknown';
}

/**
 * The class source of a JDK. `reader` 'extract' skips the direct jimage reader (for testing and
 * measuring the fallback).
 */
export function openJdk(
  javaHome: string,
  cacheRoot = join(homedir(), '.cache', 'komorium-ts'),
  reader: 'jimage' | 'extract' = 'jimage',
): JdkClassSource | null {
  const layout = jdkLayout(javaHome);
  if (layout === null) return null;
  const version = jdkVersion(javaHome);
  if (layout.kind === 'rt.jar') {
    const zip = new ZipIndex(layout.path);
    return {
      description: `${layout.path} (JDK ${version})`,
      javaHome,
      version,
      readClass: (n) => zip.read(`${n}.class`),
      close: () => zip.close(),
    };
  }
  if (reader === 'extract') return openExtracted(javaHome, layout.path, version, cacheRoot);
  try {
    const image = new JImage(layout.path);
    // Probe one class so that an unsupported compression shows up now and not mid-analysis.
    if (image.readClass('java/lang/Object') === null) throw new JImageUnsupportedError('java/lang/Object not found');
    return {
      description: `${layout.path} (jimage ${image.version}, JDK ${version})`,
      javaHome,
      version,
      readClass: (n) => image.readClass(n),
      close: () => image.close(),
    };
  } catch (e) {
    if (!(e instanceof JImageUnsupportedError)) throw e;
    return openExtracted(javaHome, layout.path, version, cacheRoot);
  }
}

/** The `jimage extract` fallback: one extraction per JDK version, then a file read per class. */
function openExtracted(javaHome: string, modules: string, version: string, cacheRoot: string): JdkClassSource | null {
  const dir = join(cacheRoot, version.replace(/[^\w.-]/g, '_'), 'classes');
  if (!existsSync(dir)) {
    const jimage = join(javaHome, 'bin', 'jimage');
    if (!existsSync(jimage)) return null;
    const tmp = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    try {
      execFileSync(jimage, ['extract', '--dir', tmp, '--include', 'regex:.*\\.class', modules], { stdio: 'ignore' });
      // Rename last, so that an interrupted extraction is never taken for a complete one.
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (!existsSync(dir)) throw e;
    }
  }
  // package → module, from the folder tree (directories only, read once).
  const packageModule = new Map<string, string>();
  for (const module of readdirSync(dir)) {
    const walk = (rel: string) => {
      for (const child of readdirSync(join(dir, module, rel), { withFileTypes: true })) {
        if (child.isDirectory()) walk(rel === '' ? child.name : `${rel}/${child.name}`);
        // Parent folders (javax/) occur in many modules; a package is where its classes are.
        else if (!packageModule.has(rel)) packageModule.set(rel, module);
      }
    };
    if (statSync(join(dir, module)).isDirectory()) walk('');
  }
  return {
    description: `${dir} (extracted from ${modules}, JDK ${version})`,
    javaHome,
    version,
    readClass: (n) => {
      const slash = n.lastIndexOf('/');
      const module = packageModule.get(slash < 0 ? '' : n.substring(0, slash));
      if (module === undefined) return null;
      const file = join(dir, module, `${n}.class`);
      return existsSync(file) ? readFileSync(file) : null;
    },
    close: () => {},
  };
}
