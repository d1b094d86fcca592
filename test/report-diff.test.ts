import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandModule } from 'yargs';
import { diffCommand } from '../src/cli/commands/diff.js';
import { KomoriumError } from '../src/errors.js';
import { readProfile } from '../src/profile/index.js';
import { diffProfiles, renderDiffJson, renderDiffText } from '../src/report/index.js';
import { fixture, runCli, tempDir } from './fixtures/profiles/harness.js';

const simple = () => readProfile(fixture('simple.kprof'));
const grown = () => readProfile(fixture('grown.kprof'));
const diff = (argv: string[]) => runCli(diffCommand as CommandModule<object, never>, ['diff', ...argv]);

describe('diffProfiles', () => {
  it('identical profiles: 100% overlap, nothing grew, gates pass', () => {
    const d = diffProfiles(simple(), simple(), { failUnder: 100, maxGrowth: 0 });
    expect(d.overlap.total).toBe(1);
    expect(d.passed).toBe(true);
    const text = renderDiffText(d);
    expect(text.split('\n').slice(0, 2)).toEqual(['Grew most: no method grew', 'Verdict: PASS (2 gates)']);
  });

  it('names the method that grew most first', () => {
    const d = diffProfiles(simple(), grown());
    expect(d.methods[0]!.method.name).toBe('hashCode');
    expect(d.methods[0]!.deltaSelf).toBeCloseTo(400_000, 6);
    expect(d.totalBytecodes).toEqual({ a: 1_000_000, b: 1_400_000, delta: 400_000, growth: 0.4 });
    const text = renderDiffText(d);
    expect(text.split('\n')[0]).toBe('Grew most: java.lang.String.hashCode() +400,000 bytecodes self (+160.0%), 25.0% → 46.4% of the run');
    expect(text).toContain('Total bytecodes: 1,000,000 → 1,400,000 (+400,000, +40.0%)');
    expect(text).toContain('Overlap: calling contexts 77.14%, methods 78.57%');
    const grewSection = text.slice(text.indexOf('Methods that grew most'));
    expect(grewSection.split('\n')[2]).toMatch(/^\s+\+400,000\s+\+160\.0%\s+25\.0% → 46\.4%\s+25\.0% → 46\.4%\s+java\.lang\.String\.hashCode\(\)$/);
    const contexts = text.slice(text.indexOf('Calling contexts that grew most'));
    expect(contexts.split('\n').slice(1, 5)).toEqual([
      '  #1  +400,000 bytecodes (+200.0%), 20.0% → 42.9%',
      '        at java.lang.String.hashCode()',
      '        at com.foo.Parser.parse(int, String) (Parser.java)',
      '        at com.foo.Main.main(String[]) (Main.java)',
    ]);
    // Per method: where the overlap was lost.
    expect(text).toMatch(/25\.00%\s+46\.43%\s+23\.57%\s+22\.86%\s+java\.lang\.String\.hashCode\(\)/);
  });

  it('reverse direction: what shrank', () => {
    const text = renderDiffText(diffProfiles(grown(), simple()));
    expect(text.split('\n')[0]).toBe('Grew most: no method grew');
    const shrank = text.slice(text.indexOf('Methods that shrank most'));
    expect(shrank.split('\n')[2]).toMatch(/-400,000\s+-61\.5%.*java\.lang\.String\.hashCode\(\)/);
  });

  it('--fail-under: the overlap gate', () => {
    // overlap = 80/140 + 0.2 = 77.14%
    expect(diffProfiles(simple(), grown(), { failUnder: 77 }).passed).toBe(true);
    const d = diffProfiles(simple(), grown(), { failUnder: 80 });
    expect(d.passed).toBe(false);
    expect(d.gates).toEqual([expect.objectContaining({ gate: 'fail-under', passed: false, message: 'overlap 77.14% < 80% (--fail-under)' })]);
    expect(renderDiffText(d).split('\n')[1]).toBe('Verdict: FAIL: overlap 77.14% < 80% (--fail-under)');
  });

  it('--max-growth: total bytecodes, and each --method match', () => {
    expect(diffProfiles(simple(), grown(), { maxGrowth: 40 }).passed).toBe(true);
    const total = diffProfiles(simple(), grown(), { maxGrowth: 39.9 });
    expect(total.passed).toBe(false);
    expect(total.gates[0]!.message).toBe('total bytecodes +40.00% > 39.9% (--max-growth): 1,000,000 → 1,400,000');
    // Util.sum did the same 650,000 bytecodes (incl. callees) in both: it passes even at 0%... but the total fails.
    const util = diffProfiles(simple(), grown(), { maxGrowth: 50, methods: ['com.foo.Util.*'] });
    expect(util.passed).toBe(true);
    expect(util.gates.map((g) => [g.subject, g.passed])).toEqual([['total bytecodes', true], ['com.foo.Util.sum(int[])', true]]);
    const hash = diffProfiles(simple(), grown(), { maxGrowth: 50, methods: ['*.hashCode'] });
    expect(hash.passed).toBe(false);
    expect(hash.gates[1]!.message).toBe('java.lang.String.hashCode() +160.00% > 50% (--max-growth): 250,000 → 650,000 bytecodes including callees');
    expect(() => diffProfiles(simple(), grown(), { maxGrowth: 50, methods: ['*.noSuchMethod'] })).toThrow(/--method "\*\.noSuchMethod" matches no method/);
  });

  it('a method new in B grows infinitely', () => {
    const d = diffProfiles(readProfile(fixture('disjoint.kprof')), simple(), { maxGrowth: 1000, methods: ['*.hashCode'] });
    expect(d.gates[1]).toMatchObject({ actual: Infinity, passed: false });
    expect(JSON.parse(renderDiffJson(d)).gates[1].actual).toBe('Infinity');
  });

  it('different granularities: works, with a warning', () => {
    const d = diffProfiles(simple(), readProfile(fixture('coarse.kprof')));
    expect(d.warnings).toEqual([expect.stringMatching(/^different sampling granularities \(.*simple\.kprof: 10000\+random\[0,100\), .*coarse\.kprof: 100000\)/)]);
    expect(renderDiffText(d)).toContain('Warning: different sampling granularities');
  });

  it('different agents: refused', () => {
    expect(() => diffProfiles(simple(), readProfile(fixture('exact.kprof')))).toThrow(KomoriumError);
    expect(() => diffProfiles(simple(), readProfile(fixture('exact.kprof')))).toThrow(/profiles of different agents are not comparable/);
  });

  it('JSON', () => {
    const j = JSON.parse(renderDiffJson(diffProfiles(simple(), grown(), { failUnder: 80 })));
    expect(j).toMatchObject({ format: 'komorium-diff', passed: false, overlap: { contexts: expect.closeTo(0.7714, 3) } });
    expect(j.methods[0]).toMatchObject({ name: 'java.lang.String.hashCode()', selfBytecodesA: 250_000, selfBytecodesB: 650_000 });
  });
});

