/**
 * Merging subpaths sections of several runs. Concise samples taken at different rates are first
 * brought to the largest rate by keeping each sampled occurrence with probability (its rate /
 * largest rate), as Gibbons and Matias resample, from a fixed seed so that a merge is repeatable;
 * then counts of the same subpath (same blocks up to rotation) are summed. Exact sections sum.
 */
import { KomoriumError } from '../../errors.js';
import { mergeSamplingHeaders } from '../../framework/section-header.js';
import { subpathKey, type LengthStats, type Subpath, type SubpathsSection } from './model.js';

export function mergeSubpaths(sections: SubpathsSection[], names: string[]): SubpathsSection {
  const first = sections[0]!;
  sections.forEach((s, i) => {
    if (s.mode !== first.mode || s.maxLength !== first.maxLength) {
      throw new KomoriumError(
        `merge: the subpaths section of ${names[i]} is ${s.mode} mode up to ${s.maxLength} blocks but that of ${names[0]} is ${first.mode} mode up to ${first.maxLength}: their counts are not commensurable`,
      );
    }
    // A sample of all lengths per start counts each length up to 31 times as often as one of one length.
    if ((s.perStart ?? 'one') !== (first.perStart ?? 'one')) {
      throw new KomoriumError(
        `merge: the subpaths section of ${names[i]} sampled ${s.perStart ?? 'one'} length(s) per start but that of ${names[0]} ${first.perStart ?? 'one'}: their counts are not commensurable`,
      );
    }
  });
  const rate = Math.max(...sections.map((s) => s.rate));
  const random = xorshift(0x9e3779b9);
  const sum = new Map<string, Subpath>();
  for (const s of sections) {
    for (const p of s.subpaths) {
      const count = s.rate === rate ? p.count : thin(p.count, s.rate / rate, random);
      if (count === 0) continue;
      const k = subpathKey(p.blocks);
      const known = sum.get(k);
      if (known) known.count += count;
      else sum.set(k, { blocks: p.blocks, count });
    }
  }
  const total = (f: (s: SubpathsSection) => number | undefined) =>
    sections.every((s) => f(s) !== undefined) ? sections.reduce((n, s) => n + f(s)!, 0) : undefined;
  const most = (f: (s: SubpathsSection) => number | undefined) =>
    sections.every((s) => f(s) !== undefined) ? Math.max(...sections.map((s) => f(s)!)) : undefined;
  return {
    header: mergeSamplingHeaders(sections.map((s) => s.header), names, 'subpaths'),
    mode: first.mode,
    maxLength: first.maxLength,
    confidence: first.confidence,
    blocks: total((s) => s.blocks)!,
    threads: total((s) => s.threads)!,
    rate,
    ...(first.perStart ? { perStart: first.perStart } : {}),
    memory: most((s) => s.memory),
    peakEntries: most((s) => s.peakEntries),
    memoryBytes: most((s) => s.memoryBytes),
    resamples: total((s) => s.resamples),
    exactLimit: most((s) => s.exactLimit),
    lengths: mergeLengths(sections),
    // Distinct counts of separate runs do not add up.
    ids: undefined,
    subpaths: [...sum.values()],
  };
}

function mergeLengths(sections: SubpathsSection[]): LengthStats[] | undefined {
  if (!sections.every((s) => s.lengths)) return undefined;
  return sections[0]!.lengths!.map((l) => {
    const same = sections.map((s) => s.lengths!.find((x) => x.length === l.length));
    return {
      length: l.length,
      total: same.reduce((n, x) => n + (x?.total ?? 0), 0),
      distinct: -1,
      overflow: same.reduce((n, x) => n + (x?.overflow ?? 0), 0),
    };
  });
}

/** Binomial(count, keep), coin by coin (sample counts are small: the hot list is bounded). */
function thin(count: number, keep: number, random: () => number): number {
  let k = 0;
  for (let i = 0; i < count; i++) if (random() < keep) k++;
  return k;
}

function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}
