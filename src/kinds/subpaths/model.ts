/**
 * The subpaths section as read (docs/profile-format.md): settings, totals and the subpaths, each
 * with its count (in the sample, or exact) and its blocks in the order they ran.
 */
import type { SiteEntry } from '../../profile/document.js';
import type { SamplingHeader } from '../../framework/section-header.js';
import { estimatedCount } from './estimate.js';

export type SubpathMode = 'sample' | 'skip' | 'exact';
export type PerStart = 'one' | 'all';

export interface Subpath {
  /** Block sites, in execution order of the first occurrence seen. */
  blocks: SiteEntry[];
  /** Occurrences in the sample (sample mode) or in the run (exact mode). */
  count: number;
}

export interface LengthStats {
  length: number;
  /** Subpaths of this length that ran (counted at every block). */
  total: number;
  /** Distinct ones kept; -1 when unknown (merged profiles). */
  distinct: number;
  /** Occurrences of subpaths that were new once exactLimit was reached. */
  overflow: number;
}

/** Distinct subpaths of an exact run under four identities; `ordered` -1 when its set was full. */
export interface IdStats {
  ordered: number;
  exact: number;
  hash64: number;
  xor: number;
}

export interface SubpathsSection {
  header: SamplingHeader;
  mode: SubpathMode;
  maxLength: number;
  /** As written, e.g. "0.95". */
  confidence: string;
  /** Blocks all threads ran. */
  blocks: number;
  threads: number;
  /** f at the end: one subpath start per f blocks (1 in exact mode). */
  rate: number;
  /**
   * Sample and skip modes: what a sampled start yields, `one` subpath of a length drawn with
   * probability ∝ 1/length (the thesis; absent in older profiles) or `all` its lengths.
   */
  perStart?: PerStart;
  /** Sample mode: the hot list's bound and use. */
  memory?: number;
  peakEntries?: number;
  memoryBytes?: number;
  resamples?: number;
  /** Exact mode. */
  exactLimit?: number;
  lengths?: LengthStats[];
  ids?: IdStats;
  subpaths: Subpath[];
}

/** The identity of a subpath across profiles: its blocks' site keys from the least rotation on. */
export function subpathKey(blocks: readonly SiteEntry[]): string {
  const keys = blocks.map((b) => b.key);
  const n = keys.length;
  let best = 0;
  for (let r = 1; r < n; r++) {
    for (let k = 0; k < n; k++) {
      const a = keys[(r + k) % n]!;
      const b = keys[(best + k) % n]!;
      if (a !== b) {
        if (a < b) best = r;
        break;
      }
    }
  }
  return Array.from({ length: n }, (_, k) => keys[(best + k) % n]).join('\u0001');
}

/** The estimated occurrences in the run: the count itself in exact mode. */
export function estimateOf(s: SubpathsSection, p: Subpath): number {
  return s.mode === 'exact' ? p.count : estimatedCount(p.count, p.blocks.length, s.rate, s.maxLength, s.perStart);
}

/** Subpaths hottest first by estimate, ties by key so that reports are stable. */
export function byEstimate(s: SubpathsSection): Subpath[] {
  const keyed = s.subpaths.map((p) => ({ p, e: estimateOf(s, p), k: subpathKey(p.blocks) }));
  keyed.sort((a, b) => b.e - a.e || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((x) => x.p);
}
