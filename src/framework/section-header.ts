/**
 * The lines every section of a framework kind starts with (docs/profile-format.md): how the code
 * was laid out, the sampling interval, and how many samples were taken.
 */
import { KomoriumError } from '../errors.js';
import type { SectionReader } from '../profile/document.js';

export interface SamplingHeader {
  /** full-dup, partial-dup, no-dup, exhaustive, or mixed (classes of several layouts ran). */
  layout: string;
  interval: number;
  random: number;
  seed: bigint;
  samples: number;
}

export const HEADER_RECORDS = ['layout', 'interval', 'random', 'seed', 'samples'] as const;

export function readSamplingHeader(r: SectionReader): SamplingHeader {
  const seed = r.scalar('seed');
  if (!/^(0|-?[1-9][0-9]*)$/.test(seed.fields[1]!)) r.fail(`seed "${seed.fields[1]}" is not a decimal integer`, seed.line);
  return {
    layout: r.str(r.scalar('layout'), 1, 'layout'),
    interval: r.int(r.scalar('interval'), 1, 'interval', 1),
    random: r.int(r.scalar('random'), 1, 'random'),
    seed: BigInt(seed.fields[1]!),
    samples: r.int(r.scalar('samples'), 1, 'samples'),
  };
}

export function samplingHeaderLines(h: SamplingHeader): string[] {
  return [`layout\t${h.layout}`, `interval\t${h.interval}`, `random\t${h.random}`, `seed\t${h.seed}`, `samples\t${h.samples}`];
}

/** Whether the section counts every event (nothing sampled). */
export function isExhaustive(h: SamplingHeader): boolean {
  return h.layout === 'exhaustive' || h.interval === 1;
}

export function describeSampling(h: SamplingHeader): string {
  if (h.layout === 'exhaustive') return 'exhaustive (every event)';
  const interval = h.random > 0 ? `${h.interval}+random[0,${h.random})` : `${h.interval}`;
  return `${h.layout}, interval ${interval}, ${h.samples} samples`;
}

/** Headers of sections that can be summed: the same layout and interval. */
export function mergeSamplingHeaders(hs: SamplingHeader[], names: string[], kind: string): SamplingHeader {
  const first = hs[0]!;
  hs.forEach((h, i) => {
    if (h.layout !== first.layout || h.interval !== first.interval || h.random !== first.random) {
      throw new KomoriumError(
        `merge: the ${kind} section of ${names[i]} was sampled as ${describeSampling(h)} but that of ${names[0]} as ${describeSampling(first)}: ` +
          `their counts are not commensurable`,
      );
    }
  });
  return { ...first, samples: hs.reduce((s, h) => s + h.samples, 0) };
}
