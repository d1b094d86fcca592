/**
 * Seed 002 §4.4 and §5.2 on the paper's own example (samples/fig4, Figure 4): with granularity 1
 * every granularity check that runs reports exactly the bytecodes charged since the previous one.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { javac, jarDir, repoRoot, runJava, runtimeJar, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';

const SQ = 'Foo.sq(I)I';
const SQSUM = 'Foo.sqSum(II)I';

let work: string;
let jar: string;
let agentDir: string;

beforeAll(async () => {
  work = tmpDir('komorium-fig4-');
  const src = join(repoRoot, 'samples', 'fig4');
  javac(readdirSync(src).filter((f) => f.endsWith('.java')).map((f) => join(src, f)), join(work, 'classes'), { release: 8 });
  jar = join(work, 'fig4.jar');
  await jarDir(join(work, 'classes'), jar, { mainClass: 'Main' });
  agentDir = join(work, 'agent');
  javac([join(repoRoot, 'test', 'fixtures', 'agents', 'RecordingAgent.java')], agentDir, { release: 8, classpath: [runtimeJar()] });
});

interface Sample {
  bytecodes: number;
  stack: string[];
}

async function samples(extra: string[]): Promise<Sample[]> {
  const out = join(work, `fig4-${extra.join('_').replace(/[^a-z0-9]+/gi, '')}.jar`);
  instrument(jar, out, extra);
  const r = await runJava({
    cp: [out, agentDir],
    main: 'Main',
    jvmArgs: ['-Dkomorium.agent=RecordingAgent', '-Dkomorium.quiet=true'],
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('SAMPLE '))
    .map((l) => {
      const [, n, ...rest] = l.split(' ');
      return { bytecodes: Number(n), stack: rest.join(' ').split(' > ') };
    });
}

/** The bytecodes of the samples taken in sqSum itself, from its first sample to its first return. */
function firstSqSumRun(all: Sample[]): number[] {
  const own = all.filter((s) => s.stack[s.stack.length - 1] === SQSUM).map((s) => s.bytecodes);
  const end = own.indexOf(2, 1);
  return own.slice(0, end + 1);
}

describe('seed 002 Figure 4', () => {
  test('--checks all --max-path 0: sq charges 4, sqSum charges 2, 3, 7 per iteration, 3, 2', async () => {
    const all = await samples(['--checks', 'all', '--max-path', '0']);
    const inSq = all.filter((s) => s.stack[s.stack.length - 1] === SQ);
    expect(inSq.length).toBeGreaterThan(0);
    for (const s of inSq) {
      expect(s.bytecodes).toBe(4);
      // The reified stack names the caller with its descriptor, then the leaf (§4.1, §5.1).
      expect(s.stack.slice(-2)).toEqual([SQSUM, SQ]);
    }
    const run = firstSqSumRun(all);
    expect(run.slice(0, 3)).toEqual([2, 3, 7]);
    expect(run.slice(-2)).toEqual([3, 2]);
    const iterations = (run.length - 3) / 2;
    expect(run).toEqual([2, ...Array.from({ length: iterations }, () => [3, 7]).flat(), 3, 2]);
  });

  test('--checks optimized drops the check of sqSum\'s first block (§5.2)', async () => {
    const all = await samples(['--checks', 'optimized', '--max-path', '0']);
    const run = firstSqSumRun(all);
    // The 2 bytecodes of the first block are reported with the loop header's 3.
    expect(run[0]).toBe(5);
    expect(run.slice(1, 2)).toEqual([7]);
    expect(run.slice(-2)).toEqual([3, 2]);
    for (const s of all.filter((x) => x.stack[x.stack.length - 1] === SQ)) expect(s.bytecodes).toBe(4);
  });

  test('--no-leaf-opt reports the same samples as the leaf optimization', async () => {
    const leaf = await samples(['--checks', 'all', '--max-path', '0']);
    const noLeaf = await samples(['--checks', 'all', '--max-path', '0', '--no-leaf-opt']);
    expect(noLeaf).toEqual(leaf);
  });
});
