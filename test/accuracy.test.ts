/**
 * `diff --accuracy EXACT SAMPLED`: the overlap of a sampled profile with the exact one per calling
 * context and per method, each beside the ideal sampler's bound, and the --fail-under gate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandModule } from 'yargs';
import { diffCommand } from '../src/cli/commands/diff.js';
import { buildProfile, writeProfile, type TreeDraft } from '../src/profile/index.js';
import { idealOverlapOf } from '../src/profile/analysis.js';
import { komoriumAccuracy } from '../src/profile/accuracy.js';
import { runCli, tempDir } from './fixtures/profiles/harness.js';

const diff = (argv: string[]) => runCli(diffCommand as CommandModule<object, never>, ['diff', ...argv]);

const m = (name: string) => ({ className: 'com/x/A', name, descriptor: '()V', source: 'A.java', line: 1 });
/** main > a (x), main > b (y) > a (z): method a's self share is the same whatever the split of x and z. */
function tree(x: number, y: number, z: number): TreeDraft {
  return {
    method: null,
    counter: 0,
    children: [{ method: m('main'), counter: 0, children: [{ method: m('a'), counter: x, children: [] }, { method: m('b'), counter: y, children: [{ method: m('a'), counter: z, children: [] }] }] }],
  };
}

function write(dir: string, name: string, agent: 'exact' | 'sampling', t: TreeDraft): string {
  const unit = agent === 'exact' ? 'bytecodes' : 'samples';
  const total = agent === 'exact' ? 100 : 1000;
  const p = buildProfile({ name, agent, unit, granularity: agent === 'exact' ? 1 : 10, totalBytecodes: total }, t);
  const path = join(dir, name);
  writeFileSync(path, writeProfile(p));
  return path;
}

describe('diff --accuracy', () => {
  const dir = tempDir();
  // Exact shares: main>a 30%, main>b 40%, main>b>a 30%. Sampled: 50%, 40%, 10%.
  const exact = write(dir, 'exact.kprof', 'exact', tree(30, 40, 30));
  const sampled = write(dir, 'sampled.kprof', 'sampling', tree(5, 4, 1));

  it('gives the overlap per calling context and per method, each with the ideal bound', async () => {
    const r = await diff(['--accuracy', exact, sampled, '--format', 'json']);
    expect(r.error).toBeUndefined();
    const rows = JSON.parse(r.stdout).kinds as { kind: string; unit: string; overlap: number; ideal: number; keys: number }[];
    const contexts = rows.find((x) => x.unit === 'calling contexts')!;
    const methods = rows.find((x) => x.unit === 'methods')!;
    // min(.3,.5) + min(.4,.4) + min(.3,.1)
    expect(contexts.overlap).toBeCloseTo(0.8, 12);
    expect(contexts.keys).toBe(3);
    // a: 60% in both, b: 40% in both.
    expect(methods.overlap).toBeCloseTo(1, 12);
    expect(methods.keys).toBe(2);
    // Ten samples from (.3, .4, .3), and from (.6, .4): fewer keys, closer to what was drawn from.
    expect(contexts.ideal).toBeCloseTo(idealOverlapOf([30, 40, 30], 10), 12);
    expect(methods.ideal).toBeCloseTo(idealOverlapOf([60, 40], 10), 12);
    expect(contexts.ideal).toBeLessThan(methods.ideal);
    expect(methods.ideal).toBeLessThan(1);
  });

  it('prints both views and gates each with --fail-under', async () => {
    const r = await diff(['--accuracy', exact, sampled, '--fail-under', '90']);
    expect(r.stdout).toMatch(/komorium\s+80\.00%\s+\d+\.\d\d%\s+3 calling contexts/);
    expect(r.stdout).toMatch(/komorium\s+100\.00%\s+\d+\.\d\d%\s+2 methods/);
    expect(r.stdout).toContain('Largest differences, komorium calling contexts (share exact → sampled):');
    expect(r.stdout).toMatch(/30\.00%\s+→\s+10\.00%\s+com\.x\.A\.main\(\) > com\.x\.A\.b\(\) > com\.x\.A\.a\(\)/);
    expect(r.stdout).toContain('Verdict: FAIL: komorium calling contexts 80.00% under 90% (--fail-under)');
    expect(r.exitCode).toBe(1);
    const pass = await diff(['--accuracy', exact, sampled, '--fail-under', '80']);
    expect(pass.exitCode).toBeUndefined();
  });

  it('a plain diff of an exact and a sampled profile points at --accuracy', async () => {
    const r = await diff([exact, sampled]);
    expect(r.error).toMatch(/not comparable.*diff --accuracy EXACT SAMPLED/);
  });
});

describe('diff --accuracy on deep stacks', () => {
  it('keys a calling context by its parent and method, not by its whole stack: 20,000 frames deep within seconds', () => {
    // A key spelling out the stack grows with depth, so the keys of all contexts grow with its
    // square: 20,000 frames of ~25-character method keys are 5 GB of keys (Rhino's exact profile,
    // 450,000 contexts, ran out of heap after 27 s).
    const depth = 20_000;
    const deep = (counter: number): TreeDraft => {
      const root: TreeDraft = { method: null, counter: 0, children: [] };
      let at = root;
      for (let d = 0; d < depth; d++) {
        const n: TreeDraft = { method: m(`f${d % 3}`), counter, children: [] };
        at.children.push(n);
        at = n;
      }
      return root;
    };
    const started = Date.now();
    const exact = buildProfile({ name: 'e', agent: 'exact', unit: 'bytecodes', granularity: 1, totalBytecodes: depth * 2 }, deep(2));
    const sampled = buildProfile({ name: 's', agent: 'sampling', unit: 'samples', granularity: 10, totalBytecodes: depth * 2 }, deep(1));
    const [contexts, methods] = komoriumAccuracy(exact, sampled);
    expect(contexts!.keys).toBe(depth);
    expect(contexts!.overlap).toBeCloseTo(1, 9);
    expect(methods!.keys).toBe(3);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
