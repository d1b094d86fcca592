/**
 * Reading and writing the breakdown of contexts' counters (breakdown.ts). In the komorium section, after the node lines (all optional):
 *   thread <id> <name>                  names sorted (UTF-16 order), ids from 0
 *   self <node> <thread|-1> <line|-1> <counter>   sorted by node, thread, line; Σ = the node's counter
 *   call <node> <line> <counter>        sorted by node, line; Σ ≤ the node's inclusive counter
 */
import { unescapeField, escapeField } from './escape.js';
import { compareStrings, type ContextNode } from './model.js';
import type { CallEntry, SelfEntry } from './breakdown.js';

export interface DetailRecord {
  fields: string[];
  line: number;
}

/** Every thread name the contexts' self entries mention, sorted: the file's thread table. */
export function threadNames(nodes: readonly ContextNode[]): string[] {
  const names = new Set<string>();
  for (const n of nodes) for (const e of n.self ?? []) if (e.thread !== null) names.add(e.thread);
  return [...names].sort(compareStrings);
}

/** The detail records of a profile, for nodes numbered by `idOf` (preorder). */
export function detailLines(nodes: readonly ContextNode[], idOf: (n: ContextNode) => number): string[] {
  const threads = threadNames(nodes);
  const threadId = new Map(threads.map((t, i) => [t, i]));
  const out = threads.map((t, i) => `thread\t${i}\t${escapeField(t)}`);
  const ordered = [...nodes].sort((a, b) => idOf(a) - idOf(b));
  for (const n of ordered) {
    for (const e of n.self ?? []) out.push(`self\t${idOf(n)}\t${e.thread === null ? -1 : threadId.get(e.thread)}\t${e.line}\t${e.counter}`);
  }
  for (const n of ordered) for (const e of n.calls ?? []) out.push(`call\t${idOf(n)}\t${e.line}\t${e.counter}`);
  return out;
}

export const DETAIL_RECORDS = ['thread', 'self', 'call'] as const;

/**
 * Reads the detail records into the nodes (numbered as in the file), checking everything the
 * format requires. `fail(message, line)` throws.
 */
export function readDetail(records: readonly DetailRecord[], nodes: readonly ContextNode[], fail: (message: string, line: number) => never): number {
  const int = (r: DetailRecord, i: number, what: string, min: number): number => {
    const f = r.fields[i]!;
    if (!/^(0|-?[1-9][0-9]*)$/.test(f)) fail(`${what} "${f}" is not a decimal integer`, r.line);
    const v = Number(f);
    if (!Number.isSafeInteger(v)) fail(`${what} ${f} is too large (over 2^53-1)`, r.line);
    if (v < min) fail(`${what} ${f} is below ${min}`, r.line);
    return v;
  };
  const expect = (r: DetailRecord, n: number, layout: string) => {
    if (r.fields.length !== n) fail(`"${r.fields[0]}" line has ${r.fields.length} fields, expected ${n}: ${layout}`, r.line);
  };
  const node = (r: DetailRecord): ContextNode => {
    const id = int(r, 1, 'node id', 0);
    const n = nodes[id];
    if (n === undefined || n.parent === null) fail(`node ${id} is not a calling context of this profile`, r.line);
    return n;
  };
  const threads: string[] = [];
  let stage = 0;
  let last: { node: number; a: number; b: number } | null = null;
  for (const r of records) {
    const kind = DETAIL_RECORDS.indexOf(r.fields[0] as (typeof DETAIL_RECORDS)[number]);
    if (kind < stage) fail(`"${r.fields[0]}" line after "${DETAIL_RECORDS[stage]}" lines: thread, self and call lines come in that order`, r.line);
    if (kind > stage) last = null;
    stage = kind;
    if (kind === 0) {
      expect(r, 3, 'thread<TAB>id<TAB>name');
      if (int(r, 1, 'thread id', 0) !== threads.length) fail(`thread id ${r.fields[1]} out of sequence, expected ${threads.length}`, r.line);
      const name = unescapeField(r.fields[2]!);
      if (typeof name !== 'string') fail(`thread name: ${name.error}`, r.line);
      if (threads.length > 0 && compareStrings(threads[threads.length - 1]!, name) >= 0) fail(`thread ${threads.length} is out of order or repeats a name: threads are sorted by name`, r.line);
      threads.push(name);
      continue;
    }
    const n = node(r);
    let key: { node: number; a: number; b: number };
    if (kind === 1) {
      expect(r, 5, 'self<TAB>node<TAB>thread<TAB>line<TAB>counter');
      const t = int(r, 2, 'thread id', -1);
      if (t >= threads.length) fail(`thread ${t} is not in the thread table (${threads.length} threads)`, r.line);
      const e: SelfEntry = { thread: t < 0 ? null : threads[t]!, line: int(r, 3, 'line', -1), counter: int(r, 4, 'counter', 1) };
      (n.self ??= []).push(e);
      key = { node: n.id, a: t, b: e.line };
    } else {
      expect(r, 4, 'call<TAB>node<TAB>line<TAB>counter');
      const e: CallEntry = { line: int(r, 2, 'line', 0), counter: int(r, 3, 'counter', 1) };
      (n.calls ??= []).push(e);
      key = { node: n.id, a: e.line, b: 0 };
    }
    if (last !== null && (key.node - last.node || key.a - last.a || key.b - last.b) <= 0) {
      fail(`"${r.fields[0]}" line out of order or repeated: sorted by node, then ${kind === 1 ? 'thread and line' : 'line'}`, r.line);
    }
    last = key;
  }
  for (const n of nodes) {
    if (n.self !== undefined) {
      const sum = n.self.reduce((s, e) => s + e.counter, 0);
      if (sum !== n.counter) fail(`the self lines of node ${n.id} sum to ${sum}, but its counter is ${n.counter}`, records[0]!.line);
    }
    if (n.calls !== undefined) {
      const sum = n.calls.reduce((s, e) => s + e.counter, 0);
      if (sum > n.total) fail(`the call lines of node ${n.id} sum to ${sum}, more than its inclusive counter ${n.total}`, records[0]!.line);
    }
  }
  return records.length;
}
