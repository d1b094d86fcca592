// Runs every class of a jar or class folder through HotSpot's verifier (test/support/VerifyAll.java,
// compiled once into .cache/verify-harness with javac --release 8) and parses its report.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCachedOnce, hashOf, javaBin, javaHome } from './corpus.js';

const HARNESS_SRC = join(dirname(fileURLToPath(import.meta.url)), 'VerifyAll.java');

export interface VerifyProblem {
  /** Binary name of the class that failed, e.g. com.google.common.base.Joiner. */
  cls: string;
  /** One-line message; for VerifyError it includes "Location: a/B.m(I)V @12: ..." and the reason. */
  message: string;
}
export interface VerifyErrorProblem extends VerifyProblem {
  /** "a/B.m(I)V" from the message's Location, when HotSpot gave one (the split verifier does). */
  method?: string;
}
export interface MissingProblem {
  cls: string;
  /** The absent dependency, dotted (java.lang.NoClassDefFoundError's message). */
  type: string;
}
export interface VerifyResult {
  classes: number;
  /** Classes that loaded, linked (so verified) and reflected without any error. */
  verified: number;
  verifyErrors: VerifyErrorProblem[];
  missing: MissingProblem[];
  other: VerifyProblem[];
  /** Missing dependency → number of classes that needed it. */
  missingByType: Record<string, number>;
  javaVersion: string;
  stdout: string;
  stderr: string;
  ms: number;
}
export interface VerifyOptions {
  /** JDK to run (default: corpus javaHome()). The harness is compiled for 8, so any JDK ≥ 8 works. */
  javaHome?: string;
  /** Max heap (default 2g). */
  heap?: string;
  timeoutMs?: number;
}

