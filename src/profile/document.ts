/**
 * A whole profile file (docs/profile-format.md, version 2): the header, the shared method and
 * site tables, and one section per profile kind. The `komorium` section is the samples tree
 * (model.ts Profile); every other kind's section stays raw records here, and the kind's own codec
 * (src/kinds/<kind>/section.ts) reads it, so this layer knows no kind but Komorium.
 */
import { KomoriumError } from '../errors.js';
import { unescapeField } from './escape.js';
import type { HeaderEntry, MethodEntry, Profile } from './model.js';

/** One `site` line: a place in a method's original code, and the member its instruction names. */
export interface SiteEntry {
  id: number;
  method: MethodEntry;
  /** Bytecode index in the original method. */
  bci: number;
  /** Source line, -1 when unknown. */
  line: number;
  /** The instruction's opcode name (invokevirtual, getfield, ...) or entry, block, backedge. */
  what: string;
  /** The member the instruction names (declaring class where it was resolved); empty for entry, block, backedge. */
  owner: string;
  name: string;
  descriptor: string;
  /** Identifies the site across profiles: method key, bytecode index and what. */
  key: string;
}

/** One data line of a section, split into fields, with its line number for messages. */
export interface RawRecord {
  fields: string[];
  line: number;
}

export interface RawSection {
  kind: string;
  /** Line number of the `section` line. */
  line: number;
  records: RawRecord[];
}

export interface ProfileDocument {
  /** File name (or `<text>`) for messages. */
  name: string;
  version: number;
  headers: HeaderEntry[];
  /** Sorted by (class, name, descriptor); methods[i].id === i. */
  methods: MethodEntry[];
  /** Sorted by (method, bci, what, owner, name, descriptor); sites[i].id === i. */
  sites: SiteEntry[];
  /** The komorium section, when the file has one. */
  komorium: Profile | null;
  /** The other sections, in file order. */
  sections: RawSection[];
}

export function siteKey(methodKey: string, bci: number, what: string): string {
  return `${methodKey}\u0000${bci}\u0000${what}`;
}

/** Typed access to a raw section's records, with errors that name the file and line. */
export class SectionReader {
  constructor(
    readonly doc: ProfileDocument,
    readonly section: RawSection,
  ) {}

  fail(message: string, line = this.section.line): never {
    throw new KomoriumError(`${this.doc.name}:${line}: ${message}`);
  }

  /** The records named `name`, each checked to have `fields` fields (the name included). */
  records(name: string, fields: number, layout: string): RawRecord[] {
    return this.section.records.filter((r) => {
      if (r.fields[0] !== name) return false;
      if (r.fields.length !== fields) this.fail(`"${name}" line has ${r.fields.length} fields, expected ${fields}: ${layout}`, r.line);
      return true;
    });
  }

  /** The one record `name<TAB>value`; its value. */
  scalar(name: string): RawRecord {
    const found = this.section.records.filter((r) => r.fields[0] === name);
    if (found.length !== 1) this.fail(`the ${this.section.kind} section needs exactly one "${name}" line, found ${found.length}`);
    if (found[0]!.fields.length !== 2) this.fail(`"${name}" line has ${found[0]!.fields.length} fields, expected 2`, found[0]!.line);
    return found[0]!;
  }

  /** Rejects records other than `known`, so that a writer bug shows at once. */
  only(known: readonly string[]): void {
    for (const r of this.section.records) {
      if (!known.includes(r.fields[0]!)) this.fail(`unknown record "${r.fields[0]}" in the ${this.section.kind} section`, r.line);
    }
  }

  int(r: RawRecord, index: number, what: string, min = 0): number {
    const field = r.fields[index]!;
    if (!/^(0|-?[1-9][0-9]*)$/.test(field)) this.fail(`${what} "${field}" is not a decimal integer`, r.line);
    const v = Number(field);
    if (!Number.isSafeInteger(v)) this.fail(`${what} ${field} is too large (over 2^53-1)`, r.line);
    if (v < min) this.fail(`${what} ${field} is below ${min}`, r.line);
    return v;
  }

  str(r: RawRecord, index: number, what: string): string {
    const s = unescapeField(r.fields[index]!);
    if (typeof s !== 'string') this.fail(`${what}: ${s.error}`, r.line);
    return s;
  }

  method(r: RawRecord, index: number): MethodEntry {
    const id = this.int(r, index, 'method id');
    const m = this.doc.methods[id];
    if (m === undefined) this.fail(`method ${id} is not in the method table (${this.doc.methods.length} methods)`, r.line);
    return m;
  }

  site(r: RawRecord, index: number): SiteEntry {
    const id = this.int(r, index, 'site id');
    const s = this.doc.sites[id];
    if (s === undefined) this.fail(`site ${id} is not in the site table (${this.doc.sites.length} sites)`, r.line);
    return s;
  }
}
