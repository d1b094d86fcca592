/**
 * Per-test bytecode baselines (iai-callgrind's save/compare, for the JVM): the per-test profiles a
 * test run wrote with `-Dkomorium.tests=DIR` (the runtime's PerTestListener) are saved under a
 * name, and a later run is compared with them test by test: which tests grew, by how much, and
 * which method grew most in each. Bytecode counts of deterministic tests repeat exactly, so a
 * limit of a few percent has no noise to absorb.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { KomoriumError, UsageError } from '../errors.js';
import { flatten } from '../profile/analysis.js';
import { share, type MethodEntry, type Profile } from '../profile/model.js';
import { readProfile } from '../profile/read.js';
import { formatInt, formatSignedInt, formatSignedPct, methodName, table } from './names.js';

export interface TestProfile {
  /** `com.example.PrimesTest.counts()`: the `test` header the listener writes. */
  name: string;
  file: string;
  /** Bytecodes the test ran (counted by the exact agent). */
  bytecodes: number;
  result: string;
  wallNanos: number;
  profile: Profile;
}

function header(p: Profile, key: string): string | undefined {
  return p.headers.find((h) => h.key === key)?.value;
}

/** Every per-test profile in `dir`, by test name; a KomoriumError when there is none. */
export function readTests(dir: string): Map<string, TestProfile> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new KomoriumError(`${dir}: no such folder of per-test profiles (run the tests with -Dkomorium.tests=${dir})`);
  const out = new Map<string, TestProfile>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.kprof')).sort()) {
    const file = join(dir, f);
    const profile = readProfile(file);
    const name = header(profile, 'test');
    if (name === undefined) continue;
    const prior = out.get(name);
    if (prior) throw new KomoriumError(`${file}: test ${name} also has ${prior.file}`);
    out.set(name, { name, file, bytecodes: profile.totalBytecodes, result: header(profile, 'testResult') ?? '?', wallNanos: Number(header(profile, 'testWallNanos') ?? NaN), profile });
  }
  if (out.size === 0) throw new KomoriumError(`${dir}: no per-test profile in this folder (profiles with a "test" header, written with -Dkomorium.tests)`);
  return out;
}

export function checkBaselineName(name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new UsageError(`baseline name "${name}": use letters, digits, '.', '_' and '-' (it names a folder)`);
}

/** Copies the per-test profiles of `testsDir` into `store/name`, replacing a baseline of that name whole. */
export function saveBaseline(name: string, testsDir: string, store: string): Map<string, TestProfile> {
  checkBaselineName(name);
  const tests = readTests(testsDir);
  const target = join(store, name);
  const tmp = join(store, `.${name}.tmp-${process.pid}`);
  try {
    mkdirSync(tmp, { recursive: true });
    for (const t of tests.values()) cpSync(t.file, join(tmp, basename(t.file)));
    const old = join(store, `.${name}.old-${process.pid}`);
    if (existsSync(target)) renameSync(target, old);
    renameSync(tmp, target);
    rmSync(old, { recursive: true, force: true });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (e instanceof KomoriumError) throw e;
    throw new KomoriumError(`${target}: cannot save the baseline: ${(e as Error).message}`);
  }
  return tests;
}

export interface TestChange {
  name: string;
  base?: TestProfile;
  now?: TestProfile;
  /** (now − base) / base; undefined for a test on one side only. */
  growth?: number;
  regressed: boolean;
  /** The method whose self bytecodes grew most, and by how much. */
  grewMost?: { method: MethodEntry; delta: number; base: number };
}

/** Estimated (or, exact agent, counted) self bytecodes per method key. */
function selfBytecodes(p: Profile): Map<string, { method: MethodEntry; bytecodes: number }> {
  return new Map(flatten(p).map((f) => [f.method.key, { method: f.method, bytecodes: share(p, f.self) * p.totalBytecodes }]));
}

function grewMost(base: Profile, now: Profile): TestChange['grewMost'] {
  const a = selfBytecodes(base);
  let best: TestChange['grewMost'];
  for (const [key, b] of selfBytecodes(now)) {
    const before = a.get(key)?.bytecodes ?? 0;
    const delta = b.bytecodes - before;
    if (delta > 0 && (best === undefined || delta > best.delta)) best = { method: b.method, delta, base: before };
  }
  return best;
}

export function compareTests(base: Map<string, TestProfile>, now: Map<string, TestProfile>, limitPercent: number): TestChange[] {
  const names = [...new Set([...base.keys(), ...now.keys()])].sort();
  return names.map((name) => {
    const b = base.get(name);
    const n = now.get(name);
    if (!b || !n) return { name, base: b, now: n, regressed: false };
    const growth = b.bytecodes === 0 ? (n.bytecodes === 0 ? 0 : Infinity) : (n.bytecodes - b.bytecodes) / b.bytecodes;
    return { name, base: b, now: n, growth, regressed: growth * 100 > limitPercent, grewMost: growth > 0 ? grewMost(b.profile, n.profile) : undefined };
  });
}

export function renderComparison(baseline: string, testsDir: string, changes: TestChange[], limitPercent: number): string {
  const compared = changes.filter((c) => c.growth !== undefined);
  const rows = compared
    .sort((x, y) => y.growth! - x.growth! || (x.name < y.name ? -1 : 1))
    .map((c) => [
      c.regressed ? 'REGRESSED' : c.growth! > 0 ? 'grew' : c.growth! < 0 ? 'shrank' : 'same',
      formatSignedPct(c.growth!, 2),
      `${formatInt(c.base!.bytecodes)} → ${formatInt(c.now!.bytecodes)}`,
      c.name,
    ]);
  const out = [`komorium-ts baseline compare ${baseline}: ${compared.length} tests of ${testsDir} against the baseline, limit +${limitPercent}%`, ''];
  out.push(...table([['', 'change', 'bytecodes', 'test'], ...rows], ['l', 'r', 'r', 'l']));
  const grown = compared.filter((c) => c.grewMost !== undefined && c.growth! > 0);
  if (grown.length > 0) {
    out.push('', 'Method that grew most in each test that grew (self bytecodes):');
    for (const c of grown) {
      const g = c.grewMost!;
      out.push(`  ${c.name}: ${methodName(g.method)} ${formatSignedInt(g.delta)}${g.base > 0 ? ` (${formatSignedPct(g.delta / g.base, 1)})` : ' (new)'}`);
    }
  }
  const added = changes.filter((c) => c.base === undefined).map((c) => c.name);
  const removed = changes.filter((c) => c.now === undefined).map((c) => c.name);
  if (added.length > 0) out.push('', `Not in the baseline (${added.length}): ${added.join(', ')}`);
  if (removed.length > 0) out.push('', `In the baseline, not run now (${removed.length}): ${removed.join(', ')}`);
  const regressed = compared.filter((c) => c.regressed);
  out.push(
    '',
    regressed.length === 0
      ? `Verdict: PASS: no test grew more than ${limitPercent}%`
      : `Verdict: FAIL: ${regressed.length} of ${compared.length} tests grew more than ${limitPercent}% (--limit): ${regressed.map((c) => `${c.name} ${formatSignedPct(c.growth!, 2)}`).join(', ')}`,
  );
  return out.join('\n') + '\n';
}
