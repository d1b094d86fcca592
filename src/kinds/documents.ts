/**
 * Whole profile files with every kind's section: reading each section through its kind's codec,
 * merging files section by section, reporting them, and the accuracy of a sampled profile against
 * the exhaustive one (seed 000 §4.4 for the framework's kinds, seed 002 §7.1 for Komorium's).
 */
import { KomoriumError } from '../errors.js';
import { SectionReader, type ProfileDocument } from '../profile/document.js';
import { mergeProfiles } from '../profile/analysis.js';
import { komoriumAccuracy } from '../profile/accuracy.js';
import type { HeaderEntry, Profile } from '../profile/model.js';
import { writeDocument, type SectionOut } from '../profile/write.js';
import { kindNamed, KINDS } from './index.js';
import type { Accuracy, AccuracyOptions, ProfileKind, ReportOptions } from './kind.js';
import { callGraphDot } from './call-graph.js';
import type { CallGraph } from './edge-records.js';

export interface ParsedSection {
  kind: ProfileKind;
  data: unknown;
}

/** Every section of `doc` but Komorium's, read by its kind's codec. */
export function parsedSections(doc: ProfileDocument): ParsedSection[] {
  return doc.sections.map((raw) => {
    const kind = kindNamed(raw.kind);
    if (!kind) {
      throw new KomoriumError(
        `${doc.name}:${raw.line}: a section of kind "${raw.kind}", which this komorium-ts does not know (it knows komorium, ${KINDS.map((k) => k.name).join(', ')}): upgrade komorium-ts`,
      );
    }
    return { kind, data: kind.section.read(new SectionReader(doc, raw)) };
  });
}

function sectionOut(s: ParsedSection): SectionOut {
  const codec = s.kind.section;
  return { kind: s.kind.name, methods: codec.methods(s.data), sites: codec.sites(s.data), lines: (ids) => codec.lines(s.data, ids) };
}

/** What `doc` holds, for messages: `komorium, call-edges` (or '' when nothing). */
export function kindsIn(doc: ProfileDocument): string {
  return [...(doc.komorium ? ['komorium'] : []), ...doc.sections.map((s) => s.kind)].join(', ');
}

/** The text report of every section of `doc` (Komorium's is rendered by the caller), or of the kind `only`. */
export function reportSections(doc: ProfileDocument, opts: ReportOptions, only?: string): string {
  return parsedSections(doc)
    .filter((s) => only === undefined || s.kind.name === only)
    .map((s) => s.kind.section.report(s.data, opts))
    .join('\n');
}

export interface KindGraph extends CallGraph {
  kind: string;
}

/** The call graph of every section of `doc` whose kind records one, in file order. */
export function callGraphs(doc: ProfileDocument): KindGraph[] {
  return parsedSections(doc)
    .filter((s) => s.kind.section.callGraph !== undefined)
    .map((s) => ({ kind: s.kind.name, ...s.kind.section.callGraph!(s.data) }));
}

/** The kinds whose sections are call graphs, for messages: `call-edges, call-pairs or cbs`. */
export function callGraphKinds(): string {
  const names = KINDS.filter((k) => k.section.callGraph !== undefined).map((k) => k.name).sort();
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** Every call-graph section of `doc` as a Graphviz digraph (null when it has none). */
export function dotSections(doc: ProfileDocument, opts: ReportOptions): string | null {
  const graphs = callGraphs(doc);
  if (graphs.length === 0) return null;
  return graphs.map((g) => callGraphDot(g.kind, g.edges, opts)).join('\n');
}

/** The HTML page of the first section whose kind has one, or null. */
export function htmlOfSections(doc: ProfileDocument, opts: ReportOptions): string | null {
  const s = parsedSections(doc).find((x) => x.kind.section.html !== undefined);
  return s ? s.kind.section.html!(s.data, opts) : null;
}

/** Sums profiles section by section; every file must hold the same kinds. */
export function mergeDocuments(docs: ProfileDocument[]): { text: string; komorium: Profile | null; kinds: string[] } {
  if (docs.length === 0) throw new KomoriumError('merge: no profiles given');
  const first = docs[0]!;
  const kindsOf = kindsIn;
  for (const d of docs.slice(1)) {
    if (kindsOf(d) !== kindsOf(first)) {
      throw new KomoriumError(`merge: ${d.name} holds ${kindsOf(d) || 'no section'} but ${first.name} holds ${kindsOf(first) || 'no section'}: only profiles of the same kinds can be merged`);
    }
  }
  const komorium = first.komorium ? mergeProfiles(docs.map((d) => d.komorium!)) : null;
  const names = docs.map((d) => d.name);
  const parsed = docs.map(parsedSections);
  const sections: SectionOut[] = parsed[0]!.map((s, i) =>
    sectionOut({ kind: s.kind, data: s.kind.section.merge(parsed.map((p) => p[i]!.data), names) }),
  );
  const headers: HeaderEntry[] = [...first.headers.filter((h) => h.key !== 'merged'), { key: 'merged', value: `${docs.length} profiles` }];
  return { text: writeDocument(headers, komorium, sections), komorium, kinds: kindsOf(first).split(', ') };
}

export interface KindAccuracy extends Accuracy {
  kind: string;
  /** The exact profile's kind it was measured against, when not its own (cbs against call-edges). */
  against?: string;
  /** What an ideal sampler taking as many samples would reach (Komorium's views, when B is sampled). */
  ideal?: number;
}

/**
 * The accuracy of `sampled` against `exact` for every kind the two share: the paper's overlap,
 * Σ over keys of min(share in exact, share in sampled). A sampled section is measured against the
 * exact profile's section of a kind it names in measuredAgainst when there is one (so one file
 * with an exhaustive call-edges section and a cbs section can be measured against itself), else
 * against the section of its own kind.
 */
export function accuracyOf(exact: ProfileDocument, sampled: ProfileDocument, opts: AccuracyOptions = {}): KindAccuracy[] {
  const out: KindAccuracy[] = [];
  if (exact.komorium && sampled.komorium) for (const v of komoriumAccuracy(exact.komorium, sampled.komorium)) out.push({ kind: 'komorium', ...v });
  const exactSections = new Map(parsedSections(exact).map((s) => [s.kind.name, s]));
  for (const s of parsedSections(sampled)) {
    const against = (s.kind.measuredAgainst ?? []).find((k) => exactSections.has(k));
    const e = exactSections.get(against ?? s.kind.name);
    if (!e) continue;
    out.push({ kind: s.kind.name, ...(against !== undefined ? { against } : {}), ...s.kind.section.accuracy(e.data, s.data, opts) });
  }
  if (out.length === 0) {
    const kinds = (d: ProfileDocument) => kindsIn(d) || 'none';
    throw new KomoriumError(`diff --accuracy: ${exact.name} (${kinds(exact)}) and ${sampled.name} (${kinds(sampled)}) share no profile kind`);
  }
  return out;
}
