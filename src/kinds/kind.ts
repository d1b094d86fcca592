/**
 * A profile kind: what it asks the framework to instrument (events.ts KindProbes) and how its
 * section of a profile file is read, written, merged, reported and compared. A kind is one
 * folder, src/kinds/<name>/: index.ts exports `kind`, section.ts its codec, and its runtime class
 * (<Name>.java, built into the runtime jar) records the events. The registry (index.ts) finds the
 * folders; nothing else names a kind.
 */
import type { KindProbes } from '../framework/events.js';
import type { SectionReader } from '../profile/document.js';
import type { MethodEntry } from '../profile/model.js';
import type { SiteEntry } from '../profile/document.js';
import type { CallGraph } from './edge-records.js';
import type { TableIds } from '../profile/write.js';
import type { NameOptions } from '../report/names.js';
import type { BlockCodeLookup } from '../report/block-code.js';

export interface ReportOptions extends NameOptions {
  /** Rows per table. */
  top: number;
  /** Only rows about methods this matches (a caller, a callee, an accessing method). */
  method?: (m: MethodEntry) => boolean;
  /** Every row in full (`report --subpaths`): a kind may list what a row is made of. */
  detail?: boolean;
  /** The bytecode and source lines of the block that starts at a site, where the report was given the classes (`--classes`). */
  blockCode?: BlockCodeLookup;
  /** Folders of source files (`--source-path`), for views that show source lines. */
  sourcePath?: readonly string[];
}

/** The comparison of a sampled profile with the exhaustive one (seed 000 §4.4). */
export interface Accuracy {
  /** Σ over keys of min(share in exact, share in sampled), in [0, 1]. */
  overlap: number;
  /** What is compared, in words ("call edges", "fields"). */
  unit: string;
  /** Keys in either profile. */
  keys: number;
  /** The keys that lose the most overlap: name, exact share, sampled share. */
  worst: { name: string; exact: number; sampled: number }[];
  /** Further findings of the kind, one line each. */
  notes?: string[];
}

export interface SectionCodec<S> {
  read(reader: SectionReader): S;
  methods(s: S): MethodEntry[];
  sites(s: S): SiteEntry[];
  lines(s: S, ids: TableIds): string[];
  /** Sums sections of the same kind; throws KomoriumError naming files when they cannot be summed. */
  merge(sections: S[], names: string[]): S;
  report(s: S, opts: ReportOptions): string;
  /** A self-contained HTML page of the section, for kinds that have one (`report -o x.html`). */
  html?(s: S, opts: ReportOptions): string;
  /**
   * The overlap of `sampled` with the exhaustive `exact`: a section of this kind, or of a kind
   * this one is measured against (ProfileKind.measuredAgainst), whose codec reads it.
   */
  accuracy(exact: S, sampled: S, opts?: AccuracyOptions): Accuracy;
  /** The section's call graph (call sites and the methods that ran there), when it is one (report --format dot draws it, pprof carries it). */
  callGraph?(s: S): CallGraph;
}

export interface AccuracyOptions {
  /** Compare only each profile's top members that make this share of it (seed 001 §5: 0.9); 1 or absent: all. */
  cutoff?: number;
}

export interface ProfileKind extends KindProbes {
  /** One line for --help and reports. */
  readonly title: string;
  /**
   * Kinds whose exhaustive sections a section of this kind is measured against by `diff
   * --accuracy` when the exact profile has no section of this kind (cbs against call-edges: the
   * same edges, counted instead of sampled). The section codec's accuracy() reads theirs too.
   */
  readonly measuredAgainst?: readonly string[];
  // A kind's section type is its own business; the registry handles them all alike.
  readonly section: SectionCodec<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
