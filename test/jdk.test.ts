/**
 * Issue 26: the instrumented JDK. instrument-jdk rewrites java.base into a cache (shared by these
 * tests through one temporary XDG_CACHE_HOME), and run --jdk counts the JDK's bytecodes: the
 * issue's program J then shows its work under jdk(), in JDK methods, where JFR sees it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/komorium.js';
import { jarDir, javac, javaPath, repoRoot, tmpDir } from './support/java.js';
import { debianJar, secondJdkHome } from './support/corpus.js';
import { readProfile, type ContextNode } from '../src/profile/index.js';

/** A context by its methods from the root, for comparing trees across runs. */
function contextKey(n: ContextNode): string {
  const parts: string[] = [];
  for (let c: ContextNode | null = n; c !== null && c.method !== null; c = c.parent) parts.push(`${c.method.className}.${c.method.name}${c.method.descriptor}`);
  return parts.reverse().join(' > ');
}

const cacheHome = mkdtempSync(join(tmpdir(), 'komorium-jdk-cache-'));
const env = { XDG_CACHE_HOME: cacheHome };
const work = tmpDir('komorium-jdk-');
const jJar = join(work, 'j.jar');
let argsFile = '';

/** Self and inclusive bytecodes per method from `report --format collapsed`. */
function shares(profile: string): { total: number; self: Map<string, number>; inclusive: Map<string, number>; stacks: [string[], number][] } {
  const r = cli(['report', profile, '--format', 'collapsed']);
  expect(r.code, r.stderr).toBe(0);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const stacks: [string[], number][] = [];
  let total = 0;
  for (const line of r.stdout.split('\n')) {
    const m = /^(.*) (\d+)$/.exec(line);
    if (!m) continue;
    const frames = m[1]!.split(';');
    const n = Number(m[2]);
    total += n;
    stacks.push([frames, n]);
    self.set(frames[frames.length - 1]!, (self.get(frames[frames.length - 1]!) ?? 0) + n);
    for (const f of new Set(frames)) inclusive.set(f, (inclusive.get(f) ?? 0) + n);
  }
  return { total, self, inclusive, stacks };
}

function frame(map: Map<string, number>, prefix: string): number {
  let n = 0;
  for (const [k, v] of map) if (k.startsWith(prefix)) n += v;
  return n;
}

/**
 * No garbage collection: Epsilon never collects (and would end the program with OutOfMemoryError
 * rather than collect; J at scale 1000 allocates about 90 MB). Its start-up advice (-Xms, pre-touch)
 * would go to standard output.
 */
const NO_GC = ['-XX:+UnlockExperimentalVMOptions', '-XX:+UseEpsilonGC', '-Xmx1g', '-Xlog:gc+init=off'];

interface JitRun {
  name: string;
  file: string;
  text: string;
  stdout: string;
  total: number;
  counters: Map<string, number>;
}

/** J at scale 1000 with the JDK counted, under -Xint, C1 only and the default JIT, with no GC. */
function jitRuns(tag: string, javaHome?: string): JitRun[] {
  const modes: [string, string[]][] = [['-Xint', ['-Xint']], ['C1 only', ['-XX:TieredStopAtLevel=1']], ['default JIT', []]];
  return modes.map(([name, jit]) => {
    const file = join(work, `jit-${tag}-${name.replace(/\W+/g, '_')}.kprof`);
    const home = javaHome === undefined ? [] : ['--java-home', javaHome];
    const args = [...jit, ...NO_GC].map((j) => `--jvm-arg=${j}`);
    const r = cli(['run', jJar, '--main', 'J', '--agent', 'exact', '--jdk', ...home, '-o', file, ...args, '--', '1000'], { env });
    expect(r.code, r.stderr).toBe(0);
    const profile = readProfile(file);
    const counters = new Map(profile.nodes.map((n) => [contextKey(n), n.counter]));
    return { name, file, text: data(file), stdout: r.stdout.split('\n')[0]!, total: profile.totalBytecodes, counters };
  });
}

