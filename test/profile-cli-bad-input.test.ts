/**
 * Issue 5, "Bad input", through the real command line (report-diff.test.ts checks the same cases
 * on the command modules in-process): a truncated or corrupted profile, a newer format version, or
 * profiles of different agents passed to diff or merge each exit 2 with one message on stderr that
 * names the file (and line), no stack trace and no output file; profiles of different
 * granularities diff with a warning (merge refuses them: their samples stand for different numbers
 * of bytecodes).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tmpDir } from './support/java.js';
import { cli } from './support/komorium.js';

const profiles = join(repoRoot, 'test', 'fixtures', 'profiles');
const fx = (name: string): string => join(profiles, name);
const simple = fx('simple.kprof');
const text = readFileSync(simple, 'utf8');

/** Writes a broken variant of simple.kprof. */
function variant(dir: string, name: string, content: string | Buffer): string {
  const f = join(dir, name);
  writeFileSync(f, content);
  return f;
}

/** Exit 2, one line on stderr that matches, nothing on stdout, no output file. */
function expectRefused(args: string[], message: RegExp, out?: string): void {
  const r = cli(args);
  const what = `komorium-ts ${args.map((a) => basename(a)).join(' ')}`;
  expect(r.code, `${what}: ${r.stderr}`).toBe(2);
  expect(r.stderr, what).toMatch(/^komorium-ts: [^\n]+\n$/);
  expect(r.stderr, what).toMatch(message);
  expect(r.stdout, what).toBe('');
  if (out) expect(existsSync(out), `${what} wrote ${out}`).toBe(false);
}

describe('diff and merge refuse bad profiles with exit 2', () => {
  const dir = tmpDir();
  const lines = text.split('\n');
  const nodeLine = lines.findIndex((l) => l.startsWith('node\t3\t'));
  const broken: [string, string, RegExp][] = [
    // A cut inside a line names the line that is incomplete.
    ['cut-in-half.kprof', text.slice(0, text.length >> 1), /cut-in-half\.kprof:\d+: "method" line has \d fields, expected 7/],
    ['cut-mid-node.kprof', text.slice(0, text.indexOf('node\t4') + 7), /cut-mid-node\.kprof:\d+: "node" line has \d fields/],
    ['no-end.kprof', text.replace(/^end\t.*\n/m, ''), /no-end\.kprof.*missing "end" line: the file is truncated/],
    ['only-header.kprof', lines.slice(0, 3).join('\n') + '\n', /only-header\.kprof:\d+: .*truncated/],
    ['empty.kprof', '', /empty\.kprof/],
    ['bad-counter.kprof', lines.map((l, i) => (i === nodeLine ? l.replace(/\t\d+$/, '\t1x0') : l)).join('\n'), new RegExp(`bad-counter\\.kprof:${nodeLine + 1}: `)],
    ['dangling.kprof', lines.map((l, i) => (i === nodeLine ? 'node\t3\t1\t99\t10' : l)).join('\n'), new RegExp(`dangling\\.kprof:${nodeLine + 1}: .*99`)],
    ['wrong-count.kprof', text.replace(/^end\t8/m, 'end\t9'), /wrong-count\.kprof:\d+: "end" says 9 nodes but the file has 8/],
    ['binary.kprof', '', /binary\.kprof: not a komorium profile/],
  ];

  it('truncated and corrupted profiles, in either position and in merge', () => {
    for (const [name, content, message] of broken) {
      const f = variant(dir, name, name === 'binary.kprof' ? Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00]) : content);
      const out = join(dir, `out-${name}`);
      if (process.env.KOMORIUM_SHOW_MESSAGES) console.log(cli(['diff', simple, f]).stderr);
      expectRefused(['diff', simple, f], message);
      expectRefused(['diff', f, simple, '--fail-under', '90', '-o', out], message, out);
      expectRefused(['merge', simple, f, '-o', out], message, out);
    }
  });

  it('a newer format version', () => {
    const out = join(dir, 'newer-out.kprof');
    const message = /newer-version\.kprof:1: format version 3 is newer than this komorium-ts understands \(2\): upgrade komorium-ts/;
    expectRefused(['diff', simple, fx('newer-version.kprof')], message);
    expectRefused(['diff', fx('newer-version.kprof'), simple], message);
    expectRefused(['merge', fx('newer-version.kprof'), simple, '-o', out], message, out);
  });

  it('profiles of different agents', () => {
    const out = join(dir, 'agents-out.kprof');
    expectRefused(['diff', simple, fx('exact.kprof'), '--fail-under', '90'], /agent "sampling".*agent "exact".*profiles of different agents are not comparable; profile both runs with the same agent/);
    expectRefused(['merge', fx('exact.kprof'), simple, '-o', out], /only profiles of the same agent can be merged/, out);
  });
});

describe('profiles of different granularities', () => {
  it('diff works and warns: in the text, or on stderr when the diff goes to a file', () => {
    const warning = /different sampling granularities \(.*simple\.kprof: 10000\+random\[0,100\), .*coarse\.kprof: 100000\)/;
    const r = cli(['diff', simple, fx('coarse.kprof')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Warning: ${warning.source}`, 'm'));
    const out = join(tmpDir(), 'diff.json');
    const j = cli(['diff', simple, fx('coarse.kprof'), '-o', out, '--fail-under', '50']);
    expect(j.code, j.stderr).toBe(0);
    expect(j.stderr).toMatch(new RegExp(`^komorium-ts: warning: ${warning.source}`));
    expect(JSON.parse(readFileSync(out, 'utf8')).format).toBe('komorium-diff');
  });

  it('merge refuses them, saying why', () => {
    const out = join(tmpDir(), 'merged.kprof');
    expectRefused(['merge', simple, fx('coarse.kprof'), '-o', out], /merge: .*coarse\.kprof was sampled at granularity 100000 but .*simple\.kprof at 10000\+random\[0,100\).*use diff to compare them/, out);
  });
});
