/**
 * Issue 23, the content-hash cache of `instrument` (src/instrument/cache.ts): the same jar with the
 * same options gives the same bytes from the cache; --no-cache and other options do
 * not use it; a corrupt or truncated entry is detected by its hashes, removed and rebuilt, never used.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { javac, jarDir, tmpDir } from './support/java.js';
import { cli, type CliResult } from './support/komorium.js';

let work: string;
let jar: string;
let cacheHome: string;
/** The output of a run without the cache: what every cached run must give byte for byte. */
let reference: Buffer;

const entries = () => (existsSync(join(cacheHome, 'komorium-ts', 'instrument')) ? readdirSync(join(cacheHome, 'komorium-ts', 'instrument')) : []);

function run(out: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): CliResult {
  const r = cli(['instrument', jar, '-o', out, ...extra], { env: { KOMORIUM_TS_CACHE: '1', XDG_CACHE_HOME: cacheHome, ...env } });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

beforeAll(async () => {
  work = tmpDir('komorium-cache-');
  cacheHome = join(work, 'xdg');
  const src = join(work, 'src');
  mkdirSync(src);
  writeFileSync(join(src, 'Main.java'), 'public class Main {\n  static int f(int x) { return x < 2 ? x : f(x - 1) + f(x - 2); }\n  public static void main(String[] a) { System.out.println(f(20)); }\n}\n');
  javac(src, join(work, 'classes'), { release: 8 });
  jar = join(work, 'app.jar');
  await jarDir(join(work, 'classes'), jar, { mainClass: 'Main' });
  const r = cli(['instrument', jar, '-o', join(work, 'reference.jar'), '--no-cache'], { env: { KOMORIUM_TS_CACHE: '1', XDG_CACHE_HOME: cacheHome } });
  expect(r.code, r.stderr).toBe(0);
  reference = readFileSync(join(work, 'reference.jar'));
});

describe('instrument cache', () => {
  test('--no-cache and KOMORIUM_TS_CACHE=0 neither read nor write it', () => {
    expect(entries()).toEqual([]);
    run(join(work, 'off.jar'), [], { KOMORIUM_TS_CACHE: '0' });
    expect(entries()).toEqual([]);
  });

  test('a second run with the same jar and options copies the same bytes from the cache', () => {
    const first = run(join(work, 'a.jar'));
    expect(first.stdout).not.toMatch(/copied from the cache/);
    expect(entries()).toHaveLength(1);
    const second = run(join(work, 'a.jar'));
    expect(second.stdout).toMatch(new RegExp(`^note: copied from the cache ${join(cacheHome, 'komorium-ts', 'instrument')}/[0-9a-f]{64} `, 'm'));
    // The summary is the first run's.
    expect(second.stdout.replace(/^note: copied from the cache.*\n/m, '')).toBe(first.stdout);
    expect(readFileSync(join(work, 'a.jar')).equals(reference)).toBe(true);
    expect(run(join(work, 'a.jar'), ['--no-cache']).stdout).not.toMatch(/copied from the cache/);
  });

  test('other options are another entry', () => {
    expect(run(join(work, 'a.jar'), ['--max-path', '20']).stdout).not.toMatch(/copied from the cache/);
    expect(entries()).toHaveLength(2);
    expect(run(join(work, 'a.jar'), ['--max-path', '20']).stdout).toMatch(/copied from the cache/);
    // Call lines are the default: --call-lines is the default's entry, --no-call-lines another.
    expect(run(join(work, 'a.jar'), ['--call-lines']).stdout).toMatch(/copied from the cache/);
    expect(run(join(work, 'a.jar'), ['--no-call-lines']).stdout).not.toMatch(/copied from the cache/);
    expect(entries()).toHaveLength(3);
    expect(readFileSync(join(work, 'a.jar')).equals(reference)).toBe(false);
    expect(run(join(work, 'a.jar'), ['--no-call-lines']).stdout).toMatch(/copied from the cache/);
  });

  test('an experiment switch of the environment (KOMORIUM_TWIN) is another entry, other variables are not', () => {
    const profile = ['--profile', 'call-edges', '--layout', 'full-dup'];
    const before = entries().length;
    expect(run(join(work, 'b.jar'), profile).stdout).not.toMatch(/copied from the cache/);
    expect(run(join(work, 'b.jar'), profile, { KOMORIUM_TWIN: 'stay' }).stdout).not.toMatch(/copied from the cache/);
    expect(entries()).toHaveLength(before + 2);
    expect(run(join(work, 'b.jar'), profile, { KOMORIUM_TWIN: 'stay', KOMORIUM_WORKERS: '1' }).stdout).toMatch(/copied from the cache/);
    expect(run(join(work, 'b.jar'), profile, { KOMORIUM_TWIN: 'stay', KOMORIUM_SOMETHING_ELSE: 'x' }).stdout).toMatch(/copied from the cache/);
  });

  test.each([
    ['a flipped byte in the output', (dir: string) => {
      const b = readFileSync(join(dir, 'out0'));
      b[b.length >> 1] ^= 0x55;
      writeFileSync(join(dir, 'out0'), b);
    }, /out0 does not match its hash/],
    ['a truncated output', (dir: string) => truncateSync(join(dir, 'out0'), 100), /out0 does not match its hash/],
    ['a truncated entry.json', (dir: string) => truncateSync(join(dir, 'entry.json'), 50), /entry\.json does not parse/],
    ['an edited entry.json', (dir: string) => {
      const text = readFileSync(join(dir, 'entry.json'), 'utf8');
      writeFileSync(join(dir, 'entry.json'), text.replace('"instrumentedClasses":1', '"instrumentedClasses":7'));
    }, /entry\.json does not match its hash/],
  ])('%s is detected, not used, and the entry rebuilt', (_what, damage, why) => {
    const out = join(work, 'damaged.jar');
    run(out);
    const key = run(out).stdout.match(/copied from the cache (\S+)/)![1]!;
    damage(key);
    const rebuilt = run(out);
    expect(rebuilt.stderr).toMatch(why);
    expect(rebuilt.stderr).toMatch(/corrupt entry removed/);
    expect(rebuilt.stdout).not.toMatch(/copied from the cache/);
    expect(readFileSync(out).equals(reference)).toBe(true);
    const again = run(out);
    expect(again.stdout).toMatch(/copied from the cache/);
    expect(again.stderr).toBe('');
    expect(readFileSync(out).equals(reference)).toBe(true);
  });
});