/** The first contexts whose counters differ between two runs, for a failure message. */
function differingContexts(a: JitRun, b: JitRun): string[] {
  const out: string[] = [];
  for (const k of new Set([...a.counters.keys(), ...b.counters.keys()])) {
    if (a.counters.get(k) !== b.counters.get(k)) out.push(`${a.counters.get(k) ?? 0} vs ${b.counters.get(k) ?? 0}: ${k}`);
  }
  return out.slice(0, 10);
}

/** The profile's lines below its header block. */
function data(profile: string): string {
  return readFileSync(profile, 'utf8').split('\n').filter((l) => !l.startsWith('header\t')).join('\n');
}

beforeAll(async () => {
  const classes = join(work, 'classes');
  mkdirSync(classes);
  javac(join(repoRoot, 'test', 'fixtures', 'java', 'jdkwork', 'J.java'), classes, { release: 11 });
  await jarDir(classes, jJar, { mainClass: 'J' });
  const r = cli(['instrument-jdk'], { env });
  expect(r.code, r.stderr + r.stdout).toBe(0);
  argsFile = /java @(\S+)/.exec(r.stdout)![1]!;
}, 900_000);

afterAll(() => rmSync(cacheHome, { recursive: true, force: true }));

describe('instrument-jdk', () => {
  it('writes java.base and the argument file once, then reuses them', () => {
    const text = readFileSync(argsFile, 'utf8');
    expect(text).toMatch(/^--patch-module "java\.base=.*java\.base"$/m);
    expect(text).toMatch(/^--add-exports java\.base\/komorium\.runtime=ALL-UNNAMED$/m);
    const again = cli(['instrument-jdk'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^reused /);
    expect(again.stdout).toContain(argsFile);
  });

  it('refuses a java home without lib/modules, a JDK 8 and an unreadable image: exit 2, nothing cached', () => {
    const root = join(cacheHome, 'komorium-ts', 'jdk');
    const before = readdirSync(root).sort();
    const none = tmpDir('komorium-jdk-none-');
    const jdk8 = tmpDir('komorium-jdk-8-');
    mkdirSync(join(jdk8, 'jre', 'lib'), { recursive: true });
    writeFileSync(join(jdk8, 'jre', 'lib', 'rt.jar'), 'PK');
    const broken = tmpDir('komorium-jdk-broken-');
    mkdirSync(join(broken, 'lib'));
    writeFileSync(join(broken, 'lib', 'modules'), Buffer.alloc(4096, 7));
    const cases: [string, RegExp][] = [
      [none, /no lib\/modules/],
      [jdk8, /JDK 8 or older .*rt\.jar/],
      [broken, /lib\/modules: not a jimage file/],
    ];
    for (const [home, message] of cases) {
      const r = cli(['instrument-jdk', '--java-home', home], { env });
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(home);
    }
    expect(readdirSync(root).sort()).toEqual(before);
  });
});

describe('run --jdk', () => {
  it("puts J's work under jdk(), in JDK methods; without --jdk own() seems to dominate", () => {
    const plain = spawnSync(javaPath(), ['-cp', jJar, 'J', '10'], { encoding: 'utf8' });
    const withJdk = join(work, 'jdk.kprof');
    const r = cli(['run', jJar, '--main', 'J', '--agent', 'exact', '--jdk', '-o', withJdk, '--', '10'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(plain.stdout)).toBe(true);
    expect(readFileSync(withJdk, 'utf8')).toMatch(/^header\tjdk\tinstrumented$/m);
    const s = shares(withJdk);
    const jdk = frame(s.inclusive, 'J.jdk(');
    expect(jdk / s.total).toBeGreaterThanOrEqual(0.9);
    const top = [...s.self].sort((a, b) => b[1] - a[1]).slice(0, 5);
    for (const [method] of top.filter(([m]) => !m.startsWith('J.own('))) {
      expect(method).toMatch(/^(java|jdk|sun)\./);
      // Each of them runs under jdk() (the bytecodes of the method counted there).
      const under = s.stacks.filter(([f]) => f[f.length - 1] === method && f.some((x) => x.startsWith('J.jdk('))).reduce((a, [, n]) => a + n, 0);
      expect(under / s.self.get(method)!).toBeGreaterThan(0.9);
    }
    // report --fold charges the JDK's bytecodes to the application frame that called it: jdk() itself,
    // not the [uninstrumented] node its calls enter the JDK through.
    const r3 = cli(['report', withJdk, '--fold', 'java.**,jdk.**,sun.**', '--format', 'collapsed']);
    expect(r3.code, r3.stderr).toBe(0);
    const folded = new Map(r3.stdout.trim().split('\n').map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
    expect(folded.get('J.main(String[]);J.jdk(int)')! / s.total).toBeGreaterThanOrEqual(0.9);
    expect([...folded.keys()].filter((k) => k.startsWith('J.main(String[]);J.jdk(int);'))).toEqual([]);

    const appOnly = join(work, 'app.kprof');
    const r2 = cli(['run', jJar, '--main', 'J', '--agent', 'exact', '-o', appOnly, '--', '10']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(readFileSync(appOnly, 'utf8')).toMatch(/^header\tjdk\tnot instrumented$/m);
    const a = shares(appOnly);
    expect(frame(a.self, 'J.own(') / a.total).toBeGreaterThan(0.9);
  }, 600_000);

  // The issue asks for byte-identical profiles under -Xint, C1 and C2. They are, with the JDK
  // counted, once no garbage collection runs (README, "Reproducible profiles"): a collection clears
  // java.lang.invoke's weakly held MethodTypes at a point that depends on allocation, which the JIT
  // changes, and the JDK then builds them again. What made runs differ otherwise (ImmutableCollections'
  // salt, the Finalizer thread's start-up race for identity hashes, the runtime's shutdown hook,
  // reflection's member order) is fixed in the instrumented JDK and the runtime; a failure here lists
  // the contexts that differ.
  it('under -Xint, C1 and C2 (exact agent), with no garbage collection: byte-identical profiles', () => {
    const runs = jitRuns('jdk17');
    expect(runs[0]!.total).toBeGreaterThan(5_000_000);
    for (const r of runs) {
      expect(r.stdout).toBe(runs[0]!.stdout);
      expect(differingContexts(runs[0]!, r), r.name).toEqual([]);
      expect(r.text === runs[0]!.text, r.name).toBe(true);
    }
  }, 600_000);

  const second = secondJdkHome();
  if (second === null) console.warn('jdk.test: no second JDK in /usr/lib/jvm: the JIT-mode check on Temurin 25 is not run');
  it.runIf(second !== null)(`the same on a second JDK (${second}): its own instrumented java.base, byte-identical under -Xint, C1 and C2`, () => {
    const r = cli(['instrument-jdk', '--java-home', second!], { env });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const runs = jitRuns('second', second!);
    expect(readFileSync(runs[0]!.file, 'utf8')).not.toMatch(/^header\tjvm\t.* 17\./m);
    for (const x of runs) {
      expect(x.stdout).toBe(runs[0]!.stdout);
      expect(differingContexts(runs[0]!, x), x.name).toEqual([]);
      expect(x.text === runs[0]!.text, x.name).toBe(true);
    }
  }, 900_000);

  it('leaves the output of a real program as it was (Rhino)', () => {
    const rhino = debianJar('rhino');
    const script = 'var s = 0; var a = []; for (var i = 0; i < 2000; i++) { a.push(String(i * 7).split("").reverse().join("")); s += a[i].length; } print(s, a.sort().slice(0, 5).join(","), JSON.stringify({k: a.length}));';
    const main = 'org.mozilla.javascript.tools.shell.Main';
    const plain = spawnSync(javaPath(), ['-cp', rhino, main, '-opt', '-1', '-e', script], { encoding: 'utf8' });
    expect(plain.status, plain.stderr).toBe(0);
    const r = cli(['run', rhino, '--main', main, '--agent', 'exact', '--jdk', '-o', join(work, 'rhino.kprof'), '--', '-opt', '-1', '-e', script], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(plain.stdout)).toBe(true);
    expect(frame(shares(join(work, 'rhino.kprof')).self, 'java.') ).toBeGreaterThan(0);
  }, 600_000);
});
