/**
 * The hot-methods section: `event<TAB>site<TAB>count` records, one per method entry site (calls)
 * and backedge site (loop iterations) that ran, after the kind header (burst-header.ts). A
 * method's heat is its calls plus its backedges.
 */
import type { SectionReader } from '../../profile/document.js';
import type { TableIds } from '../../profile/write.js';
import type { MethodEntry } from '../../profile/model.js';
import { shareOverlap } from '../../profile/share-overlap.js';
import { KIND_HEADER_RECORDS, describeKindHeader, kindHeaderLines, mergeKindHeaders, readKindHeader, type KindHeader } from '../../framework/burst-header.js';
import { formatInt, formatPct, methodName, sourceRef, table } from '../../report/names.js';
import type { Accuracy, AccuracyOptions, ReportOptions, SectionCodec } from '../kind.js';
import { mergeSiteCounts, readSiteCounts, siteCountLines, type SiteCount } from '../site-counts.js';

export interface HotMethods {
  header: KindHeader;
  events: SiteCount[];
}

interface MethodRow {
  method: MethodEntry;
  calls: number;
  backedges: number;
  loops: SiteCount[];
}

function byMethod(events: readonly SiteCount[]): Map<string, MethodRow> {
  const rows = new Map<string, MethodRow>();
  for (const e of events) {
    const m = e.site.method;
    let row = rows.get(m.key);
    if (!row) rows.set(m.key, (row = { method: m, calls: 0, backedges: 0, loops: [] }));
    if (e.site.what === 'backedge') {
      row.backedges += e.count;
      row.loops.push(e);
    } else row.calls += e.count;
  }
  return rows;
}

const heat = (r: MethodRow) => r.calls + r.backedges;

export const hotMethodsSection: SectionCodec<HotMethods> = {
  read(r: SectionReader): HotMethods {
    r.only([...KIND_HEADER_RECORDS, 'event']);
    return { header: readKindHeader(r), events: readSiteCounts(r, 'event') };
  },

  methods: () => [],
  sites: (s) => s.events.map((e) => e.site),

  lines: (s: HotMethods, ids: TableIds) => [...kindHeaderLines(s.header), ...siteCountLines('event', s.events, ids)],

  merge(sections: HotMethods[], names: string[]): HotMethods {
    return { header: mergeKindHeaders(sections.map((s) => s.header), names, 'hot-methods'), events: mergeSiteCounts(sections.map((s) => s.events)) };
  },

  report(s: HotMethods, opts: ReportOptions): string {
    const all = [...byMethod(s.events).values()];
    const total = all.reduce((n, r) => n + heat(r), 0);
    const rows = all
      .filter((r) => !opts.method || opts.method(r.method))
      .sort((a, b) => heat(b) - heat(a) || (a.method.key < b.method.key ? -1 : 1));
    const lines = [
      `hot-methods: ${formatInt(total)} calls and loop iterations ${s.header.sampling.layout === 'exhaustive' ? '' : 'sampled '}in ${formatInt(all.length)} methods (${describeKindHeader(s.header)})`,
      '',
      'Hot methods (calls and backedges charged to the method running; its hottest loops by line):',
    ];
    const out: string[][] = [['share', 'calls', 'backedges', 'method', 'source']];
    for (const r of rows.slice(0, opts.top)) {
      out.push([formatPct(total === 0 ? 0 : heat(r) / total, 2), formatInt(r.calls), formatInt(r.backedges), methodName(r.method, opts), sourceRef(r.method)]);
      for (const l of [...r.loops].sort((a, b) => b.count - a.count).slice(0, 3)) {
        out.push(['', '', formatInt(l.count), `  loop at ${r.method.source || 'line'}${r.method.source ? ':' : ' '}${l.site.line >= 0 ? l.site.line : '?'} (bci ${l.site.bci})`, '']);
      }
    }
    lines.push(...table(out, ['r', 'r', 'r', 'l', 'l']));
    return lines.join('\n') + '\n';
  },

  accuracy(exact: HotMethods, sampled: HotMethods, opts: AccuracyOptions = {}): Accuracy {
    const heats = (s: HotMethods) => new Map([...byMethod(s.events)].map(([k, r]) => [k, heat(r)]));
    const names = new Map<string, string>();
    for (const e of [...exact.events, ...sampled.events]) names.set(e.site.method.key, methodName(e.site.method));
    const o = shareOverlap(heats(exact), heats(sampled), opts.cutoff);
    return { overlap: o.overlap, unit: 'methods', keys: o.rows.length, worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })) };
  },
};

