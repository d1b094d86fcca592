import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KomoriumError } from '../src/errors.js';
import {
  buildProfile,
  escapeField,
  estimatedBytecodes,
  flatten,
  mergeProfiles,
  binomialMeanAbsDeviation,
  idealSampledOverlap,
  overlap,
  parseProfile,
  readProfile,
  stackOf,
  unescapeField,
  writeProfile,
  type Profile,
} from '../src/profile/index.js';

const DIR = join(import.meta.dirname, 'fixtures', 'profiles');
const fixture = (name: string): string => join(DIR, name);
const text = (name: string): string => readFileSync(fixture(name), 'utf8');

/** The message of the KomoriumError that `f` throws (fails the test if it throws anything else). */
function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KomoriumError);
    return (e as Error).message;
  }
  throw new Error('expected a KomoriumError');
}

/** A small profile from `path;path;... counter` lines, for hand-computed cases. */
function profileOf(lines: string[], fields: Partial<Profile> = {}): Profile {
  const root = { method: null, counter: 0, children: [] as never[] } as Parameters<typeof buildProfile>[1];
  for (const line of lines) {
    const [stack, n] = line.split(' ');
    let cur = root;
    for (const frame of stack!.split(';')) {
      const [cls, name] = frame.split('.');
      let child = cur.children.find((c) => c.method!.className === cls && c.method!.name === name);
      if (!child) cur.children.push((child = { method: { className: cls!, name: name!, descriptor: '()V' }, counter: 0, children: [] }));
      cur = child;
    }
    cur.counter += Number(n);
  }
  return buildProfile({ agent: 'sampling', unit: 'samples', granularity: 1000, totalBytecodes: 1_000_000, ...fields }, root);
}

describe('read and write', () => {
  it.each(['simple', 'exact', 'coarse', 'grown', 'half1', 'half2', 'whole', 'disjoint', 'hostile', 'empty'])(
    '%s.kprof round-trips byte-identically',
    (name) => {
      const original = text(`${name}.kprof`);
      expect(writeProfile(readProfile(fixture(`${name}.kprof`)))).toBe(original);
      // Text and path give the same profile.
      expect(writeProfile(readProfile(original))).toBe(original);
    },
  );

  it('builds the tree model', () => {
    const p = readProfile(fixture('simple.kprof'));
    expect(p.agent).toBe('sampling');
    expect(p.unit).toBe('samples');
    expect([p.granularity, p.random, p.seed, p.totalBytecodes, p.threads, p.truncated]).toEqual([10000, 100, 42n, 1_000_000, 1, 0]);
    expect(p.headers[0]).toEqual({ key: 'jvm', value: 'OpenJDK 64-Bit Server VM 17.0.12' });
    expect(p.methods.map((m) => `${m.className}.${m.name}${m.descriptor}`)).toEqual([
      'com/foo/Main.main([Ljava/lang/String;)V',
      'com/foo/Parser.<init>()V',
      'com/foo/Parser.parse(ILjava/lang/String;)Ljava/util/List;',
      'com/foo/Util.sum([I)J',
      'java/lang/String.hashCode()I',
    ]);
    expect(p.methods[0]).toMatchObject({ source: 'Main.java', line: 5 });
    expect(p.methods[4]).toMatchObject({ source: '', line: -1 });
    expect(p.nodes).toHaveLength(8);
    expect(p.totalCounter).toBe(100);
    const sumInParse = p.nodes[4]!;
    expect(stackOf(sumInParse).map((m) => m.name)).toEqual(['main', 'parse', 'sum']);
    expect(sumInParse.parent).toBe(p.nodes[3]);
    expect([sumInParse.counter, sumInParse.total, sumInParse.depth]).toEqual([50, 55, 3]);
    expect(p.root.total).toBe(100);
    // 50 of 100 samples of a run of 1,000,000 bytecodes (seed 002 §7.2).
    expect(estimatedBytecodes(sumInParse)).toBe(500_000);
    expect(estimatedBytecodes(sumInParse, 'total')).toBe(550_000);
  });

  it('reads escaped names exactly and writes them back escaped', () => {
    const p = readProfile(fixture('hostile.kprof'));
    expect(p.headers[0]!.value).toBe('tab\there, newline\nthere, backslash \\');
    expect(p.methods[1]!.className).toBe('com/evil/A\tB');
    expect(p.methods[1]!.name).toBe('x\\y');
    expect(p.methods[1]!.source).toBe('Evil\n.java');
    expect(p.methods[3]!.name).toBe('lone\ud800');
    expect(p.methods[4]!.name).toBe('ünïcødé\u{1F600}');
    expect(escapeField('a\tb\nc\rd\\e\u0001f\u007f\udc00')).toBe('a\\tb\\nc\\rd\\\\e\\u0001f\\u007F\\uDC00');
    expect(unescapeField('\\u00e9')).toBe('é');
    expect(unescapeField('bad\\x')).toEqual({ error: expect.stringContaining('bad escape sequence') });
  });

  it('accepts CRLF line endings and # comments, and writes the canonical form', () => {
    const original = text('simple.kprof');
    const crlf = original.replace(/\n/g, '\r\n');
    expect(writeProfile(parseProfile(crlf))).toBe(original);
    const commented = original.replace('agent\t', '# a comment\nagent\t');
    expect(writeProfile(parseProfile(commented))).toBe(original);
  });

  it('reads UTF-8 bytes and rejects invalid UTF-8', () => {
    expect(writeProfile(parseProfile(readFileSync(fixture('hostile.kprof')), 'hostile.kprof'))).toBe(text('hostile.kprof'));
    const bytes = Buffer.from(text('simple.kprof'));
    bytes[bytes.indexOf('Main.java')] = 0xff;
    expect(errorOf(() => parseProfile(bytes, 'x.kprof'))).toBe('x.kprof: not a komorium profile: not valid UTF-8');
  });
});

