import { escapeField } from './escape.js';
import { compareMethods, compareStrings, type ContextNode, type HeaderEntry, type MethodEntry, type Profile } from './model.js';
import type { SiteEntry } from './document.js';
import { detailLines } from './detail.js';

/**
 * Writes a profile in the canonical form of docs/profile-format.md. The order comes from the model,
 * not from stored ids: methods sorted by (class, name, descriptor), contexts in preorder with
 * children sorted by method id. A canonical file that was read is therefore written back
 * byte-identically, and a merged or edited profile comes out canonical too.
 */
export function writeProfile(profile: Profile): string {
  if (profile.version === 1) return writeVersion1(profile);
  return writeDocument(profile.headers, profile, []);
}

/** Ids of the file's tables, for sections writing their records. */
export interface TableIds {
  method(m: MethodEntry): number;
  site(s: SiteEntry): number;
}

/** A kind's section ready to be written: what it refers to, and its records given the table ids. */
export interface SectionOut {
  kind: string;
  methods: readonly MethodEntry[];
  sites: readonly SiteEntry[];
  lines(ids: TableIds): string[];
}

/**
 * A version 2 file: the methods and sites that some section refers to, sorted and numbered, then
 * the komorium section (if any) and the others in the order given. Entries are matched by key, so
 * sections read from different files (a merge) share one table.
 */
export function writeDocument(headers: readonly HeaderEntry[], komorium: Profile | null, sections: readonly SectionOut[]): string {
  const methods = new Map<string, MethodEntry>();
  const addMethod = (m: MethodEntry) => {
    const known = methods.get(m.key);
    if (known === undefined) methods.set(m.key, m);
    else if (known.source === '' && m.source !== '') methods.set(m.key, m);
  };
  if (komorium) for (const n of komorium.nodes) if (n.method) addMethod(n.method);
  const sites = new Map<string, SiteEntry>();
  for (const sec of sections) {
    for (const m of sec.methods) addMethod(m);
    for (const site of sec.sites) {
      addMethod(site.method);
      if (!sites.has(site.key)) sites.set(site.key, site);
    }
  }
  const methodList = [...methods.values()].sort(compareMethods);
  const methodIds = new Map(methodList.map((m, i) => [m.key, i]));
  const siteList = [...sites.values()].sort(
    (a, b) =>
      methodIds.get(a.method.key)! - methodIds.get(b.method.key)! ||
      a.bci - b.bci ||
      compareStrings(a.what, b.what) ||
      compareStrings(a.owner, b.owner) ||
      compareStrings(a.name, b.name) ||
      compareStrings(a.descriptor, b.descriptor) ||
      a.line - b.line,
  );
  const siteIds = new Map(siteList.map((x, i) => [x.key, i]));
  const ids: TableIds = {
    method: (m) => methodIds.get(m.key) ?? fail(`method ${m.key} is not in the table`),
    site: (x) => siteIds.get(x.key) ?? fail(`site ${x.key} is not in the table`),
  };
  const out: string[] = ['komorium-profile\t2'];
  for (const h of headers) out.push(`header\t${escapeField(h.key)}\t${escapeField(h.value)}`);
  const data: string[] = [];
  methodList.forEach((m, i) =>
    data.push(`method\t${i}\t${escapeField(m.className)}\t${escapeField(m.name)}\t${escapeField(m.descriptor)}\t${escapeField(m.source)}\t${m.line}`),
  );
  siteList.forEach((x, i) =>
    data.push(
      `site\t${i}\t${ids.method(x.method)}\t${x.bci}\t${x.line}\t${escapeField(x.what)}\t${escapeField(x.owner)}\t${escapeField(x.name)}\t${escapeField(x.descriptor)}`,
    ),
  );
  if (komorium) data.push('section\tkomorium', ...komoriumLines(komorium, (m) => ids.method(m)));
  for (const sec of sections) data.push(`section\t${escapeField(sec.kind)}`, ...sec.lines(ids));
  out.push(...data, `end\t${data.length}`);
  return out.join('\n') + '\n';
}

function fail(message: string): never {
  throw new Error(`writeDocument: ${message}`);
}

/** The komorium section's scalars and nodes, children in method order. */
function komoriumLines(profile: Profile, methodId: (m: MethodEntry) => number): string[] {
  const out = [
    `agent\t${escapeField(profile.agent)}`,
    `unit\t${profile.unit}`,
    `granularity\t${profile.granularity}`,
    `random\t${profile.random}`,
    `seed\t${profile.seed}`,
    `totalBytecodes\t${profile.totalBytecodes}`,
    `threads\t${profile.threads}`,
    `truncated\t${profile.truncated}`,
  ];
  let count = 0;
  const ids = new Map<ContextNode, number>();
  const stack: { node: ContextNode; parentId: number }[] = [{ node: profile.root, parentId: -1 }];
  while (stack.length > 0) {
    const { node, parentId } = stack.pop()!;
    const id = count++;
    ids.set(node, id);
    out.push(`node\t${id}\t${parentId}\t${node.method === null ? -1 : methodId(node.method)}\t${node.counter}`);
    const kids = [...node.children].sort((a, b) => methodId(a.method!) - methodId(b.method!));
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, parentId: id });
  }
  out.push(...detailLines(profile.nodes, (n) => ids.get(n)!));
  return out;
}

/** Version 1 (komorium only), for profiles read in that version: written back byte-identically. */
function writeVersion1(profile: Profile): string {

  const out: string[] = [`komorium-profile\t${profile.version}`];
  for (const h of profile.headers) out.push(`header\t${escapeField(h.key)}\t${escapeField(h.value)}`);
  out.push(
    `agent\t${escapeField(profile.agent)}`,
    `unit\t${profile.unit}`,
    `granularity\t${profile.granularity}`,
    `random\t${profile.random}`,
    `seed\t${profile.seed}`,
    `totalBytecodes\t${profile.totalBytecodes}`,
    `threads\t${profile.threads}`,
    `truncated\t${profile.truncated}`,
  );
  const methods = [...profile.methods].sort(compareMethods);
  const ids = new Map(methods.map((m, i) => [m, i]));
  methods.forEach((m, i) =>
    out.push(`method\t${i}\t${escapeField(m.className)}\t${escapeField(m.name)}\t${escapeField(m.descriptor)}\t${escapeField(m.source)}\t${m.line}`),
  );

  let count = 0;
  const stack: { node: ContextNode; parentId: number }[] = [{ node: profile.root, parentId: -1 }];
  while (stack.length > 0) {
    const { node, parentId } = stack.pop()!;
    const id = count++;
    const mid = node.method === null ? -1 : ids.get(node.method);
    if (mid === undefined) throw new Error(`writeProfile: context ${node.id} refers to a method not in the method table`);
    out.push(`node\t${id}\t${parentId}\t${mid}\t${node.counter}`);
    const kids = [...node.children].sort((a, b) => ids.get(a.method!)! - ids.get(b.method!)!);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, parentId: id });
  }
  out.push(`end\t${count}`);
  return out.join('\n') + '\n';
}
