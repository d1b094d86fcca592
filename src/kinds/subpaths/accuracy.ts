/**
 * A sampled subpaths profile against the exact one of the same run (seed 003 §4.4, Table 4.8):
 * for the hottest sampled subpaths, their true rank and count, the estimate's error and whether the
 * true count lies within the Chernoff bound; whether the true hottest ones were reported; and the
 * overlap of the two distributions (seed 000 §4.4) over the subpaths either lists.
 */
import { KomoriumError } from '../../errors.js';
import { shareOverlap } from '../../profile/share-overlap.js';
import type { Accuracy } from '../kind.js';
import { chernoffBound } from './estimate.js';
import { byEstimate, estimateOf, subpathKey, type Subpath, type SubpathsSection } from './model.js';
import { segments } from './report.js';

export interface TopRow {
  /** Rank in the sample (1-based) and in the exact profile (null: not among the exact subpaths listed). */
  sampleRank: number;
  exactRank: number | null;
  length: number;
  sampleCount: number;
  estimate: number;
  /** null when the exact profile does not list the subpath. */
  exactCount: number | null;
  /** |estimate − exact| / exact. */
  error: number | null;
  /** The relative Chernoff bound of the estimate (two-sided, at the profile's confidence). */
  bound: number;
  /** The true count lies within estimate × (1 ± bound). */
  withinBound: boolean | null;
  name: string;
}

export interface TopComparison {
  rows: TopRow[];
  /** How many of the exact top `trueTop` are among the sampled top `top`. */
  trueTopFound: number;
  trueTop: number;
  /** Errors of the estimates of the exact top `trueTop` (null where not sampled). */
  trueTopErrors: (number | null)[];
  /** Share of the listed rows whose true count is within the bound (rows with a known count). */
  coverage: number;
  /** The exact profile lists only its hottest subpaths; this is the smallest count it lists. */
  exactCutoff: number;
}

export function compareTop(exact: SubpathsSection, sampled: SubpathsSection, top = 20, trueTop = 10): TopComparison {
  if (exact.mode !== 'exact') throw new KomoriumError(`the first profile's subpaths section is ${exact.mode} mode, not exact: give the exact profile first`);
  const confidence = Number(sampled.confidence);
  const exactList = byEstimate(exact);
  const exactRank = new Map(exactList.map((p, i) => [subpathKey(p.blocks), { rank: i + 1, count: p.count }]));
  const hot = byEstimate(sampled).slice(0, top);
  const rows: TopRow[] = hot.map((p, i) => topRow(sampled, p, i + 1, exactRank.get(subpathKey(p.blocks)) ?? null, confidence));
  const sampledEstimate = new Map(byEstimate(sampled).map((p) => [subpathKey(p.blocks), estimateOf(sampled, p)]));
  const hotKeys = new Set(hot.map((p) => subpathKey(p.blocks)));
  const truth = exactList.slice(0, trueTop);
  const known = rows.filter((r) => r.withinBound !== null);
  return {
    rows,
    trueTop: truth.length,
    trueTopFound: truth.filter((p) => hotKeys.has(subpathKey(p.blocks))).length,
    trueTopErrors: truth.map((p) => {
      const e = sampledEstimate.get(subpathKey(p.blocks));
      return e === undefined ? null : Math.abs(e - p.count) / p.count;
    }),
    coverage: known.length === 0 ? 0 : known.filter((r) => r.withinBound).length / known.length,
    exactCutoff: exactList.length === 0 ? 0 : exactList[exactList.length - 1]!.count,
  };
}

function topRow(s: SubpathsSection, p: Subpath, rank: number, truth: { rank: number; count: number } | null, confidence: number): TopRow {
  const estimate = estimateOf(s, p);
  const bound = chernoffBound(p.count, confidence);
  const error = truth ? Math.abs(estimate - truth.count) / truth.count : null;
  return {
    sampleRank: rank,
    exactRank: truth?.rank ?? null,
    length: p.blocks.length,
    sampleCount: p.count,
    estimate,
    exactCount: truth?.count ?? null,
    error,
    bound,
    withinBound: truth ? Math.abs(estimate - truth.count) <= bound * estimate : null,
    name: segments(p.blocks, {} as never).join(' → '),
  };
}

export function subpathsAccuracy(exact: SubpathsSection, sampled: SubpathsSection): Accuracy {
  const shares = (s: SubpathsSection) => new Map(s.subpaths.map((p) => [subpathKey(p.blocks), estimateOf(s, p)]));
  const names = new Map<string, string>();
  for (const p of [...exact.subpaths, ...sampled.subpaths]) names.set(subpathKey(p.blocks), segments(p.blocks, {} as never).join(' → '));
  const o = shareOverlap(shares(exact), shares(sampled));
  const notes: string[] = [];
  if (exact.mode === 'exact' && sampled.mode === 'sample') {
    const c = compareTop(exact, sampled);
    const errs = c.trueTopErrors.filter((e): e is number => e !== null);
    notes.push(
      `the true top ${c.trueTop}: ${c.trueTopFound} among the sampled top 20; estimate error ${errs.length ? `${pct(Math.min(...errs))} to ${pct(Math.max(...errs))}` : 'n/a'}` +
        (errs.length < c.trueTop ? ` (${c.trueTop - errs.length} not sampled)` : ''),
      `the sampled top ${c.rows.length}: true count within the Chernoff bound at ${sampled.confidence} for ${pct(c.coverage)}` +
        (c.rows.some((r) => r.exactCount === null) ? ` (${c.rows.filter((r) => r.exactCount === null).length} not among the ${exact.subpaths.length} exact subpaths listed)` : ''),
    );
  }
  return {
    overlap: o.overlap,
    unit: 'subpaths (estimated counts)',
    keys: o.rows.length,
    worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })),
    notes,
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(2)}%`;
}
