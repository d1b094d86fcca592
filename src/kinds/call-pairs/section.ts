/**
 * The call-pairs section: `pair<TAB>site<TAB>callee<TAB>count` records, one per call site and
 * method that ran there, after the kind header (burst-header.ts). A pair is the site's method
 * (the caller) and the callee; its sites give the lines of the calls.
 */
import type { SectionReader } from '../../profile/document.js';
import type { MethodEntry } from '../../profile/model.js';
import type { TableIds } from '../../profile/write.js';
import { shareOverlap } from '../../profile/share-overlap.js';
import { KIND_HEADER_RECORDS, describeKindHeader, kindHeaderLines, mergeKindHeaders, readKindHeader, type KindHeader } from '../../framework/burst-header.js';
import { formatInt, formatPct, methodName, table } from '../../report/names.js';
import type { Accuracy, AccuracyOptions, ReportOptions, SectionCodec } from '../kind.js';
import { edgeLines, mergeEdges, readEdges, type CallEdge, type CallGraph } from '../edge-records.js';
import { totalCount } from '../call-graph.js';
import { isExhaustive } from '../../framework/section-header.js';

export interface CallPairs {
  header: KindHeader;
  pairs: CallEdge[];
}

interface PairRow {
  caller: MethodEntry;
  callee: MethodEntry;
  count: number;
  sites: CallEdge[];
}

const pairKey = (caller: MethodEntry, callee: MethodEntry) => `${caller.key}\u0001${callee.key}`;

function byPair(edges: readonly CallEdge[]): Map<string, PairRow> {
  const rows = new Map<string, PairRow>();
  for (const e of edges) {
    const k = pairKey(e.site.method, e.callee);
    let row = rows.get(k);
    if (!row) rows.set(k, (row = { caller: e.site.method, callee: e.callee, count: 0, sites: [] }));
    row.count += e.count;
    row.sites.push(e);
  }
  return rows;
}

function headline(h: KindHeader, calls: number, pairs: number): string {
  return `call-pairs: ${formatInt(calls)} calls ${h.sampling.layout === 'exhaustive' ? '' : 'sampled '}on ${formatInt(pairs)} caller and callee pairs (${describeKindHeader(h)})`;
}

/** Bursts sample whatever their interval; without them the framework's interval 1 counts every call. */
const everyCall = (h: KindHeader) => h.sampling.layout === 'exhaustive' || (h.burst === null && isExhaustive(h.sampling));

export const callPairsSection: SectionCodec<CallPairs> = {
  read(r: SectionReader): CallPairs {
    r.only([...KIND_HEADER_RECORDS, 'pair']);
    return { header: readKindHeader(r), pairs: readEdges(r, 'pair') };
  },

  methods: (s) => s.pairs.map((e) => e.callee),
  sites: (s) => s.pairs.map((e) => e.site),

  lines: (s: CallPairs, ids: TableIds) => [...kindHeaderLines(s.header), ...edgeLines('pair', s.pairs, ids)],

  merge(sections: CallPairs[], names: string[]): CallPairs {
    return { header: mergeKindHeaders(sections.map((s) => s.header), names, 'call-pairs'), pairs: mergeEdges(sections.map((s) => s.pairs)) };
  },

  report(s: CallPairs, opts: ReportOptions): string {
    const all = [...byPair(s.pairs).values()];
    const total = all.reduce((n, r) => n + r.count, 0);
    const rows = all
      .filter((r) => !opts.method || opts.method(r.caller) || opts.method(r.callee))
      .sort((a, b) => b.count - a.count || (pairKey(a.caller, a.callee) < pairKey(b.caller, b.callee) ? -1 : 1));
    const lines = [
      headline(s.header, total, all.length),
      '',
      'Hot call pairs (caller → method that ran; the lines of its hottest calls):',
    ];
    const out: string[][] = [];
    for (const r of rows.slice(0, opts.top)) {
      out.push([formatPct(total === 0 ? 0 : r.count / total, 2), formatInt(r.count), `${methodName(r.caller, opts)} → ${methodName(r.callee, opts)}`]);
      for (const e of [...r.sites].sort((a, b) => b.count - a.count).slice(0, 3)) {
        const where = e.site.method.source !== '' ? `${e.site.method.source}:${e.site.line >= 0 ? e.site.line : '?'}` : `line ${e.site.line}`;
        out.push(['', formatInt(e.count), `  ${e.site.what} at ${where} (bci ${e.site.bci})`]);
      }
    }
    lines.push(...table(out, ['r', 'r', 'l']));
    return lines.join('\n') + '\n';
  },

  // The graph by call site, as call-edges holds it: a pair is the sum of its sites' edges.
  callGraph: (s: CallPairs): CallGraph => ({
    edges: s.pairs,
    counts: everyCall(s.header) ? 'calls' : 'sampled_calls',
    note: headline(s.header, totalCount(s.pairs), byPair(s.pairs).size),
  }),

  accuracy(exact: CallPairs, sampled: CallPairs, opts: AccuracyOptions = {}): Accuracy {
    const counts = (s: CallPairs) => new Map([...byPair(s.pairs)].map(([k, r]) => [k, r.count]));
    const names = new Map<string, string>();
    for (const e of [...exact.pairs, ...sampled.pairs]) names.set(pairKey(e.site.method, e.callee), `${methodName(e.site.method)} → ${methodName(e.callee)}`);
    const o = shareOverlap(counts(exact), counts(sampled), opts.cutoff);
    return { overlap: o.overlap, unit: 'call pairs', keys: o.rows.length, worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })) };
  },
};
