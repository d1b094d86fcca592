/**
 * The in-memory model of a komorium profile (docs/profile-format.md): a method table and a calling
 * context tree. Everything the file holds is kept (headers included, in order) so that writing a
 * profile that was read gives the same bytes.
 */
import { combineCalls, combineSelf, type CallEntry, type SelfEntry } from './breakdown.js';

/** One `header` line. Headers describe the run (JVM, OS, date) and are never compared. */
export interface HeaderEntry {
  key: string;
  value: string;
}

/** One `method` line. `id` is the index in `Profile.methods`. */
export interface MethodEntry {
  id: number;
  /** Internal form, `com/foo/Bar`; `<truncated>` for the marker of a truncated stack. */
  className: string;
  name: string;
  descriptor: string;
  /** SourceFile attribute, '' when unknown. */
  source: string;
  /** First line of the method, -1 when unknown. */
  line: number;
  /** The method key (class + name + descriptor) that identifies a method across profiles. */
  key: string;
}

/** A calling context: the stack of methods from the root down to `method`. */
export interface ContextNode {
  /** Preorder index in `Profile.nodes`; 0 is the root. */
  id: number;
  parent: ContextNode | null;
  /** null only for the root. */
  method: MethodEntry | null;
  /** Self counter: samples (unit samples) or bytecodes (unit bytecodes) whose stack ended here. */
  counter: number;
  /** Inclusive counter: this context and everything it called. */
  total: number;
  /** 0 for the root, 1 for its children, ... */
  depth: number;
  children: ContextNode[];
  /** The profile the node belongs to, for the per-profile totals that estimates need. */
  profile: Profile;
  /** The self counter by thread and source line, when recorded (entries sum to `counter`). */
  self?: SelfEntry[];
  /** The inclusive counter by the line of the parent's method that called this context, when recorded. */
  calls?: CallEntry[];
}

export type Unit = 'samples' | 'bytecodes';

export interface Profile {
  /** File name (or `<text>`) for messages. */
  name: string;
  version: number;
  headers: HeaderEntry[];
  /** `sampling`, `exact` or the class name of a custom agent. */
  agent: string;
  unit: Unit;
  granularity: number;
  /** Upper bound (exclusive) of the random addition to the granularity; 0 when constant. */
  random: number;
  /** A Java long, so it may be negative or beyond 2^53. */
  seed: bigint;
  totalBytecodes: number;
  threads: number;
  truncated: number;
  /** Sorted by (class, name, descriptor); methods[i].id === i. */
  methods: MethodEntry[];
  root: ContextNode;
  /** All contexts in depth-first preorder, children sorted by method id; nodes[i].id === i. */
  nodes: ContextNode[];
  /** Σ counter over all contexts (the denominator of rce, seed 002 §7.1). */
  totalCounter: number;
}

/** The class of the pseudo-method that marks a reified stack cut at `komorium.stackSize`. */
export const TRUNCATED_CLASS = '<truncated>';

/** The class of the pseudo-method that stands for the frames between a call-out and its callback. */
export const UNINSTRUMENTED_CLASS = '[uninstrumented]';

/**
 * The method key. Class names cannot contain '.', method names cannot contain '.' (JVMS 4.2.2), and a
 * descriptor starts with '(', so NUL joins them unambiguously for every name a JVM would load.
 */
export function methodKey(className: string, name: string, descriptor: string): string {
  return `${className}\u0000${name}\u0000${descriptor}`;
}

/** Java's String.compareTo (UTF-16 code units), which is also what JS `<` does: the order the format fixes. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareMethods(
  a: Pick<MethodEntry, 'className' | 'name' | 'descriptor'>,
  b: Pick<MethodEntry, 'className' | 'name' | 'descriptor'>,
): number {
  return compareStrings(a.className, b.className) || compareStrings(a.name, b.name) || compareStrings(a.descriptor, b.descriptor);
}

/** rce (seed 002 §7.1) of a counter in a profile; 0 for an empty profile rather than NaN. */
export function share(profile: Profile, counter: number): number {
  return profile.totalCounter === 0 ? 0 : counter / profile.totalCounter;
}

/**
 * Estimated bytecodes of a context (seed 002 §7.2): rce × totalBytecodes, self by default or
 * inclusive (`'total'`).
 */
export function estimatedBytecodes(node: ContextNode, kind: 'self' | 'total' = 'self'): number {
  return share(node.profile, kind === 'self' ? node.counter : node.total) * node.profile.totalBytecodes;
}

/** The methods from the root's child down to `node` (root first). */
export function stackOf(node: ContextNode): MethodEntry[] {
  const stack: MethodEntry[] = [];
  for (let n: ContextNode | null = node; n !== null && n.method !== null; n = n.parent) stack.push(n.method);
  return stack.reverse();
}

/** A mutable tree used to build a profile before it is numbered (merge, tests, fixtures). */
export interface TreeDraft {
  method: { className: string; name: string; descriptor: string; source?: string; line?: number } | null;
  counter: number;
  children: TreeDraft[];
  self?: readonly SelfEntry[];
  calls?: readonly CallEntry[];
}

export interface ProfileFields {
  name?: string;
  version?: number;
  headers?: HeaderEntry[];
  agent: string;
  unit: Unit;
  granularity: number;
  random?: number;
  seed?: bigint;
  totalBytecodes: number;
  threads?: number;
  truncated?: number;
}

