/**
 * The call-edges section: `edge<TAB>site<TAB>callee<TAB>count` records, one per call site and
 * method that ran there, after the sampling header (docs/profile-format.md).
 */
import type { SectionReader } from '../../profile/document.js';
import type { TableIds } from '../../profile/write.js';
import { shareOverlap } from '../../profile/share-overlap.js';
import { HEADER_RECORDS, describeSampling, mergeSamplingHeaders, readSamplingHeader, samplingHeaderLines, type SamplingHeader } from '../../framework/section-header.js';
import { formatInt, formatPct, methodName, siteName, table } from '../../report/names.js';
import type { Accuracy, AccuracyOptions, ReportOptions, SectionCodec } from '../kind.js';
import { edgeKey, edgeLines, mergeEdges, readEdges, type CallEdge } from '../edge-records.js';

export type { CallEdge };

export interface CallEdges {
  header: SamplingHeader;
  edges: CallEdge[];
}

export const callEdgesSection: SectionCodec<CallEdges> = {
  read(r: SectionReader): CallEdges {
    r.only([...HEADER_RECORDS, 'edge']);
    return { header: readSamplingHeader(r), edges: readEdges(r, 'edge') };
  },

  methods: (s) => s.edges.map((e) => e.callee),
  sites: (s) => s.edges.map((e) => e.site),

  lines: (s: CallEdges, ids: TableIds) => [...samplingHeaderLines(s.header), ...edgeLines('edge', s.edges, ids)],

  merge(sections: CallEdges[], names: string[]): CallEdges {
    return { header: mergeSamplingHeaders(sections.map((s) => s.header), names, 'call-edges'), edges: mergeEdges(sections.map((s) => s.edges)) };
  },

  report(s: CallEdges, opts: ReportOptions): string {
    const total = s.edges.reduce((n, e) => n + e.count, 0);
    const lines = [
      `call-edges: ${formatInt(total)} calls ${s.header.layout === 'exhaustive' ? '' : 'sampled '}on ${formatInt(s.edges.length)} edges (${describeSampling(s.header)})`,
    ];
    const row = (e: CallEdge) => [formatPct(total === 0 ? 0 : e.count / total, 2), formatInt(e.count), siteName(e.site, opts), '→', methodName(e.callee, opts)];
    const sorted = [...s.edges].sort((a, b) => b.count - a.count || (edgeKey(a) < edgeKey(b) ? -1 : 1));
    if (opts.method) {
      const match = opts.method;
      const callers = sorted.filter((e) => match(e.callee));
      const callees = sorted.filter((e) => match(e.site.method));
      lines.push('', `Called from (${callers.length} edges):`, ...table(callers.slice(0, opts.top).map(row), ['r', 'r', 'l', 'l', 'l']));
      lines.push('', `Calls (${callees.length} edges):`, ...table(callees.slice(0, opts.top).map(row), ['r', 'r', 'l', 'l', 'l']));
    } else {
      lines.push('', `Top call edges (caller and call site → method that ran):`, ...table(sorted.slice(0, opts.top).map(row), ['r', 'r', 'l', 'l', 'l']));
    }
    return lines.join('\n') + '\n';
  },

  accuracy(exact: CallEdges, sampled: CallEdges, opts: AccuracyOptions = {}): Accuracy {
    const byKey = (s: CallEdges) => new Map(s.edges.map((e) => [edgeKey(e), e.count]));
    const names = new Map<string, string>();
    for (const e of [...exact.edges, ...sampled.edges]) names.set(edgeKey(e), `${siteName(e.site)} → ${methodName(e.callee)}`);
    const o = shareOverlap(byKey(exact), byKey(sampled), opts.cutoff);
    return {
      overlap: o.overlap,
      unit: 'call edges',
      keys: o.rows.length,
      worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })),
    };
  },
};