describe('rejections name the file and line', () => {
  const simple = (): string => text('simple.kprof');
  const lineOf = (s: string, start: string): number => s.split('\n').findIndex((l) => l.startsWith(start)) + 1;

  it('a missing file', () => {
    expect(errorOf(() => readProfile(fixture('nope.kprof')))).toMatch(/nope\.kprof: cannot read profile: no such file$/);
  });

  it('a file that is not a profile', () => {
    expect(errorOf(() => parseProfile('hello\tworld\n', 'x.txt'))).toMatch(/^x\.txt:1: not a komorium profile: the first line must be/);
    expect(errorOf(() => parseProfile('', 'e.kprof'))).toBe('e.kprof:1: not a komorium profile: the file is empty');
  });

  it('a newer version', () => {
    expect(errorOf(() => readProfile(fixture('newer-version.kprof')))).toBe(
      `${fixture('newer-version.kprof')}:1: format version 3 is newer than this komorium-ts understands (2): upgrade komorium-ts`,
    );
  });

  it('a truncated file (no end line)', () => {
    const msg = errorOf(() => readProfile(fixture('truncated.kprof')));
    expect(msg).toContain('truncated.kprof:');
    // Cut in the middle of "node 4": the partial line is reported before the missing end.
    expect(msg).toMatch(/:24: "node" line has 3 fields, expected 5/);
    const cutAtLine = simple().slice(0, simple().indexOf('node\t5'));
    expect(errorOf(() => parseProfile(cutAtLine, 'cut.kprof'))).toBe('cut.kprof:25: missing "end" line: the file is truncated');
    const cutInHeader = simple().slice(0, simple().indexOf('threads'));
    expect(errorOf(() => parseProfile(cutInHeader, 'cut.kprof'))).toMatch(/^cut\.kprof:\d+: missing "threads" line and "end" line: the file is truncated$/);
  });

  it('a missing end line', () => {
    const s = simple().replace('end\t8\n', '');
    expect(errorOf(() => parseProfile(s, 'p.kprof'))).toBe('p.kprof:28: missing "end" line: the file is truncated');
  });

  it('a wrong node count', () => {
    const s = simple().replace('end\t8', 'end\t9');
    expect(errorOf(() => parseProfile(s, 'p.kprof'))).toBe('p.kprof:28: "end" says 9 nodes but the file has 8 node lines (truncated or edited?)');
  });

  it('a corrupted line', () => {
    const s = simple().replace('node\t4\t3\t3\t50', 'node\t4\t3\t3\t5x0');
    expect(errorOf(() => parseProfile(s, 'p.kprof'))).toBe(`p.kprof:${lineOf(s, 'node\t4')}: counter "5x0" is not a decimal integer`);
    const garbled = simple().replace('method\t2\t', 'methd\t2\t');
    expect(errorOf(() => parseProfile(garbled, 'p.kprof'))).toBe(`p.kprof:${lineOf(garbled, 'methd')}: expected the root "node" line, found "methd"`);
  });

  it.each([
    ['a huge number', (s: string) => s.replace('totalBytecodes\t1000000', 'totalBytecodes\t99999999999999999999'), /totalBytecodes 99999999999999999999 is too large/],
    ['a negative counter', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t1\t3\t-10'), /counter -10 is negative/],
    ['leading zeros', (s: string) => s.replace('granularity\t10000', 'granularity\t010000'), /granularity "010000" is not a decimal integer/],
    ['a bad unit', (s: string) => s.replace('unit\tsamples', 'unit\tticks'), /unit "ticks" is neither "samples" nor "bytecodes"/],
    ['a dangling method id', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t1\t9\t10'), /node 7 refers to method 9, but there are 5 methods/],
    ['a dangling parent id', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t12\t3\t10'), /node 7 refers to parent 12, which does not precede it/],
    ['a parent off the preorder path', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t2\t3\t10'), /parent 2 is not on the path to the previous node/],
    ['unsorted children', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t1\t1\t10'), /node 7 is out of order: children are sorted by method id/],
    ['a repeated context', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t1\t2\t10'), /node 7 repeats the calling context/],
    ['unsorted methods', (s: string) => s.replace('com/foo/Util\tsum', 'com/foo/Aaa\tsum'), /method 3 is out of order/],
    ['a zero leaf', (s: string) => s.replace('node\t7\t1\t3\t10', 'node\t7\t1\t3\t0'), /node 7 has a zero counter and nothing under it/],
    ['a bad root', (s: string) => s.replace('node\t0\t-1\t-1\t0', 'node\t0\t-1\t-1\t3'), /node 0 must be the root/],
    ['data after end', (s: string) => s + 'node\t8\t0\t0\t1\n', /"node" line after "end"/],
    ['a missing field', (s: string) => s.replace('\tMain.java\t5', '\t5'), /"method" line has 6 fields, expected 7/],
    ['a raw control character', (s: string) => s.replace('Main.java', 'Main\u0001.java'), /source file: raw control character U\+0001/],
    ['a bad escape', (s: string) => s.replace('Main.java', 'Main\\q.java'), /bad escape sequence "\\q"/],
    ['an empty line', (s: string) => s.replace('agent', '\nagent'), /empty line/],
    ['scalars out of order', (s: string) => s.replace('unit\tsamples\ngranularity\t10000', 'granularity\t10000\nunit\tsamples'), /expected the "unit" line, found "granularity"/],
  ])('%s', (_what, mutate, message) => {
    // The message starts with the file and line; a field name or node id may precede the detail.
    expect(errorOf(() => parseProfile(mutate(simple()), 'p.kprof'))).toMatch(new RegExp('^p\\.kprof:\\d+: (.*: )?' + message.source));
  });
});

describe('merge', () => {
  it('two halves of a run merge into the whole, byte for byte', () => {
    const merged = mergeProfiles([readProfile(fixture('half1.kprof')), readProfile(fixture('half2.kprof'))]);
    expect(writeProfile(merged)).toBe(text('whole.kprof'));
    expect(merged.totalBytecodes).toBe(1_000_000);
    expect(merged.threads).toBe(2);
    // Same data as the single-run profile (headers aside), both written in the current version.
    const data = (s: string): string => s.slice(s.indexOf('\nmethod\t'));
    const simple = { ...readProfile(fixture('simple.kprof')), version: 2 };
    expect(data(writeProfile(merged)).replace('threads\t2', 'threads\t1')).toBe(data(writeProfile(simple)));
  });

  it('merging with itself doubles the counters and keeps the shape', () => {
    const p = readProfile(fixture('simple.kprof'));
    const m = mergeProfiles([p, p]);
    expect(m.nodes.map((n) => n.counter)).toEqual(p.nodes.map((n) => n.counter * 2));
    expect(overlap(p, m).total).toBeCloseTo(1, 12);
  });

  it('refuses different agents and different granularities', () => {
    const simple = readProfile(fixture('simple.kprof'));
    expect(errorOf(() => mergeProfiles([simple, readProfile(fixture('exact.kprof'))]))).toMatch(
      /was written by agent "exact" \(unit bytecodes\) but .*simple\.kprof by agent "sampling" \(unit samples\): only profiles of the same agent can be merged/,
    );
    expect(errorOf(() => mergeProfiles([simple, readProfile(fixture('coarse.kprof'))]))).toMatch(/sampled at granularity 100000 but .* at 10000\+random\[0,100\)/);
    expect(errorOf(() => mergeProfiles([]))).toBe('merge: no profiles given');
  });
});

describe('the overlap an ideal sampler can reach', () => {
  it("de Moivre's mean absolute deviation matches the sum over the binomial distribution", () => {
    const direct = (n: number, p: number): number => {
      let logPmf = n * Math.log1p(-p); // k = 0
      let mad = 0;
      for (let k = 0; k <= n; k++) {
        mad += Math.exp(logPmf) * Math.abs(k - n * p);
        logPmf += Math.log((n - k) / (k + 1)) + Math.log(p / (1 - p));
      }
      return mad;
    };
    for (const [n, p] of [[10, 0.3], [50, 0.5], [1000, 0.0005], [3000, 0.2], [200, 0.999]] as const) {
      expect(binomialMeanAbsDeviation(n, p)).toBeCloseTo(direct(n, p), 9);
    }
    expect(binomialMeanAbsDeviation(100, 0)).toBe(0);
    expect(binomialMeanAbsDeviation(100, 1)).toBe(0);
  });

  it('agrees with sampling simulated many times', () => {
    // A head of four contexts and a tail of 200 small ones, sampled 300 times per run.
    const lines = ['A.a 4000', 'A.a;B.b 2500', 'A.a;C.c 1500', 'A.a;B.b;C.c 1000'];
    for (let i = 0; i < 200; i++) lines.push(`A.a;T${i}.t ${5 + (i % 7)}`);
    const exact = profileOf(lines);
    const leaves = exact.nodes.filter((n) => n.method !== null && n.counter > 0);
    const cumulative: number[] = [];
    let acc = 0;
    for (const n of leaves) cumulative.push((acc += n.counter));
    let seed = 12345;
    const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const samples = 300;
    const runs = 3000;
    let sum = 0;
    for (let r = 0; r < runs; r++) {
      const hits = new Array<number>(leaves.length).fill(0);
      for (let s = 0; s < samples; s++) {
        const x = random() * acc;
        let lo = 0;
        let hi = cumulative.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (cumulative[mid]! > x) hi = mid;
          else lo = mid + 1;
        }
        hits[lo]!++;
      }
      let o = 0;
      leaves.forEach((n, i) => (o += Math.min(hits[i]! / samples, n.counter / acc)));
      sum += o;
    }
    const simulated = sum / runs;
    const predicted = idealSampledOverlap(exact, samples);
    expect(predicted).toBeGreaterThan(0.8);
    expect(predicted).toBeLessThan(0.97);
    expect(Math.abs(predicted - simulated), `predicted ${predicted}, simulated ${simulated}`).toBeLessThan(0.005);
    // One context: every sample lands in it.
    expect(idealSampledOverlap(profileOf(['A.a 10']), 5)).toBe(1);
    // More samples, closer.
    expect(idealSampledOverlap(exact, 3000)).toBeGreaterThan(predicted);
  });
});

describe('overlap (seed 002 §7.1)', () => {
  it('identical profiles overlap 100%', () => {
    const a = readProfile(fixture('simple.kprof'));
    const r = overlap(a, readProfile(fixture('simple.kprof')));
    expect(r.total).toBe(1);
    expect(r.methodOverlap).toBe(1);
  });

  it('disjoint profiles overlap 0%', () => {
    const r = overlap(readProfile(fixture('simple.kprof')), readProfile(fixture('disjoint.kprof')));
    expect(r.total).toBe(0);
    expect(r.methodOverlap).toBe(0);
  });

  it('the same methods in other calling contexts overlap by method, not by context', () => {
    // A: x 3, y 1 → rce x .75, y .25. B: x 1, y 1, x→y 2 → .25, .25, .5.
    const a = profileOf(['X.x 3', 'Y.y 1']);
    const b = profileOf(['X.x 1', 'Y.y 1', 'X.x;Y.y 2']);
    const r = overlap(a, b);
    // contexts: min(.75,.25) + min(.25,.25) = .5 (x→y exists only in B)
    expect(r.total).toBeCloseTo(0.5, 12);
    // methods: self x .75 vs .25, self y .25 vs .75 → .25 + .25
    expect(r.methodOverlap).toBeCloseTo(0.5, 12);
    const y = r.perMethod.find((m) => m.method.name === 'y')!;
    expect([y.selfA, y.selfB, y.contextOverlap]).toEqual([0.25, 0.75, 0.25]);
    // Per method the context overlaps add up to the total.
    expect(r.perMethod.reduce((s, m) => s + m.contextOverlap, 0)).toBeCloseTo(r.total, 12);
  });

  it('a hand-computed case on the fixtures', () => {
    // simple: 2 3 10 50 5 20 10 of 100; grown: 2 3 10 50 5 60 10 of 140 (String.hashCode under parse grew).
    // Σ min = (2+3+10+50+5+10)/140 + min(20/100, 60/140) = 80/140 + 0.2
    const r = overlap(readProfile(fixture('simple.kprof')), readProfile(fixture('grown.kprof')));
    expect(r.total).toBeCloseTo(80 / 140 + 0.2, 12);
    // self shares: main .02/2/140, <init> .03/3/140, parse .1/10/140, sum .6/60/140, hashCode .25/65/140
    expect(r.methodOverlap).toBeCloseTo(75 / 140 + 0.25, 12);
    expect(r.perMethod[0]!.method.name).toBe('hashCode');
    // Overlap is symmetric.
    expect(overlap(readProfile(fixture('grown.kprof')), readProfile(fixture('simple.kprof'))).total).toBeCloseTo(r.total, 12);
  });

  it('empty profiles', () => {
    const empty = readProfile(fixture('empty.kprof'));
    expect(overlap(empty, empty).total).toBe(1);
    expect(overlap(empty, readProfile(fixture('simple.kprof'))).total).toBe(0);
  });
});

describe('flatten', () => {
  it('self and total per method', () => {
    const flat = flatten(readProfile(fixture('simple.kprof')));
    const by = Object.fromEntries(flat.map((f) => [f.method.name, [f.self, f.total]]));
    expect(by).toEqual({ main: [2, 100], '<init>': [3, 3], parse: [10, 85], sum: [60, 65], hashCode: [25, 25] });
  });

  it('counts a recursive method once per stack', () => {
    // f → f → f: the stack holds f three times but its total is the outermost context's.
    const p = profileOf(['M.main 1', 'M.main;F.f 2', 'M.main;F.f;F.f 3', 'M.main;F.f;F.f;F.f 4', 'M.main;F.f;G.g;F.f 5']);
    const f = flatten(p).find((x) => x.method.name === 'f')!;
    expect(f.self).toBe(14);
    expect(f.total).toBe(14);
    expect(flatten(p).find((x) => x.method.name === 'g')!.total).toBe(5);
  });

  it('handles stacks deeper than the JS call stack', () => {
    const frames = Array.from({ length: 20000 }, (_, i) => `C${i}.m`);
    const p = profileOf([frames.join(';') + ' 7']);
    expect(p.nodes).toHaveLength(20001);
    expect(flatten(p)[0]!.total).toBe(7);
    expect(parseProfile(writeProfile(p)).nodes).toHaveLength(20001);
  });
});
