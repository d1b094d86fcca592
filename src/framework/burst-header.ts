/**
 * The header of a section of the bursty-tracing kinds (hot-methods, call-pairs, data-streams):
 * the framework's sampling header, then, when Burst ran the checks, `trigger`, `burst` (sparsity,
 * length, sparse phase while armed) and `armed` (awake ms, period ms, armed share in parts per
 * million, switches, latest timer wake-up in µs), written by the runtime's BurstSection.
 */
import { KomoriumError } from '../errors.js';
import type { SectionReader } from '../profile/document.js';
import { HEADER_RECORDS, describeSampling, mergeSamplingHeaders, readSamplingHeader, samplingHeaderLines, type SamplingHeader } from './section-header.js';

export interface BurstHeader {
  trigger: string;
  sparsity: number;
  length: number;
  armedSparsity: number;
  awakeMs: number;
  periodMs: number;
  armedPpm: number;
  switches: number;
  lateMicros: number;
}

export interface KindHeader {
  sampling: SamplingHeader;
  burst: BurstHeader | null;
}

export const KIND_HEADER_RECORDS = [...HEADER_RECORDS, 'trigger', 'burst', 'armed'] as const;

export function readKindHeader(r: SectionReader): KindHeader {
  const sampling = readSamplingHeader(r);
  const has = (name: string) => r.section.records.some((x) => x.fields[0] === name);
  if (!has('trigger') && !has('burst') && !has('armed')) return { sampling, burst: null };
  const trigger = r.str(r.scalar('trigger'), 1, 'trigger');
  const [b] = r.records('burst', 4, 'burst<TAB>sparsity<TAB>length<TAB>sparsity while armed');
  const [a] = r.records('armed', 6, 'armed<TAB>awake ms<TAB>period ms<TAB>armed ppm<TAB>switches<TAB>latest wake-up µs');
  if (!b || !a) r.fail(`a section with a "trigger" line needs one "burst" and one "armed" line`);
  return {
    sampling,
    burst: {
      trigger,
      sparsity: r.int(b, 1, 'sparsity'),
      length: r.int(b, 2, 'length', 1),
      armedSparsity: r.int(b, 3, 'sparsity while armed'),
      awakeMs: r.int(a, 1, 'awake'),
      periodMs: r.int(a, 2, 'period'),
      armedPpm: r.int(a, 3, 'armed ppm'),
      switches: r.int(a, 4, 'switches'),
      lateMicros: r.int(a, 5, 'latest wake-up'),
    },
  };
}

export function kindHeaderLines(h: KindHeader): string[] {
  const lines = samplingHeaderLines(h.sampling);
  const b = h.burst;
  if (!b) return lines;
  return [
    ...lines,
    `trigger\t${b.trigger}`,
    `burst\t${b.sparsity}\t${b.length}\t${b.armedSparsity}`,
    `armed\t${b.awakeMs}\t${b.periodMs}\t${b.armedPpm}\t${b.switches}\t${b.lateMicros}`,
  ];
}

export function describeKindHeader(h: KindHeader): string {
  const b = h.burst;
  if (!b || h.sampling.layout === 'exhaustive') return describeSampling(h.sampling);
  const timer = b.periodMs > 0 ? `, armed ${b.awakeMs} of every ${b.periodMs} ms (achieved ${(b.armedPpm / 1e4).toFixed(1)}%, ${b.switches} switches)` : '';
  return `${h.sampling.layout}, ${b.trigger}, bursts of ${b.length} every ${b.length + b.sparsity} checks${timer}, ${h.sampling.samples} bursts`;
}

/** Headers of sections that can be summed: the same sampling, trigger, sparsity and length. */
export function mergeKindHeaders(hs: KindHeader[], names: string[], kind: string): KindHeader {
  const sampling = mergeSamplingHeaders(hs.map((h) => h.sampling), names, kind);
  const first = hs[0]!.burst;
  hs.forEach((h, i) => {
    const b = h.burst;
    if ((b === null) !== (first === null) || (b && first && (b.trigger !== first.trigger || b.sparsity !== first.sparsity || b.length !== first.length))) {
      throw new KomoriumError(
        `merge: the ${kind} section of ${names[i]} was sampled as ${describeKindHeader(h)} but that of ${names[0]} as ${describeKindHeader(hs[0]!)}: ` +
          `their counts are not commensurable`,
      );
    }
  });
  if (!first) return { sampling, burst: null };
  const bs = hs.map((h) => h.burst!);
  return {
    sampling,
    burst: {
      ...first,
      armedPpm: Math.round(bs.reduce((s, b) => s + b.armedPpm, 0) / bs.length),
      switches: bs.reduce((s, b) => s + b.switches, 0),
      lateMicros: Math.max(...bs.map((b) => b.lateMicros)),
    },
  };
}
