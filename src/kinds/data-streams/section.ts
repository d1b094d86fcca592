/**
 * The data-streams section, after the kind header (burst-header.ts):
 *   streams<TAB>references<TAB>heat<TAB>windows<TAB>streams found<TAB>object numbering restarts<TAB>every<TAB>skipped
 *     references and windows analysed; with every K > 1 (komorium.streams.every) one window in K
 *     was analysed and the `skipped` references of the others only counted
 *   stream<TAB>n<TAB>heat<TAB>cold uses<TAB>length          hottest first, n from 0
 *   ref<TAB>n<TAB>position<TAB>site<TAB>object<TAB>index     the stream's references in order
 * An object is numbered by its first appearance in the stream (0, 1, ...), -1 for a static field;
 * index is the array index, -1 for a field. A stream is identified across profiles by its
 * references (site, object, index); its heat is length × cold uses, summed over the windows.
 */
import type { SectionReader, SiteEntry } from '../../profile/document.js';
import { KomoriumError } from '../../errors.js';
import type { TableIds } from '../../profile/write.js';
import { javaName } from '../../classfile/names.js';
import { shareOverlap } from '../../profile/share-overlap.js';
import { KIND_HEADER_RECORDS, describeKindHeader, kindHeaderLines, mergeKindHeaders, readKindHeader, type KindHeader } from '../../framework/burst-header.js';
import { formatInt, formatPct, methodName, table } from '../../report/names.js';
import type { Accuracy, AccuracyOptions, ReportOptions, SectionCodec } from '../kind.js';

export interface StreamRef {
  site: SiteEntry;
  object: number;
  index: number;
}

export interface HotStream {
  heat: number;
  coldUses: number;
  refs: StreamRef[];
}

export interface DataStreams {
  header: KindHeader;
  /** References analysed (all windows, all threads). */
  references: number;
  /** Heat of every hot stream found, including those not written. */
  heat: number;
  windows: number;
  found: number;
  restarts: number;
  /** One window in `every` was analysed; `skipped` references were only counted. */
  every: number;
  skipped: number;
  streams: HotStream[];
}

/** References of a stream the report lists (a stream has up to 100). */
const SHOWN_REFS = 40;

const streamKey = (s: HotStream) => s.refs.map((r) => `${r.site.key}\u0001${r.object}\u0001${r.index}`).join('\u0002');

