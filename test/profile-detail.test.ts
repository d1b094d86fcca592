/**
 * The breakdown records of the komorium section (thread, self, call): read back exactly, written
 * back byte-identically, summed by merge, and every rule of the format enforced with the file and
 * line in the message.
 */
import { describe, expect, it } from 'vitest';
import { mergeProfiles, parseProfile, writeProfile } from '../src/profile/index.js';
import { KomoriumError } from '../src/errors.js';

const HEAD = [
  'komorium-profile\t2',
  'method\t0\tcom/x/A\tmain\t()V\tA.java\t3',
  'method\t1\tcom/x/A\twork\t()V\tA.java\t10',
  'section\tkomorium',
  'agent\tsampling',
  'unit\tsamples',
  'granularity\t100',
  'random\t0',
  'seed\t0',
  'totalBytecodes\t1000',
  'threads\t2',
  'truncated\t0',
  'node\t0\t-1\t-1\t0',
  'node\t1\t0\t0\t1',
  'node\t2\t1\t1\t9',
];

function file(detail: string[]): string {
  const data = HEAD.length - 1 + detail.length;
  return [...HEAD, ...detail, `end\t${data}`].join('\n') + '\n';
}

const GOOD = [
  'thread\t0\tmain',
  'thread\t1\tpool-1-thread-1',
  'self\t1\t0\t4\t1',
  'self\t2\t-1\t-1\t2',
  'self\t2\t0\t11\t3',
  'self\t2\t1\t11\t4',
  'call\t2\t5\t6',
  'call\t2\t7\t3',
];

const error = (text: string): string => {
  try {
    parseProfile(text, 'p.kprof');
  } catch (e) {
    if (e instanceof KomoriumError) return e.message;
    throw e;
  }
  throw new Error('the profile was accepted');
};

describe('komorium breakdown records', () => {
  it('are read into the contexts and written back byte for byte', () => {
    const text = file(GOOD);
    const p = parseProfile(text, 'p.kprof');
    const work = p.nodes[2]!;
    expect(work.self).toEqual([
      { thread: null, line: -1, counter: 2 },
      { thread: 'main', line: 11, counter: 3 },
      { thread: 'pool-1-thread-1', line: 11, counter: 4 },
    ]);
    expect(work.calls).toEqual([
      { line: 5, counter: 6 },
      { line: 7, counter: 3 },
    ]);
    expect(p.nodes[1]!.calls).toBeUndefined();
    expect(writeProfile(p)).toBe(text);
  });

  it('are summed by merge, and a profile without them keeps its part unknown', () => {
    const a = parseProfile(file(GOOD), 'a.kprof');
    const plain = parseProfile(file([]), 'b.kprof');
    const m = mergeProfiles([a, a, plain]);
    const work = m.nodes[2]!;
    expect(work.counter).toBe(27);
    expect(work.self).toEqual([
      { thread: null, line: -1, counter: 2 + 2 + 9 },
      { thread: 'main', line: 11, counter: 6 },
      { thread: 'pool-1-thread-1', line: 11, counter: 8 },
    ]);
    expect(work.calls).toEqual([
      { line: 5, counter: 12 },
      { line: 7, counter: 6 },
    ]);
    expect(m.nodes[1]!.self).toEqual([{ thread: null, line: -1, counter: 1 }, { thread: 'main', line: 4, counter: 2 }]);
    // What merge writes, this reader reads back the same.
    expect(writeProfile(parseProfile(writeProfile(m), 'm.kprof'))).toBe(writeProfile(m));
  });

  it('must sum to the counter, name known threads and nodes, and come sorted', () => {
    const replace = (i: number, line: string) => file(GOOD.map((l, k) => (k === i ? line : l)));
    expect(error(replace(5, 'self\t2\t1\t11\t5'))).toBe('p.kprof:16: the self lines of node 2 sum to 10, but its counter is 9');
    expect(error(replace(5, 'self\t2\t2\t11\t4'))).toBe('p.kprof:21: thread 2 is not in the thread table (2 threads)');
    expect(error(replace(2, 'self\t0\t0\t4\t1'))).toBe('p.kprof:18: node 0 is not a calling context of this profile');
    expect(error(replace(4, 'self\t2\t1\t11\t3'))).toMatch(/^p\.kprof:21: "self" line out of order or repeated/);
    expect(error(replace(1, 'thread\t1\tapple'))).toBe('p.kprof:17: thread 1 is out of order or repeats a name: threads are sorted by name');
    expect(error(replace(6, 'call\t2\t5\t7'))).toBe('p.kprof:16: the call lines of node 2 sum to 10, more than its inclusive counter 9');
    expect(error(file([...GOOD.slice(0, 6), 'thread\t2\tz']))).toMatch(/^p\.kprof:22: "thread" line after "self" lines/);
    expect(error(replace(3, 'self\t2\t-1\t-1\t0'))).toBe('p.kprof:19: counter 0 is below 1');
  });
});
