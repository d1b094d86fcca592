/**
 * Issue 5, "Merge": merging two profiles of the same run, each taking half the threads, equals the
 * profile of the whole. `-Dkomorium.threads=even|odd|K/N` makes the runtime profile only the
 * threads whose registration index is even, odd, or K modulo N (runtime-java Config). The program
 * (test/fixtures/thread-shards) runs its threads concurrently, but each thread's work and its
 * registration index are fixed, so the shards of separate runs add up to the whole run exactly.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/profile/index.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';

const data = (file: string): string => readFileSync(file, 'utf8').replace(/^header\t.*\n/gm, '');

describe('komorium.threads: profiles of parts of the threads merge into the whole', () => {
  const work = tmpDir();
  const inst = join(work, 'instrumented');
  let expected = '';

  beforeAll(async () => {
    const classes = join(work, 'classes');
    mkdirSync(classes);
    javac(join(repoRoot, 'test', 'fixtures', 'thread-shards', 'Main.java'), classes, { args: ['-Xlint:all', '-Werror'] });
    instrument(classes, inst);
    expected = (await runJava({ cp: [classes], main: 'Main' })).stdout;
    expect(expected).toMatch(/^main: \d+\nworker-0: /);
  });

  /** Runs the program with these properties; returns the profile's path. */
  async function profile(name: string, props: string[], expectStderr = ''): Promise<string> {
    const out = join(work, `${name}.kprof`);
    const r = await runJava({ cp: [inst], main: 'Main', jvmArgs: [...props, `-Dkomorium.out=${out}`, '-Dkomorium.quiet'] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(expectStderr);
    expect(r.stdout).toBe(expected);
    return out;
  }

  function merge(name: string, parts: string[]): string {
    const out = join(work, `${name}.kprof`);
    const r = cli(['merge', ...parts, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    return out;
  }

  for (const agent of [
    { name: 'exact', props: ['-Dkomorium.agent=exact'] },
    { name: 'sampling, randomized', props: ['-Dkomorium.granularity=1000', '-Dkomorium.random=700', '-Dkomorium.seed=7'] },
  ]) {
    it(`${agent.name}: merge(even, odd) has the whole run's data, byte for byte`, async () => {
      const tag = agent.name.replace(/\W+/g, '_');
      const whole = await profile(`${tag}-whole`, agent.props);
      const even = await profile(`${tag}-even`, [...agent.props, '-Dkomorium.threads=even']);
      const odd = await profile(`${tag}-odd`, [...agent.props, '-Dkomorium.threads=odd']);
      const [w, e, o] = [whole, even, odd].map((f) => readProfile(f));
      // main (index 0) and 5 workers: main, worker-1, worker-3 are even; worker-0, -2, -4 odd.
      expect([w!.threads, e!.threads, o!.threads]).toEqual([6, 3, 3]);
      expect(e!.totalBytecodes).toBeGreaterThan(0);
      expect(o!.totalBytecodes).toBeGreaterThan(0);
      expect(e!.totalBytecodes + o!.totalBytecodes).toBe(w!.totalBytecodes);
      expect(data(even)).not.toBe(data(whole));
      const merged = merge(`${tag}-merged`, [even, odd]);
      expect(data(merged)).toBe(data(whole));
      const d = cli(['diff', whole, merged, '--fail-under', '100', '--max-growth', '0']);
      expect(d.code, d.stdout).toBe(0);
      expect(d.stdout).toContain('Overlap: calling contexts 100.00%, methods 100.00%');
      // The header says what was profiled.
      expect(e!.headers.find((h) => h.key === 'options')?.value).toContain('komorium.threads=even');
    });
  }

  it('K/N: three shards merge into the whole too', async () => {
    const props = ['-Dkomorium.agent=exact'];
    const whole = await profile('kn-whole', props);
    const shards = [];
    for (let k = 0; k < 3; k++) shards.push(await profile(`kn-${k}`, [...props, `-Dkomorium.threads=${k}/3`]));
    expect(shards.map((s) => readProfile(s).threads)).toEqual([2, 2, 2]);
    expect(data(merge('kn-merged', shards))).toBe(data(whole));
    // 0/1 is everything.
    expect(data(await profile('kn-all', [...props, '-Dkomorium.threads=0/1']))).toBe(data(whole));
  });

  it('an invalid value is reported and profiles all threads', async () => {
    const props = ['-Dkomorium.agent=exact'];
    const whole = await profile('bad-whole', props);
    for (const bad of ['half', '3/3', '1/0', '-1/2']) {
      const f = await profile(`bad-${bad.replace(/\W/g, '_')}`, [...props, `-Dkomorium.threads=${bad}`],
        `komorium: ignoring -Dkomorium.threads=${bad} (expected all, even, odd or K/N with 0 <= K < N); using all\n`);
      expect(data(f)).toBe(data(whole));
    }
  });
});