describe('diff command', () => {
  it('exits 0 without gates and prints the text diff', async () => {
    const r = await diff([fixture('simple.kprof'), fixture('grown.kprof')]);
    expect(r.error).toBeUndefined();
    expect(r.exitCode).toBeUndefined();
    expect(r.stdout.split('\n')[0]).toMatch(/^Grew most: java\.lang\.String\.hashCode\(\)/);
  });

  it('sets exit code 1 when a gate fails', async () => {
    const fail = await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--fail-under', '80%']);
    expect(fail.exitCode).toBe(1);
    expect(fail.stdout).toContain('Verdict: FAIL: overlap 77.14% < 80% (--fail-under)');
    const growth = await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--max-growth', '50%', '--method', '*.hashCode', '--method', 'com.foo.Util.*']);
    expect(growth.exitCode).toBe(1);
    expect(growth.stdout).toContain('FAIL  java.lang.String.hashCode() +160.00% > 50%');
    expect(growth.stdout).toContain('PASS  com.foo.Util.sum(int[]) 0.00% ≤ 50%');
    const pass = await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--fail-under', '75', '--max-growth', '40%']);
    expect(pass.exitCode).toBeUndefined();
    expect(pass.stdout.split('\n')[1]).toBe('Verdict: PASS (2 gates)');
  });

  it('writes HTML or JSON to -o and still prints the verdict', async () => {
    const out = join(tempDir(), 'diff.html');
    const r = await diff([fixture('simple.kprof'), fixture('coarse.kprof'), '-o', out, '--fail-under', '99']);
    expect(r.exitCode).toBe(1);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    expect(r.stdout).toMatch(new RegExp(`^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\nGrew most: .*\nVerdict: FAIL: overlap`));
    expect(r.stderr).toMatch(/^komorium-ts: warning: different sampling granularities/);
    const json = await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--format', 'json']);
    expect(JSON.parse(json.stdout).format).toBe('komorium-diff');
  });

  it('bad input is a KomoriumError (exit 2)', async () => {
    expect((await diff([fixture('simple.kprof'), fixture('exact.kprof')])).error).toMatch(/different agents/);
    expect((await diff([fixture('simple.kprof'), fixture('newer-version.kprof')])).error).toMatch(/format version 3 is newer/);
    expect((await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--fail-under', '120'])).error).toMatch(/--fail-under expects a percentage between 0 and 100/);
    expect((await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--max-growth', 'ten'])).error).toMatch(/--max-growth expects a percentage/);
    expect((await diff([fixture('simple.kprof'), fixture('grown.kprof'), '--method', '*.x'])).error).toBe('--method selects what --max-growth limits: give --max-growth too');
    expect((await diff([fixture('simple.kprof')])).error).toMatch(/Not enough non-option arguments/);
  });
});