function sortStreams(streams: HotStream[]): HotStream[] {
  const keyed = streams.map((s) => [streamKey(s), s] as const);
  keyed.sort((a, b) => b[1].heat - a[1].heat || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map(([, s]) => s);
}

function readStreams(r: SectionReader): HotStream[] {
  const streams: HotStream[] = [];
  for (const rec of r.records('stream', 5, 'stream<TAB>n<TAB>heat<TAB>cold uses<TAB>length')) {
    const n = r.int(rec, 1, 'stream number');
    if (n !== streams.length) r.fail(`stream ${n} out of order (expected ${streams.length})`, rec.line);
    const length = r.int(rec, 4, 'length', 1);
    streams.push({ heat: r.int(rec, 2, 'heat'), coldUses: r.int(rec, 3, 'cold uses'), refs: new Array<StreamRef>(length) });
  }
  for (const rec of r.records('ref', 6, 'ref<TAB>n<TAB>position<TAB>site<TAB>object<TAB>index')) {
    const s = streams[r.int(rec, 1, 'stream number')];
    if (!s) r.fail(`ref names stream ${rec.fields[1]}, which has no stream line`, rec.line);
    const pos = r.int(rec, 2, 'position');
    if (pos >= s.refs.length || s.refs[pos] !== undefined) r.fail(`ref position ${pos} is past the stream's length or repeats`, rec.line);
    s.refs[pos] = { site: r.site(rec, 3), object: r.int(rec, 4, 'object', -1), index: r.int(rec, 5, 'index', -1) };
  }
  streams.forEach((s, i) => {
    for (let j = 0; j < s.refs.length; j++) if (s.refs[j] === undefined) r.fail(`stream ${i} has no ref at position ${j}`);
  });
  return streams;
}

/** `getfield Node.next of #0`, `iaload #1[3]`, `getstatic Config.DEBUG`. */
export function describeRef(ref: StreamRef): string {
  const s = ref.site;
  const obj = ref.object >= 0 ? `#${ref.object}` : '';
  if (ref.index >= 0 || s.owner === '') return `${s.what} ${obj}[${ref.index}]`;
  const field = `${javaName(s.owner).slice(javaName(s.owner).lastIndexOf('.') + 1)}.${s.name}`;
  return obj ? `${s.what} ${field} of ${obj}` : `${s.what} ${field}`;
}

function where(site: SiteEntry, opts: ReportOptions): string {
  const line = site.method.source !== '' ? `${site.method.source}:${site.line >= 0 ? site.line : '?'}` : `line ${site.line}`;
  return `${methodName(site.method, opts)} (${line})`;
}

export const dataStreamsSection: SectionCodec<DataStreams> = {
  read(r: SectionReader): DataStreams {
    r.only([...KIND_HEADER_RECORDS, 'streams', 'stream', 'ref']);
    const header = readKindHeader(r);
    const [t] = r.records('streams', 8, 'streams<TAB>references<TAB>heat<TAB>windows<TAB>streams found<TAB>restarts<TAB>every<TAB>skipped');
    if (!t) r.fail('the data-streams section needs a "streams" line');
    return {
      header,
      references: r.int(t, 1, 'references'),
      heat: r.int(t, 2, 'heat'),
      windows: r.int(t, 3, 'windows'),
      found: r.int(t, 4, 'streams found'),
      restarts: r.int(t, 5, 'restarts'),
      every: r.int(t, 6, 'every', 1),
      skipped: r.int(t, 7, 'skipped'),
      streams: readStreams(r),
    };
  },

  methods: () => [],
  sites: (s) => s.streams.flatMap((x) => x.refs.map((r) => r.site)),

  lines(s: DataStreams, ids: TableIds): string[] {
    const out = [...kindHeaderLines(s.header), `streams\t${s.references}\t${s.heat}\t${s.windows}\t${s.found}\t${s.restarts}\t${s.every}\t${s.skipped}`];
    sortStreams(s.streams).forEach((x, i) => {
      out.push(`stream\t${i}\t${x.heat}\t${x.coldUses}\t${x.refs.length}`);
      x.refs.forEach((r, j) => out.push(`ref\t${i}\t${j}\t${ids.site(r.site)}\t${r.object}\t${r.index}`));
    });
    return out;
  },

  merge(sections: DataStreams[], names: string[]): DataStreams {
    const sum = new Map<string, HotStream>();
    for (const s of sections) {
      for (const x of s.streams) {
        const k = streamKey(x);
        const known = sum.get(k);
        if (known) {
          known.heat += x.heat;
          known.coldUses += x.coldUses;
        } else sum.set(k, { ...x });
      }
    }
    const total = (f: (s: DataStreams) => number) => sections.reduce((n, s) => n + f(s), 0);
    if (sections.some((s) => s.every !== sections[0]!.every)) {
      throw new KomoriumError(`merge: the data-streams sections of ${names.join(', ')} analysed different shares of their windows (komorium.streams.every)`);
    }
    return {
      header: mergeKindHeaders(sections.map((s) => s.header), names, 'data-streams'),
      references: total((s) => s.references),
      heat: total((s) => s.heat),
      windows: total((s) => s.windows),
      found: sum.size,
      restarts: total((s) => s.restarts),
      every: sections[0]!.every,
      skipped: total((s) => s.skipped),
      streams: [...sum.values()],
    };
  },

  report(s: DataStreams, opts: ReportOptions): string {
    const streams = sortStreams(s.streams).filter((x) => !opts.method || x.refs.some((r) => opts.method!(r.site.method)));
    const lines = [
      `data-streams: ${formatInt(s.references)} data references ${s.header.sampling.layout === 'exhaustive' ? '' : 'sampled '}in ${formatInt(s.windows)} windows; ` +
        `${formatInt(s.found)} hot data streams cover ${formatPct(s.references === 0 ? 0 : s.heat / s.references, 1)} of them (${describeKindHeader(s.header)})` +
        (s.every > 1 ? `\n  only one window in ${s.every} was analysed (komorium.streams.every): ${formatInt(s.skipped)} more references were counted, not analysed` : ''),
      '',
      'Hot data streams (heat = length × times it ran; objects numbered by first use in the stream):',
    ];
    for (const [i, x] of streams.slice(0, opts.top).entries()) {
      lines.push('', `  #${i + 1}  heat ${formatInt(x.heat)} (${formatPct(s.heat === 0 ? 0 : x.heat / s.heat, 2)})  ${x.refs.length} references × ${formatInt(x.coldUses)}`);
      const shown = x.refs.slice(0, SHOWN_REFS).map((r) => [describeRef(r), where(r.site, opts)]);
      if (x.refs.length > SHOWN_REFS) shown.push([`… ${x.refs.length - SHOWN_REFS} more references`, '']);
      lines.push(...table(shown, ['l', 'l'], '      '));
    }
    return lines.join('\n') + '\n';
  },

  accuracy(exact: DataStreams, sampled: DataStreams, opts: AccuracyOptions = {}): Accuracy {
    const heats = (s: DataStreams) => new Map(s.streams.map((x) => [streamKey(x), x.heat]));
    const names = new Map<string, string>();
    for (const x of [...exact.streams, ...sampled.streams]) {
      names.set(streamKey(x), `${x.refs.slice(0, 3).map(describeRef).join(', ')}${x.refs.length > 3 ? `, … (${x.refs.length})` : ''}`);
    }
    const o = shareOverlap(heats(exact), heats(sampled), opts.cutoff);
    return { overlap: o.overlap, unit: 'hot data streams', keys: o.rows.length, worst: o.rows.slice(0, 10).map((r) => ({ name: names.get(r.key)!, exact: r.a, sampled: r.b })) };
  },
};
