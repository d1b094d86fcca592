/**
 * `<record><TAB>site<TAB>callee<TAB>count` lines, one per call site and method that ran there,
 * shared by call-edges and call-pairs: read (no pair twice), written in (site, callee) id order,
 * merged by summing.
 */
import type { SectionReader, SiteEntry } from '../profile/document.js';
import type { MethodEntry } from '../profile/model.js';
import type { TableIds } from '../profile/write.js';

export interface CallEdge {
  site: SiteEntry;
  callee: MethodEntry;
  count: number;
}

/** A section's call graph: its edges, and what their counts are (for exports that name a unit, pprof). */
export interface CallGraph {
  edges: readonly CallEdge[];
  /**
   * What an edge's count is, as a pprof sample type names it: `calls` when every call was counted,
   * `sampled_calls` when only the sampled ones were (a share of the calls, not their number).
   */
  counts: 'calls' | 'sampled_calls';
  /** How the section was recorded, one line (its report's headline). */
  note: string;
}

export const edgeKey = (e: CallEdge) => `${e.site.key}\u0001${e.callee.key}`;

export function readEdges(r: SectionReader, record: string): CallEdge[] {
  const seen = new Set<string>();
  return r.records(record, 4, `${record}<TAB>site<TAB>callee method<TAB>count`).map((rec) => {
    const e = { site: r.site(rec, 1), callee: r.method(rec, 2), count: r.int(rec, 3, 'count', 1) };
    if (seen.has(edgeKey(e))) r.fail(`${record} ${rec.fields[1]} → ${rec.fields[2]} repeats an earlier ${record}`, rec.line);
    seen.add(edgeKey(e));
    return e;
  });
}

export function edgeLines(record: string, edges: readonly CallEdge[], ids: TableIds): string[] {
  const rows = edges.map((e) => [ids.site(e.site), ids.method(e.callee), e.count] as const);
  rows.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return rows.map(([site, callee, count]) => `${record}\t${site}\t${callee}\t${count}`);
}

export function mergeEdges(sections: readonly (readonly CallEdge[])[]): CallEdge[] {
  const sum = new Map<string, CallEdge>();
  for (const s of sections) {
    for (const e of s) {
      const k = edgeKey(e);
      const known = sum.get(k);
      if (known) known.count += e.count;
      else sum.set(k, { ...e });
    }
  }
  return [...sum.values()];
}
