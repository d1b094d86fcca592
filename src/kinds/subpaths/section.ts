/**
 * The subpaths section codec: the sampling header, the settings and totals, then
 * `subpath<TAB>count<TAB>site<TAB>site…` records, hottest first (docs/profile-format.md).
 */
import type { RawRecord, SectionReader } from '../../profile/document.js';
import type { TableIds } from '../../profile/write.js';
import { HEADER_RECORDS, readSamplingHeader, samplingHeaderLines } from '../../framework/section-header.js';
import type { SectionCodec } from '../kind.js';
import type { IdStats, LengthStats, PerStart, SubpathMode, SubpathsSection } from './model.js';
import { mergeSubpaths } from './merge.js';
import { reportSubpaths } from './report.js';
import { subpathsAccuracy } from './accuracy.js';
import { subpathsHtml } from './html.js';

const RECORDS = ['mode', 'maxLength', 'confidence', 'blocks', 'threads', 'rate', 'perStart', 'memory', 'peakEntries', 'memoryBytes', 'resamples', 'exactLimit', 'length', 'ids', 'subpath'];
const MODES: readonly SubpathMode[] = ['sample', 'skip', 'exact'];

function optionalInt(r: SectionReader, name: string, min = 0): number | undefined {
  return r.section.records.some((x) => x.fields[0] === name) ? r.int(r.scalar(name), 1, name, min) : undefined;
}

function readSettings(r: SectionReader): Omit<SubpathsSection, 'header' | 'subpaths' | 'lengths' | 'ids'> {
  const modeRec = r.scalar('mode');
  const mode = r.str(modeRec, 1, 'mode') as SubpathMode;
  if (!MODES.includes(mode)) r.fail(`mode "${mode}" is not one of ${MODES.join(', ')}`, modeRec.line);
  const lenRec = r.scalar('maxLength');
  const maxLength = r.int(lenRec, 1, 'maxLength', 2);
  if ((maxLength & (maxLength - 1)) !== 0 || maxLength > 1024) r.fail(`maxLength ${maxLength} is not a power of two up to 1024`, lenRec.line);
  const confRec = r.scalar('confidence');
  const confidence = r.str(confRec, 1, 'confidence');
  if (!/^0\.[0-9]+$/.test(confidence) || Number(confidence) <= 0) r.fail(`confidence "${confidence}" is not a number strictly between 0 and 1`, confRec.line);
  return {
    ...readPerStart(r),
    mode,
    maxLength,
    confidence,
    blocks: r.int(r.scalar('blocks'), 1, 'blocks'),
    threads: r.int(r.scalar('threads'), 1, 'threads'),
    rate: r.int(r.scalar('rate'), 1, 'rate', 1),
    memory: optionalInt(r, 'memory', 1),
    peakEntries: optionalInt(r, 'peakEntries'),
    memoryBytes: optionalInt(r, 'memoryBytes'),
    resamples: optionalInt(r, 'resamples'),
    exactLimit: optionalInt(r, 'exactLimit', 1),
  };
}

/** `perStart one|all`: absent in profiles written before it existed (one length per start). */
function readPerStart(r: SectionReader): { perStart?: PerStart } {
  if (!r.section.records.some((x) => x.fields[0] === 'perStart')) return {};
  const rec = r.scalar('perStart');
  const v = r.str(rec, 1, 'perStart');
  if (v !== 'one' && v !== 'all') r.fail(`perStart "${v}" is not one or all`, rec.line);
  return { perStart: v as PerStart };
}

function readLengths(r: SectionReader): LengthStats[] | undefined {
  const recs = r.records('length', 5, 'length<TAB>blocks<TAB>total<TAB>distinct<TAB>overflow');
  if (recs.length === 0) return undefined;
  return recs.map((x) => ({ length: r.int(x, 1, 'length', 2), total: r.int(x, 2, 'total'), distinct: r.int(x, 3, 'distinct', -1), overflow: r.int(x, 4, 'overflow') }));
}

function readIds(r: SectionReader): IdStats | undefined {
  const recs = r.records('ids', 5, 'ids<TAB>ordered<TAB>exact<TAB>hash64<TAB>xor');
  if (recs.length === 0) return undefined;
  if (recs.length > 1) r.fail('more than one "ids" line', recs[1]!.line);
  const x = recs[0]!;
  return { ordered: r.int(x, 1, 'ordered', -1), exact: r.int(x, 2, 'exact'), hash64: r.int(x, 3, 'hash64'), xor: r.int(x, 4, 'xor') };
}

function readSubpath(r: SectionReader, rec: RawRecord, maxLength: number) {
  const n = rec.fields.length - 2;
  if (n < 2 || (n & (n - 1)) !== 0 || n > maxLength) {
    r.fail(`a subpath has ${n} blocks: expected a power of two from 2 to maxLength ${maxLength} (subpath<TAB>count<TAB>site…)`, rec.line);
  }
  const blocks = rec.fields.slice(2).map((_, i) => r.site(rec, i + 2));
  return { count: r.int(rec, 1, 'count', 1), blocks };
}

export const subpathsSection: SectionCodec<SubpathsSection> = {
  read(r: SectionReader): SubpathsSection {
    r.only([...HEADER_RECORDS, ...RECORDS]);
    const settings = readSettings(r);
    const subpaths = r.section.records.filter((x) => x.fields[0] === 'subpath').map((x) => readSubpath(r, x, settings.maxLength));
    return { header: readSamplingHeader(r), ...settings, lengths: readLengths(r), ids: readIds(r), subpaths };
  },

  methods: (s) => s.subpaths.flatMap((p) => p.blocks.map((b) => b.method)),
  sites: (s) => s.subpaths.flatMap((p) => p.blocks),

  lines(s: SubpathsSection, ids: TableIds): string[] {
    const opt = (name: string, v: number | undefined) => (v === undefined ? [] : [`${name}\t${v}`]);
    const rows = s.subpaths.map((p) => ({ count: p.count, sites: p.blocks.map((b) => ids.site(b)) }));
    rows.sort((a, b) => b.count - a.count || a.sites.length - b.sites.length || compareLists(a.sites, b.sites));
    return [
      ...samplingHeaderLines(s.header),
      `mode\t${s.mode}`,
      `maxLength\t${s.maxLength}`,
      `confidence\t${s.confidence}`,
      `blocks\t${s.blocks}`,
      `threads\t${s.threads}`,
      `rate\t${s.rate}`,
      ...(s.perStart ? [`perStart\t${s.perStart}`] : []),
      ...opt('exactLimit', s.exactLimit),
      ...(s.lengths ?? []).map((l) => `length\t${l.length}\t${l.total}\t${l.distinct}\t${l.overflow}`),
      ...(s.ids ? [`ids\t${s.ids.ordered}\t${s.ids.exact}\t${s.ids.hash64}\t${s.ids.xor}`] : []),
      ...opt('memory', s.memory),
      ...opt('peakEntries', s.peakEntries),
      ...opt('memoryBytes', s.memoryBytes),
      ...opt('resamples', s.resamples),
      ...rows.map((r) => `subpath\t${r.count}\t${r.sites.join('\t')}`),
    ];
  },

  merge: mergeSubpaths,
  report: reportSubpaths,
  accuracy: subpathsAccuracy,
  html: subpathsHtml,
};

function compareLists(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
