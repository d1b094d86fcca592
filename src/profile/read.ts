import { readFileSync } from 'node:fs';
import { KomoriumError } from '../errors.js';
import { unescapeField } from './escape.js';
import { compareMethods, compareStrings, methodKey, type ContextNode, type HeaderEntry, type MethodEntry, type Profile, type Unit } from './model.js';
import { siteKey, type ProfileDocument, type RawSection, type SiteEntry } from './document.js';
import { DETAIL_RECORDS, readDetail, type DetailRecord } from './detail.js';

/** The newest format version this reader understands. */
export const PROFILE_VERSION = 2;

const SCALARS = ['agent', 'unit', 'granularity', 'random', 'seed', 'totalBytecodes', 'threads', 'truncated'] as const;

/**
 * Reads a profile's komorium section (the samples tree) from a file path, or from the text itself
 * when the argument contains a line break (a path never does). Throws KomoriumError naming the
 * file and line for anything malformed, or when the file has no komorium section.
 */
export function readProfile(pathOrText: string): Profile {
  return komoriumOf(readDocument(pathOrText));
}

/** Parses profile text (or UTF-8 bytes) and returns its komorium section. */
export function parseProfile(input: string | Uint8Array, name = '<text>'): Profile {
  return komoriumOf(parseDocument(input, name));
}

function komoriumOf(doc: ProfileDocument): Profile {
  if (doc.komorium === null) {
    const kinds = doc.sections.map((x) => x.kind).join(', ') || 'none';
    throw new KomoriumError(`${doc.name}: the profile has no komorium section (it has ${kinds}): this command reads Komorium's samples tree`);
  }
  return doc.komorium;
}

/** Reads a whole profile file (or text, as readProfile). */
export function readDocument(pathOrText: string): ProfileDocument {
  if (pathOrText.includes('\n')) return parseDocument(pathOrText);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(pathOrText);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new KomoriumError(`${pathOrText}: cannot read profile: ${why}`);
  }
  return parseDocument(bytes, pathOrText);
}

/** Parses profile text (or UTF-8 bytes). `name` is used in error messages. */
export function parseDocument(input: string | Uint8Array, name = '<text>'): ProfileDocument {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      throw new KomoriumError(`${name}: not a komorium profile: not valid UTF-8`);
    }
  }
  return new Parser(text, name).parse();
}

class Parser {
  private readonly lines: string[];
  private pos = 0; // index of the next line
  private lineNo = 0; // 1-based number of the current line

  constructor(text: string, private readonly name: string) {
    this.lines = text.split('\n');
    // The final line break leaves an empty last element; a file without one is still read whole.
    if (this.lines.length > 0 && this.lines[this.lines.length - 1] === '') this.lines.pop();
  }

  private fail(message: string, lineNo = this.lineNo): never {
    throw new KomoriumError(`${this.name}:${lineNo}: ${message}`);
  }

