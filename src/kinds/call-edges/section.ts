/**
 * The call-edges section: `edge<TAB>site<TAB>callee<TAB>count` records, one per call site and
 * method that ran there, after the sampling header (docs/profile-format.md).
 */
import { HEADER_RECORDS, describeSampling, isExhaustive, mergeSamplingHeaders, readSamplingHeader, samplingHeaderLines, type SamplingHeader } from '../../framework/section-header.js';
import { formatInt } from '../../report/names.js';
import { edgeAccuracy, edgeTables, totalCount } from '../call-graph.js';
import { edgeLines, mergeEdges, readEdges, type CallEdge } from '../edge-records.js';
import type { SectionCodec } from '../kind.js';

export type { CallEdge };

export interface CallEdges {
  header: SamplingHeader;
  edges: CallEdge[];
}

function headline(s: CallEdges): string {
  return `call-edges: ${formatInt(totalCount(s.edges))} calls ${s.header.layout === 'exhaustive' ? '' : 'sampled '}on ${formatInt(s.edges.length)} edges (${describeSampling(s.header)})`;
}

export const callEdgesSection: SectionCodec<CallEdges> = {
  read(r) {
    r.only([...HEADER_RECORDS, 'edge']);
    return { header: readSamplingHeader(r), edges: readEdges(r, 'edge') };
  },

  methods: (s) => s.edges.map((e) => e.callee),
  sites: (s) => s.edges.map((e) => e.site),
  lines: (s, ids) => [...samplingHeaderLines(s.header), ...edgeLines('edge', s.edges, ids)],

  merge(sections, names) {
    return { header: mergeSamplingHeaders(sections.map((s) => s.header), names, 'call-edges'), edges: mergeEdges(sections.map((s) => s.edges)) };
  },

  report: (s, opts) => [headline(s), ...edgeTables(s.edges, opts)].join('\n') + '\n',

  accuracy: (exact, sampled, opts) => edgeAccuracy(exact.edges, sampled.edges, opts),
  callGraph: (s) => ({ edges: s.edges, counts: isExhaustive(s.header) ? 'calls' : 'sampled_calls', note: headline(s) }),
};
