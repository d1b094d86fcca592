/**
 * `<record><TAB>site<TAB>count` lines, one per site, shared by the kinds that count per site: read
 * (no site twice), written in site id order, merged by summing.
 */
import type { SectionReader, SiteEntry } from '../profile/document.js';
import type { TableIds } from '../profile/write.js';

export interface SiteCount {
  site: SiteEntry;
  count: number;
}

export function readSiteCounts(r: SectionReader, record: string): SiteCount[] {
  const seen = new Set<string>();
  return r.records(record, 3, `${record}<TAB>site<TAB>count`).map((rec) => {
    const a = { site: r.site(rec, 1), count: r.int(rec, 2, 'count', 1) };
    if (seen.has(a.site.key)) r.fail(`site ${rec.fields[1]} repeats an earlier ${record} line`, rec.line);
    seen.add(a.site.key);
    return a;
  });
}

export function siteCountLines(record: string, counts: readonly SiteCount[], ids: TableIds): string[] {
  const rows = counts.map((a) => [ids.site(a.site), a.count] as const).sort((a, b) => a[0] - b[0]);
  return rows.map(([site, count]) => `${record}\t${site}\t${count}`);
}

export function mergeSiteCounts(sections: readonly (readonly SiteCount[])[]): SiteCount[] {
  const sum = new Map<string, SiteCount>();
  for (const s of sections) {
    for (const a of s) {
      const known = sum.get(a.site.key);
      if (known) known.count += a.count;
      else sum.set(a.site.key, { ...a });
    }
  }
  return [...sum.values()];
}