  /** The next record split into fields, skipping `#` comments; null at the end of the text. */
  private next(): string[] | null {
    while (this.pos < this.lines.length) {
      let line = this.lines[this.pos++]!;
      this.lineNo = this.pos;
      // CRLF from a git checkout with core.autocrlf: a raw CR never occurs otherwise, writers escape it.
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.startsWith('#')) continue;
      if (line === '') this.fail('empty line');
      return line.split('\t');
    }
    this.lineNo = this.lines.length + 1;
    return null;
  }

  private peekKind(): string | null {
    const save = [this.pos, this.lineNo] as const;
    const rec = this.next();
    [this.pos, this.lineNo] = save;
    return rec === null ? null : rec[0]!;
  }

  private expectFields(rec: string[], n: number, layout: string): void {
    if (rec.length !== n) this.fail(`"${rec[0]}" line has ${rec.length} fields, expected ${n}: ${layout}`);
  }

  private str(field: string, what: string): string {
    const s = unescapeField(field);
    if (typeof s !== 'string') this.fail(`${what}: ${s.error}`);
    return s;
  }

  /** A decimal integer ≥ min (min is 0 or -1), exact in a JS number. */
  private int(field: string, what: string, min = 0): number {
    if (!/^(0|-?[1-9][0-9]*)$/.test(field)) this.fail(`${what} "${field}" is not a decimal integer`);
    const v = Number(field);
    if (!Number.isSafeInteger(v)) this.fail(`${what} ${field} is too large (over 2^53-1)`);
    if (v < min) this.fail(`${what} ${field} is negative`);
    return v;
  }

  parse(): ProfileDocument {
    const first = this.next();
    if (first === null) this.fail('not a komorium profile: the file is empty', 1);
    if (first[0] !== 'komorium-profile' || first.length !== 2) {
      this.fail(`not a komorium profile: the first line must be "komorium-profile<TAB><version>", found "${first.join('\t').slice(0, 60)}"`);
    }
    if (!/^[1-9][0-9]*$/.test(first[1]!)) this.fail(`bad format version "${first[1]}"`);
    const version = Number(first[1]);
    if (version > PROFILE_VERSION) {
      this.fail(`format version ${version} is newer than this komorium-ts understands (${PROFILE_VERSION}): upgrade komorium-ts`);
    }

    const headers: HeaderEntry[] = [];
    while (this.peekKind() === 'header') {
      const rec = this.next()!;
      this.expectFields(rec, 3, 'header<TAB>key<TAB>value');
      headers.push({ key: this.str(rec[1]!, 'header key'), value: this.str(rec[2]!, 'header value') });
    }
    const doc: ProfileDocument = { name: this.name, version, headers, methods: [], sites: [], komorium: null, sections: [] };
    if (version === 1) {
      // Version 1: the komorium scalars first, then its methods and nodes; `end` counts the nodes.
      const scalars = this.readScalars();
      doc.methods = this.readMethods();
      doc.komorium = this.komorium(doc, scalars);
      this.readEnd(doc.komorium.nodes.length, 'nodes', 'node', 'node lines');
      return doc;
    }
    doc.methods = this.readMethods();
    doc.sites = this.readSites(doc.methods);
    let dataLines = doc.methods.length + doc.sites.length;
    while (this.peekKind() === 'section') {
      const rec = this.next()!;
      this.expectFields(rec, 2, 'section<TAB>kind');
      const kind = this.str(rec[1]!, 'section kind');
      if (kind === 'komorium' ? doc.komorium !== null : doc.sections.some((x) => x.kind === kind)) {
        this.fail(`a second ${kind} section`);
      }
      if (kind === 'komorium') {
        doc.komorium = this.komorium(doc, this.readScalars());
        dataLines += 1 + SCALARS.length + doc.komorium.nodes.length + this.readBreakdown(doc.komorium);
      } else {
        const raw = this.rawSection(kind);
        doc.sections.push(raw);
        dataLines += 1 + raw.records.length;
      }
    }
    this.readEnd(dataLines, 'lines after the header', 'section', 'such lines');
    return doc;
  }

  private readScalars(): Map<string, string> {
    const scalars = new Map<string, string>();
    for (const key of SCALARS) {
      const rec = this.next();
      if (rec === null) this.fail(`missing "${key}" line and "end" line: the file is truncated`);
      if (rec[0] !== key) this.fail(`expected the "${key}" line, found "${rec[0]}"${rec[0] === 'header' ? ' (headers come first)' : ''}`);
      this.expectFields(rec, 2, `${key}<TAB>value`);
      scalars.set(key, rec[1]!);
      const v = rec[1]!;
      if (key === 'agent') {
        if (this.str(v, 'agent') === '') this.fail('empty agent');
      } else if (key === 'unit') {
        if (v !== 'samples' && v !== 'bytecodes') this.fail(`unit "${v}" is neither "samples" nor "bytecodes"`);
      } else if (key === 'seed') {
        if (!/^(0|-?[1-9][0-9]*)$/.test(v)) this.fail(`seed "${v}" is not a decimal integer`);
        const seed = BigInt(v);
        if (seed < -(2n ** 63n) || seed >= 2n ** 63n) this.fail(`seed ${v} is not a Java long`);
      } else this.int(v, key);
    }
    return scalars;
  }

  private readMethods(): MethodEntry[] {
    const methods: MethodEntry[] = [];
    while (this.peekKind() === 'method') {
      const rec = this.next()!;
      this.expectFields(rec, 7, 'method<TAB>id<TAB>class<TAB>name<TAB>descriptor<TAB>source<TAB>line');
      const id = this.int(rec[1]!, 'method id');
      if (id !== methods.length) this.fail(`method id ${id} out of sequence, expected ${methods.length}`);
      const className = this.str(rec[2]!, 'class');
      const name = this.str(rec[3]!, 'method name');
      const descriptor = this.str(rec[4]!, 'descriptor');
      if (className === '' || name === '' || descriptor === '') this.fail('empty class, method name or descriptor');
      const m: MethodEntry = {
        id,
        className,
        name,
        descriptor,
        source: this.str(rec[5]!, 'source file'),
        line: this.int(rec[6]!, 'line', -1),
        key: methodKey(className, name, descriptor),
      };
      const prev = methods[methods.length - 1];
      if (prev !== undefined) {
        const c = compareMethods(prev, m);
        if (c === 0) this.fail(`method ${id} repeats method ${prev.id} (same class, name and descriptor)`);
        if (c > 0) this.fail(`method ${id} is out of order: methods are sorted by (class, name, descriptor)`);
      }
      methods.push(m);
    }
    return methods;
  }

  private readSites(methods: MethodEntry[]): SiteEntry[] {
    const sites: SiteEntry[] = [];
    while (this.peekKind() === 'site') {
      const rec = this.next()!;
      this.expectFields(rec, 9, 'site<TAB>id<TAB>method<TAB>bci<TAB>line<TAB>what<TAB>owner<TAB>name<TAB>descriptor');
      const id = this.int(rec[1]!, 'site id');
      if (id !== sites.length) this.fail(`site id ${id} out of sequence, expected ${sites.length}`);
      const mid = this.int(rec[2]!, 'method id');
      const method = methods[mid];
      if (method === undefined) this.fail(`site ${id} refers to method ${mid}, but there are ${methods.length} methods`);
      const site: SiteEntry = {
        id,
        method,
        bci: this.int(rec[3]!, 'bci', -1),
        line: this.int(rec[4]!, 'line', -1),
        what: this.str(rec[5]!, 'what'),
        owner: this.str(rec[6]!, 'owner'),
        name: this.str(rec[7]!, 'name'),
        descriptor: this.str(rec[8]!, 'descriptor'),
        key: '',
      };
      if (site.what === '') this.fail(`site ${id} has an empty "what"`);
      site.key = siteKey(method.key, site.bci, site.what);
      const prev = sites[sites.length - 1];
      if (prev !== undefined && compareSites(prev, site) >= 0) {
        this.fail(`site ${id} is out of order or repeats site ${prev.id}: sites are sorted by (method, bci, what, owner, name, descriptor, line)`);
      }
      sites.push(site);
    }
    return sites;
  }

  /** Records up to the next section or the end, kept raw for the kind's codec. */
  private rawSection(kind: string): RawSection {
    const section: RawSection = { kind, line: this.lineNo, records: [] };
    for (let k = this.peekKind(); k !== null && k !== 'section' && k !== 'end'; k = this.peekKind()) {
      const rec = this.next()!;
      section.records.push({ fields: rec, line: this.lineNo });
    }
    return section;
  }

  private komorium(doc: ProfileDocument, scalars: Map<string, string>): Profile {
    const profile: Profile = {
      name: this.name,
      version: doc.version,
      headers: doc.headers,
      agent: this.str(scalars.get('agent')!, 'agent'),
      unit: scalars.get('unit') as Unit,
      granularity: Number(scalars.get('granularity')),
      random: Number(scalars.get('random')),
      seed: BigInt(scalars.get('seed')!),
      totalBytecodes: Number(scalars.get('totalBytecodes')),
      threads: Number(scalars.get('threads')),
      truncated: Number(scalars.get('truncated')),
      methods: doc.methods,
      root: undefined as unknown as ContextNode,
      nodes: [],
      totalCounter: 0,
    };
    this.readNodes(profile);
    return profile;
  }

  /** The optional thread, self and call lines after the nodes (detail.ts); how many there were. */
  private readBreakdown(profile: Profile): number {
    const records: DetailRecord[] = [];
    while ((DETAIL_RECORDS as readonly (string | null)[]).includes(this.peekKind())) {
      const fields = this.next()!;
      records.push({ fields, line: this.lineNo });
    }
    return records.length === 0 ? 0 : readDetail(records, profile.nodes, (message, line) => this.fail(message, line));
  }

  private readEnd(count: number, what: string, expected: string, found: string): void {
    const end = this.next();
    if (end === null) this.fail('missing "end" line: the file is truncated');
    if (end[0] !== 'end') this.fail(`unexpected "${end[0]}" line, expected "${expected}" or "end"${end[0] === 'method' ? ' (methods come first)' : ''}`);
    this.expectFields(end, 2, 'end<TAB>count');
    const said = this.int(end[1]!, 'end count');
    if (said !== count) this.fail(`"end" says ${said} ${what} but the file has ${count} ${found} (truncated or edited?)`);
    const extra = this.next();
    if (extra !== null) this.fail(`"${extra[0]}" line after "end"`);
  }

  private readNodes(profile: Profile): void {
    const { methods, nodes } = profile;
    const lineOf: number[] = [];
    // The path from the root to the previous node, with the last child method id seen under each.
    const path: { node: ContextNode; lastChild: number }[] = [];
    const close = (): void => {
      const { node } = path.pop()!;
      if (node.parent !== null) {
        if (node.total === 0) this.fail(`node ${node.id} has a zero counter and nothing under it (such nodes are omitted)`, lineOf[node.id]);
        node.parent.total += node.total;
      }
    };
    while (this.peekKind() === 'node') {
      const rec = this.next()!;
      this.expectFields(rec, 5, 'node<TAB>id<TAB>parent<TAB>method<TAB>counter');
      const id = this.int(rec[1]!, 'node id');
      if (id !== nodes.length) this.fail(`node id ${id} out of sequence, expected ${nodes.length}`);
      const parentId = this.int(rec[2]!, 'parent id', -1);
      const methodId = this.int(rec[3]!, 'method id', -1);
      const counter = this.int(rec[4]!, 'counter');
      lineOf.push(this.lineNo);
      if (id === 0) {
        if (parentId !== -1 || methodId !== -1 || counter !== 0) this.fail('node 0 must be the root: "node<TAB>0<TAB>-1<TAB>-1<TAB>0"');
        const root: ContextNode = { id, parent: null, method: null, counter, total: 0, depth: 0, children: [], profile };
        nodes.push(root);
        profile.root = root;
        path.push({ node: root, lastChild: -1 });
        continue;
      }
      if (parentId === -1) this.fail(`node ${id} has no parent: only node 0 is the root`);
      if (parentId >= id) this.fail(`node ${id} refers to parent ${parentId}, which does not precede it`);
      if (methodId === -1) this.fail(`node ${id} has no method: only the root has method -1`);
      if (methodId >= methods.length) this.fail(`node ${id} refers to method ${methodId}, but there are ${methods.length} methods`);
      while (path.length > 0 && path[path.length - 1]!.node.id !== parentId) close();
      if (path.length === 0) this.fail(`node ${id}: parent ${parentId} is not on the path to the previous node (nodes must be in depth-first preorder)`);
      const top = path[path.length - 1]!;
      if (methodId === top.lastChild) this.fail(`node ${id} repeats the calling context of an earlier sibling (method ${methodId} under node ${parentId})`);
      if (methodId < top.lastChild) this.fail(`node ${id} is out of order: children are sorted by method id`);
      top.lastChild = methodId;
      const node: ContextNode = {
        id,
        parent: top.node,
        method: methods[methodId]!,
        counter,
        total: counter,
        depth: top.node.depth + 1,
        children: [],
        profile,
      };
      top.node.children.push(node);
      nodes.push(node);
      path.push({ node, lastChild: -1 });
    }
    if (nodes.length === 0) {
      const rec = this.peekKind();
      this.fail(rec === null ? 'missing nodes and "end" line: the file is truncated' : `expected the root "node" line, found "${rec}"`, rec === null ? this.lines.length + 1 : this.pos + 1);
    }
    while (path.length > 0) close();
    profile.totalCounter = profile.root.total;
  }
}

function compareSites(a: SiteEntry, b: SiteEntry): number {
  return (
    a.method.id - b.method.id ||
    a.bci - b.bci ||
    compareStrings(a.what, b.what) ||
    compareStrings(a.owner, b.owner) ||
    compareStrings(a.name, b.name) ||
    compareStrings(a.descriptor, b.descriptor) ||
    a.line - b.line
  );
}