/** Compiles VerifyAll.java once (per source and javac) and returns the folder holding VerifyAll.class. */
export function verifyHarnessDir(): string {
  const src = readFileSync(HARNESS_SRC);
  const javac = javaBin('javac');
  return buildCachedOnce('verify-harness', `VerifyAll ${hashOf(src, javac)}\n`, (tmp) => {
    execFileSync(javac, ['--release', '8', '-Xlint:-options', '-encoding', 'UTF-8', '-d', tmp, HARNESS_SRC], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  });
}

/** An environment without variables that could slip -Xverify:none / -noverify into the JVM. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.JAVA_TOOL_OPTIONS;
  delete env._JAVA_OPTIONS;
  delete env.JDK_JAVA_OPTIONS;
  return env;
}

/**
 * Loads every class of `jar` (a jar or a folder of classes) in one fresh URLClassLoader over
 * [jar, ...extraCp] whose parent is the platform loader, links each (HotSpot verifies at link time:
 * verification of non-boot classes is on by default, and we pass -XX:+BytecodeVerificationRemote
 * explicitly; the harness exits 2 if it is off), and returns the problems. One JVM for the whole jar.
 */
export function verifyJar(jar: string, extraCp: readonly string[] = [], opts: VerifyOptions = {}): VerifyResult {
  if (!existsSync(jar)) throw new Error(`verifyJar: no such jar or folder: ${jar}`);
  const harness = verifyHarnessDir();
  const java = javaBin('java', opts.javaHome ?? javaHome());
  const args = [
    // Verification of classes from non-boot loaders: on by default (BytecodeVerificationRemote=true, a
    // diagnostic flag); set explicitly so nothing can have turned it off, and checked again by the harness.
    '-XX:+UnlockDiagnosticVMOptions',
    '-XX:+BytecodeVerificationRemote',
    '-Xss8m',
    `-Xmx${opts.heap ?? '2g'}`,
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1', // short run: C1 only starts faster
    '-Djava.awt.headless=true',
    '-cp', harness,
    'VerifyAll', jar,
  ];
  if (extraCp.length > 0) args.push(extraCp.join(delimiter));
  const t0 = Date.now();
  const r = spawnSync(java, args, {
    encoding: 'utf8',
    env: cleanEnv(),
    maxBuffer: 512 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 600_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = Date.now() - t0;
  if (r.error) throw new Error(`verifyJar(${jar}): ${r.error.message}`);
  const stdout = r.stdout ?? '';
  const stderr = r.stderr ?? '';
  const result = parseVerifyOutput(stdout);
  if (r.status !== 0 || !result) {
    throw new Error(
      `verifyJar(${jar}): harness exited ${r.status ?? r.signal}${result ? '' : ' without a summary line'}\n` +
        `stderr:\n${stderr.slice(-4000)}\nstdout (tail):\n${stdout.slice(-4000)}`,
    );
  }
  return { ...result, stdout, stderr, ms };
}

/**
 * The runtime's JUnit Platform listener (komorium/runtime/PerTestListener*), which every
 * instrumented jar carries, needs junit-platform, which is loaded only by JUnit's ServiceLoader
 * with junit-platform on the class path. Without it those classes cannot link: they are left out
 * of the counts here, and test/per-test.test.ts runs them, verified, under JUnit.
 */
function optionalRuntimeClass(cls: string, missingType: string): boolean {
  return /^komorium\.runtime\.PerTestListener(\$|$)/.test(cls) && missingType.startsWith('org.junit.platform.');
}

/** Parses VerifyAll's output; null when the summary line is absent. */
export function parseVerifyOutput(stdout: string): Omit<VerifyResult, 'stdout' | 'stderr' | 'ms'> | null {
  const verifyErrors: VerifyErrorProblem[] = [];
  const missing: MissingProblem[] = [];
  const other: VerifyProblem[] = [];
  const missingByType: Record<string, number> = {};
  let summary: RegExpExecArray | null = null;
  let javaVersion = '';
  let optional = 0;
  for (const line of stdout.split('\n')) {
    const m = /^(VERIFY|MISSING|OTHER) (\S+) ?(.*)$/.exec(line);
    if (m) {
      const [, kind, cls, rest] = m as unknown as [string, string, string, string];
      if (kind === 'VERIFY') {
        const loc = /Location: (\S+?) @/.exec(rest);
        verifyErrors.push(loc ? { cls, message: rest, method: loc[1] } : { cls, message: rest });
      } else if (kind === 'MISSING' && optionalRuntimeClass(cls, rest)) {
        optional++;
      } else if (kind === 'MISSING') {
        missing.push({ cls, type: rest });
        missingByType[rest] = (missingByType[rest] ?? 0) + 1;
      } else {
        other.push({ cls, message: rest });
      }
      continue;
    }
    const v = /^# java\.version=(\S+)/.exec(line);
    if (v) javaVersion = v[1]!;
    const s = /^classes=(\d+) verified=(\d+) verifyErrors=(\d+) missing=(\d+) other=(\d+)$/.exec(line);
    if (s) summary = s;
  }
  if (!summary) return null;
  const [classes, verified, nVerify, nMissing, nOther] = summary.slice(1).map(Number) as [number, number, number, number, number];
  if (nVerify !== verifyErrors.length || nMissing !== missing.length + optional || nOther !== other.length) {
    throw new Error(`VerifyAll output is inconsistent with its summary line: ${summary[0]}`);
  }
  return { classes: classes - optional, verified, verifyErrors, missing, other, missingByType, javaVersion };
}

/** A short text for assertion messages: the counts and the first few problems. */
export function describeVerify(r: VerifyResult, max = 10): string {
  const lines = [
    `classes=${r.classes} verified=${r.verified} verifyErrors=${r.verifyErrors.length} missing=${r.missing.length} other=${r.other.length} (${r.ms} ms, java ${r.javaVersion})`,
  ];
  for (const p of r.verifyErrors.slice(0, max)) lines.push(`  VERIFY ${p.cls} ${p.message}`);
  for (const p of r.other.slice(0, max)) lines.push(`  OTHER ${p.cls} ${p.message}`);
  const types = Object.entries(r.missingByType).sort((a, b) => b[1] - a[1]);
  if (types.length > 0) lines.push(`  missing types: ${types.slice(0, max).map(([t, n]) => `${t}×${n}`).join(', ')}`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Many unrelated class files, each case in a class loader of its own (test/support/VerifyEach.java).

const EACH_SRC = join(dirname(fileURLToPath(import.meta.url)), 'VerifyEach.java');

export type CaseVerdict = 'OK' | 'FORMAT' | 'VERIFY' | 'MISSING' | 'OTHER';
export interface CaseResult {
  verdict: CaseVerdict;
  message: string;
}

/**
 * Defines and links the class files of each case in a fresh class loader (parent: `cp` over the
 * platform loader), all cases in one JVM with verification on, and returns the verdict per case id.
 * Cases may hold classes of the same name: they never see each other.
 */
export function verifyEach(
  listFile: string,
  cases: readonly { id: string; files: readonly string[] }[],
  cp: readonly string[] = [],
  opts: VerifyOptions = {},
): { results: Map<string, CaseResult>; ms: number; stderr: string } {
  // VerifyEach shares VerifyAll's helpers, so both are compiled together.
  const src = Buffer.concat([readFileSync(EACH_SRC), readFileSync(HARNESS_SRC)]);
  const javac = javaBin('javac');
  const harness = buildCachedOnce('verify-each-harness', `VerifyEach ${hashOf(src, javac)}\n`, (tmp) => {
    execFileSync(javac, ['--release', '8', '-Xlint:-options', '-encoding', 'UTF-8', '-d', tmp, EACH_SRC, HARNESS_SRC], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  });
  writeFileSync(listFile, cases.map((c) => [c.id, ...c.files].join('\t')).join('\n') + '\n');
  const args = [
    '-XX:+UnlockDiagnosticVMOptions',
    '-XX:+BytecodeVerificationRemote',
    '-Xss8m',
    `-Xmx${opts.heap ?? '1g'}`,
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-cp', harness,
    'VerifyEach', listFile,
  ];
  if (cp.length > 0) args.push(cp.join(delimiter));
  const t0 = Date.now();
  const r = spawnSync(javaBin('java', opts.javaHome ?? javaHome()), args, {
    encoding: 'utf8',
    env: cleanEnv(),
    maxBuffer: 512 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 300_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = Date.now() - t0;
  if (r.error) throw new Error(`verifyEach: ${r.error.message}`);
  const results = new Map<string, CaseResult>();
  let summary = false;
  for (const line of (r.stdout ?? '').split('\n')) {
    if (/^cases=\d+ /.test(line)) summary = true;
    const m = /^([^\t#][^\t]*)\t(OK|FORMAT|VERIFY|MISSING|OTHER)\t?(.*)$/.exec(line);
    if (m) results.set(m[1]!, { verdict: m[2] as CaseVerdict, message: m[3]! });
  }
  if (r.status !== 0 || !summary || results.size !== cases.length) {
    throw new Error(
      `verifyEach: harness exited ${r.status ?? r.signal} with ${results.size} of ${cases.length} verdicts\n` +
        `stderr:\n${(r.stderr ?? '').slice(-4000)}\nstdout (tail):\n${(r.stdout ?? '').slice(-2000)}`,
    );
  }
  return { results, ms, stderr: r.stderr ?? '' };
}
