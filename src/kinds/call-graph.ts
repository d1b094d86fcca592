/**
 * What the call-graph kinds share (call-edges, counted by the framework; cbs, sampled by its own
 * trigger): the edge, keyed by call site (caller method and bytecode index) and the method that
 * actually ran (its `edge` records are edge-records.ts's); the edge tables of the text report; the overlap of two graphs;
 * and the graph as Graphviz dot. A cbs section and a call-edges section compare edge by edge.
 */
import type { SiteEntry } from '../profile/document.js';
import type { MethodEntry } from '../profile/model.js';
import { shareOverlap } from '../profile/share-overlap.js';
import { formatInt, formatPct, methodName, siteName, table, type NameOptions } from '../report/names.js';
import type { Accuracy, AccuracyOptions, ReportOptions } from './kind.js';
import { edgeKey, type CallEdge } from './edge-records.js';

export type { CallEdge } from './edge-records.js';

export function totalCount(edges: readonly CallEdge[]): number {
  return edges.reduce((n, e) => n + e.count, 0);
}

/** Heaviest first; ties by key, so that reports do not depend on the file's order. */
export function byWeight(edges: readonly CallEdge[]): CallEdge[] {
  return [...edges].sort((a, b) => b.count - a.count || (edgeKey(a) < edgeKey(b) ? -1 : 1));
}

/**
 * The edge tables of a report: the top edges, or with --method the edges into and out of the
 * matching methods. `site` names a call site.
 */
export function edgeTables(
  edges: readonly CallEdge[],
  opts: ReportOptions,
  site: (s: SiteEntry, o: NameOptions) => string = siteName,
): string[] {
  const total = totalCount(edges);
  const row = (e: CallEdge) => [formatPct(total === 0 ? 0 : e.count / total, 2), formatInt(e.count), site(e.site, opts), '→', methodName(e.callee, opts)];
  const sorted = byWeight(edges);
  const lines: string[] = [];
  if (opts.method) {
    const match = opts.method;
    const callers = sorted.filter((e) => match(e.callee));
    const callees = sorted.filter((e) => match(e.site.method));
    lines.push('', `Called from (${callers.length} edges):`, ...table(callers.slice(0, opts.top).map(row), ['r', 'r', 'l', 'l', 'l']));
    lines.push('', `Calls (${callees.length} edges):`, ...table(callees.slice(0, opts.top).map(row), ['r', 'r', 'l', 'l', 'l']));
  } else {
    lines.push('', `Top call edges (caller and call site → method that ran):`, ...table(sorted.slice(0, opts.top).map(row), ['r', 'r', 'l', 'l', 'l']));
  }
  return lines;
}

/** The paper's overlap of two call graphs (seed 004 §6.2), edge by edge; `opts.cutoff` as in diff --accuracy --cutoff. */
export function edgeAccuracy(exact: readonly CallEdge[], sampled: readonly CallEdge[], opts: AccuracyOptions = {}): Accuracy {
  const byKey = (edges: readonly CallEdge[]) => new Map(edges.map((e) => [edgeKey(e), e.count]));
  const names = new Map<string, string>();
  for (const e of [...exact, ...sampled]) names.set(edgeKey(e), `${siteName(e.site)} → ${methodName(e.callee)}`);
  const o = shareOverlap(byKey(exact), byKey(sampled), opts.cutoff);
  return {
    overlap: o.overlap,
    unit: 'call edges',
    keys: o.rows.length,
    worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })),
  };
}

/** `com.foo.Bar.baz(Bar.java:42)`, as a Java stack trace shows a position. */
export function stackTraceSite(s: SiteEntry, o: NameOptions = {}): string {
  const m = s.method;
  const owner = o.rawDescriptors ? m.className : m.className.replaceAll('/', '.');
  const where = m.source === '' ? (s.line >= 0 ? `line ${s.line}` : `bci ${s.bci}`) : s.line >= 0 ? `${m.source}:${s.line}` : m.source;
  return `${owner}.${m.name}${o.rawDescriptors ? m.descriptor : ''}(${where})`;
}

const dotString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * A call graph in Graphviz dot: one node per method, one edge per call site and method that ran,
 * labelled with its share and line, the heaviest `opts.top` edges (and with --method only those
 * into or out of matching methods). Node and edge order follow weight, so the file is stable.
 */
export function callGraphDot(name: string, edges: readonly CallEdge[], opts: ReportOptions): string {
  const total = totalCount(edges);
  const match = opts.method;
  const shown = byWeight(edges)
    .filter((e) => !match || match(e.callee) || match(e.site.method))
    .slice(0, opts.top);
  const nodes = new Map<string, MethodEntry>();
  for (const e of shown) {
    nodes.set(e.site.method.key, e.site.method);
    nodes.set(e.callee.key, e.callee);
  }
  const id = new Map([...nodes.keys()].map((k, i) => [k, `m${i}`]));
  const lines = [`digraph ${dotString(name)} {`, '  rankdir=LR;', '  node [shape=box, fontname="Helvetica", fontsize=10];', '  edge [fontname="Helvetica", fontsize=9];'];
  for (const [k, m] of nodes) lines.push(`  ${id.get(k)} [label=${dotString(methodName(m, opts))}];`);
  const heaviest = shown[0]?.count ?? 1;
  for (const e of shown) {
    const share = total === 0 ? 0 : e.count / total;
    const line = e.site.line >= 0 ? `line ${e.site.line}` : `bci ${e.site.bci}`;
    const width = (1 + 4 * (e.count / heaviest)).toFixed(2);
    lines.push(`  ${id.get(e.site.method.key)} -> ${id.get(e.callee.key)} [label=${dotString(`${formatPct(share, 2)} (${formatInt(e.count)}), ${line}`)}, penwidth=${width}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}
