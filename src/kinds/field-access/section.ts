/**
 * The field-access section: `access<TAB>site<TAB>count` records, one per field instruction that
 * ran, after the sampling header (docs/profile-format.md). Reads and writes per field are summed
 * from the sites: a site names its field's declaring class, name and type.
 */
import type { SectionReader, SiteEntry } from '../../profile/document.js';
import { mergeSiteCounts, readSiteCounts, siteCountLines, type SiteCount } from '../site-counts.js';
import type { TableIds } from '../../profile/write.js';
import { shareOverlap } from '../../profile/share-overlap.js';
import { javaName } from '../../classfile/names.js';
import { HEADER_RECORDS, describeSampling, mergeSamplingHeaders, readSamplingHeader, samplingHeaderLines, type SamplingHeader } from '../../framework/section-header.js';
import { formatInt, formatPct, siteName, table } from '../../report/names.js';
import type { Accuracy, AccuracyOptions, ReportOptions, SectionCodec } from '../kind.js';

export type FieldSiteCount = SiteCount;

export interface FieldAccesses {
  header: SamplingHeader;
  accesses: FieldSiteCount[];
}

/** The field a site accesses: the paper's counter is per field. */
const fieldKey = (s: SiteEntry) => `${s.owner}.${s.name}:${s.descriptor}`;
const fieldName = (s: SiteEntry) => `${javaName(s.owner)}.${s.name}`;
const isWrite = (s: SiteEntry) => s.what === 'putfield' || s.what === 'putstatic';

export const fieldAccessSection: SectionCodec<FieldAccesses> = {
  read(r: SectionReader): FieldAccesses {
    r.only([...HEADER_RECORDS, 'access']);
    return { header: readSamplingHeader(r), accesses: readSiteCounts(r, 'access') };
  },

  methods: () => [],
  sites: (s) => s.accesses.map((a) => a.site),

  lines: (s: FieldAccesses, ids: TableIds) => [...samplingHeaderLines(s.header), ...siteCountLines('access', s.accesses, ids)],

  merge(sections: FieldAccesses[], names: string[]): FieldAccesses {
    return { header: mergeSamplingHeaders(sections.map((s) => s.header), names, 'field-access'), accesses: mergeSiteCounts(sections.map((s) => s.accesses)) };
  },

  report(s: FieldAccesses, opts: ReportOptions): string {
    const accesses = opts.method ? s.accesses.filter((a) => opts.method!(a.site.method)) : s.accesses;
    const total = s.accesses.reduce((n, a) => n + a.count, 0);
    const fields = new Map<string, { name: string; reads: number; writes: number; sites: FieldSiteCount[] }>();
    for (const a of accesses) {
      const k = fieldKey(a.site);
      let f = fields.get(k);
      if (!f) fields.set(k, (f = { name: fieldName(a.site), reads: 0, writes: 0, sites: [] }));
      if (isWrite(a.site)) f.writes += a.count;
      else f.reads += a.count;
      f.sites.push(a);
    }
    const ranked = [...fields.values()].sort((a, b) => b.reads + b.writes - (a.reads + a.writes) || (a.name < b.name ? -1 : 1));
    const lines = [
      `field-access: ${formatInt(total)} accesses ${s.header.layout === 'exhaustive' ? '' : 'sampled '}to ${formatInt(fields.size)} fields (${describeSampling(s.header)})`,
      '',
      'Top fields (reads, writes, and the sites that access them most):',
    ];
    const rows: string[][] = [];
    for (const f of ranked.slice(0, opts.top)) {
      const n = f.reads + f.writes;
      rows.push([formatPct(total === 0 ? 0 : n / total, 2), formatInt(f.reads), formatInt(f.writes), f.name]);
      for (const a of [...f.sites].sort((x, y) => y.count - x.count).slice(0, 3)) {
        rows.push(['', '', '', `  ${isWrite(a.site) ? 'write' : 'read'} ${formatInt(a.count)} at ${siteName(a.site, opts)}`]);
      }
    }
    lines.push(...table([['share', 'reads', 'writes', 'field'], ...rows], ['r', 'r', 'r', 'l']));
    return lines.join('\n') + '\n';
  },

  accuracy(exact: FieldAccesses, sampled: FieldAccesses, opts: AccuracyOptions = {}): Accuracy {
    const byField = (s: FieldAccesses) => {
      const m = new Map<string, number>();
      for (const a of s.accesses) m.set(fieldKey(a.site), (m.get(fieldKey(a.site)) ?? 0) + a.count);
      return m;
    };
    const names = new Map<string, string>();
    for (const a of [...exact.accesses, ...sampled.accesses]) names.set(fieldKey(a.site), fieldName(a.site));
    const o = shareOverlap(byField(exact), byField(sampled), opts.cutoff);
    return { overlap: o.overlap, unit: 'fields', keys: o.rows.length, worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })) };
  },
};