/** The scalars of a profile, for rebuilding it from an edited draft (threads, fold). */
export function fieldsOf(p: Profile): ProfileFields {
  return {
    name: p.name,
    version: p.version,
    headers: p.headers,
    agent: p.agent,
    unit: p.unit,
    granularity: p.granularity,
    random: p.random,
    seed: p.seed,
    totalBytecodes: p.totalBytecodes,
    threads: p.threads,
    truncated: p.truncated,
  };
}

/**
 * Builds a canonical profile from a draft tree: methods sorted and numbered, children sorted by
 * method id, sibling contexts of the same method merged, and contexts with nothing under them
 * dropped, exactly as the format requires. Extra methods (not referenced) are not listed.
 */
export function buildProfile(fields: ProfileFields, rootDraft: TreeDraft): Profile {
  const byKey = new Map<string, MethodEntry>();
  const collect = (d: TreeDraft): void => {
    const stack = [d];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (cur.method !== null) {
        const m = cur.method;
        const key = methodKey(m.className, m.name, m.descriptor);
        const known = byKey.get(key);
        if (known === undefined) {
          byKey.set(key, { id: -1, className: m.className, name: m.name, descriptor: m.descriptor, source: m.source ?? '', line: m.line ?? -1, key });
        } else if (known.source === '' && m.source) {
          // Prefer the profile that knows where the method is (a merge of builds with and without debug info).
          known.source = m.source;
          known.line = m.line ?? -1;
        }
      }
      // Reverse push: preorder, so the first profile of a merge names a method (source, line).
      for (let i = cur.children.length - 1; i >= 0; i--) stack.push(cur.children[i]!);
    }
  };
  collect(rootDraft);
  const methods = [...byKey.values()].sort(compareMethods);
  methods.forEach((m, i) => (m.id = i));

  const profile: Profile = {
    name: fields.name ?? '<merged>',
    version: fields.version ?? 2,
    headers: fields.headers ?? [],
    agent: fields.agent,
    unit: fields.unit,
    granularity: fields.granularity,
    random: fields.random ?? 0,
    seed: fields.seed ?? 0n,
    totalBytecodes: fields.totalBytecodes,
    threads: fields.threads ?? 0,
    truncated: fields.truncated ?? 0,
    methods,
    root: undefined as unknown as ContextNode,
    nodes: [],
    totalCounter: 0,
  };

  // Merge same-method siblings into one context and sort; iterative so deep stacks cannot overflow.
  const root: ContextNode = { id: 0, parent: null, method: null, counter: rootDraft.counter, total: 0, depth: 0, children: [], profile };
  const work: { node: ContextNode; drafts: TreeDraft[] }[] = [{ node: root, drafts: [rootDraft] }];
  while (work.length > 0) {
    const { node, drafts } = work.pop()!;
    const groups = new Map<MethodEntry, TreeDraft[]>();
    for (const d of drafts) {
      for (const c of d.children) {
        if (c.method === null) throw new Error('buildProfile: only the root has no method');
        const m = byKey.get(methodKey(c.method.className, c.method.name, c.method.descriptor))!;
        let g = groups.get(m);
        if (g === undefined) groups.set(m, (g = []));
        g.push(c);
      }
    }
    for (const [m, g] of [...groups].sort((x, y) => x[0].id - y[0].id)) {
      const child: ContextNode = {
        id: -1,
        parent: node,
        method: m,
        counter: g.reduce((s, d) => s + d.counter, 0),
        total: 0,
        depth: node.depth + 1,
        children: [],
        profile,
      };
      const self = combineSelf(g);
      if (self) child.self = self;
      const calls = combineCalls(g);
      if (calls) child.calls = calls;
      node.children.push(child);
      work.push({ node: child, drafts: g });
    }
  }
  pruneAndNumber(profile, root);
  return profile;
}

/** Drops empty subtrees, numbers contexts in preorder, computes totals (iteratively). */
function pruneAndNumber(profile: Profile, root: ContextNode): void {
  // Totals bottom-up: a reverse preorder visits every child before its parent.
  const pre: ContextNode[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    pre.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  for (let i = pre.length - 1; i >= 0; i--) {
    const n = pre[i]!;
    n.children = n.children.filter((c) => c.total > 0);
    n.total = n.counter + n.children.reduce((s, c) => s + c.total, 0);
  }
  profile.root = root;
  profile.nodes = [];
  const s2 = [root];
  while (s2.length > 0) {
    const n = s2.pop()!;
    n.id = profile.nodes.length;
    profile.nodes.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) s2.push(n.children[i]!);
  }
  profile.totalCounter = root.total;
}

/** Turns a profile back into a draft (for merging or editing). */
export function toDraft(profile: Profile): TreeDraft {
  const drafts = new Map<ContextNode, TreeDraft>();
  let rootDraft: TreeDraft | undefined;
  for (const n of profile.nodes) {
    const d: TreeDraft = { method: n.method, counter: n.counter, children: [], self: n.self, calls: n.calls };
    drafts.set(n, d);
    if (n.parent === null) rootDraft = d;
    else drafts.get(n.parent)!.children.push(d);
  }
  return rootDraft!;
}
