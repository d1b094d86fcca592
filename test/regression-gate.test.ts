/**
 * Issue 5, "Regression gate": samples/regression and its made-slower variant (-Dregression.slow=true:
 * findProduct scans linearly instead of searching binarily; same output) are told apart by
 * `komorium-ts diff --fail-under` and `--max-growth`, which exit 1 and name findProduct first,
 * while two runs of the same build pass at 100% overlap. This is what a CI job does, so the test
 * runs the real command line on real profiles.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';

const SAMPLE = join(repoRoot, 'samples', 'regression');
const SLOWED = 'Main.findProduct(Main$Product[], int)';

describe('regression gate (samples/regression)', () => {
  const work = tmpDir();
  const base = join(work, 'base.kprof');
  const base2 = join(work, 'base2.kprof');
  const slow = join(work, 'slow.kprof');
  const expected = readFileSync(join(SAMPLE, 'expected-output.txt'), 'utf8');

  beforeAll(async () => {
    const classes = join(work, 'classes');
    mkdirSync(classes);
    javac(join(SAMPLE, 'Main.java'), classes, { args: ['-Xlint:all', '-Werror'] });
    // Both variants compute the same thing, uninstrumented too.
    for (const props of [[], ['-Dregression.slow=true']]) {
      const r = await runJava({ cp: [classes], main: 'Main', jvmArgs: props });
      expect(r.stdout, props.join(' ')).toBe(expected);
    }
    const inst = join(work, 'instrumented');
    instrument(classes, inst);
    const runs: [string, string[]][] = [
      [base, []],
      [base2, []],
      [slow, ['-Dregression.slow=true']],
    ];
    for (const [out, props] of runs) {
      const r = await runJava({ cp: [inst], main: 'Main', jvmArgs: [...props, `-Dkomorium.out=${out}`, '-Dkomorium.quiet'] });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(expected);
    }
  }, 120_000);

  it('--fail-under 90: the slow variant fails, and the method that grew is named at the top', () => {
    const r = cli(['diff', base, slow, '--fail-under', '90']);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Grew most: ${SLOWED.replace(/[$()[\]]/g, '\\$&')} \\+[\\d,]+ bytecodes self \\(\\+\\d+\\.\\d%\\)`));
    const overlap = Number(/^Verdict: FAIL: overlap (\d+\.\d\d)% < 90% \(--fail-under\)$/.exec(lines[1]!)?.[1]);
    expect(overlap).toBeGreaterThan(0);
    expect(overlap).toBeLessThan(90);
    // The first row of each "grew" list is findProduct too.
    const grewMethods = r.stdout.slice(r.stdout.indexOf('Methods that grew most')).split('\n');
    expect(grewMethods[2]).toContain(SLOWED);
    const grewContexts = r.stdout.slice(r.stdout.indexOf('Calling contexts that grew most')).split('\n');
    expect(grewContexts[2]).toMatch(new RegExp(`^\\s+at ${SLOWED.replace(/[$()[\]]/g, '\\$&')}`));
    console.log(`regression gate: base vs slow ${lines[1]}; ${lines[0]}`);
  });

  it('two runs of the same build: 100% overlap, identical data, exit 0', () => {
    const data = (f: string): string => readFileSync(f, 'utf8').replace(/^header\t.*\n/gm, '');
    expect(data(base2)).toBe(data(base));
    const r = cli(['diff', base, base2, '--fail-under', '90', '--max-growth', '0%']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['Grew most: no method grew', 'Verdict: PASS (2 gates)']);
    expect(r.stdout).toContain('Overlap: calling contexts 100.00%, methods 100.00%');
  });

  it('--max-growth: on the total bytecodes and on a --method', () => {
    const total = cli(['diff', base, slow, '--max-growth', '50%']);
    expect(total.code).toBe(1);
    expect(total.stdout.split('\n')[1]).toMatch(/^Verdict: FAIL: total bytecodes \+\d+\.\d\d% > 50% \(--max-growth\): [\d,]+ → [\d,]+$/);
    const method = cli(['diff', base, slow, '--max-growth', '2000%', '--method', 'Main.findProduct', '--method', 'Main.checksum']);
    expect(method.code).toBe(1);
    expect(method.stdout).toMatch(new RegExp(`FAIL  ${SLOWED.replace(/[$()[\]]/g, '\\$&')} \\+\\d+\\.\\d\\d% > 2000%`));
    expect(method.stdout).toMatch(/PASS {2}total bytecodes/);
    expect(method.stdout).toMatch(/PASS {2}Main\.checksum\(String\)/);
    // The same gates pass between two runs of the base.
    expect(cli(['diff', base, base2, '--max-growth', '0%', '--method', 'Main.findProduct']).code).toBe(0);
  });

  it('writes the differential flame graph and still prints the verdict', () => {
    const html = join(work, 'diff.html');
    const r = cli(['diff', base, slow, '--fail-under', '90', '-o', html]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^wrote .*diff\.html\nGrew most: Main\.findProduct/);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*Grew most: Main\.findProduct/);
  });
});
