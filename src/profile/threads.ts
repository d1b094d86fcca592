/**
 * Threads in a profile: the samples tree holds all threads, and each context's self entries say
 * which thread names its samples came from (breakdown.ts). From those, a profile restricted to
 * some threads, or one with a root per thread name above the contexts, is rebuilt exactly. Pools
 * are grouped by name pattern: names that differ only in their trailing number
 * (`pool-1-thread-1`, `pool-1-thread-2`) form one root, `pool-1-thread-*`.
 */
import { KomoriumError } from '../errors.js';
import type { SelfEntry } from './breakdown.js';
import { buildProfile, fieldsOf, toDraft, type Profile, type TreeDraft } from './model.js';
import { threadNames } from './detail.js';

/** The pseudo-class of a thread's root frame in a profile split by thread. */
export const THREAD_CLASS = '<thread>';

/** Where the self entries do not name a thread (a profile merged with one that did not record them). */
export const UNKNOWN_THREAD = '<unknown thread>';

/** Thread name → the name of its group: a pool's threads share `prefix*`, any other thread keeps its name. */
export function threadGroups(names: readonly string[]): Map<string, string> {
  const prefixOf = (n: string) => /^(.*\D)\d+$/.exec(n)?.[1];
  const count = new Map<string, number>();
  for (const n of names) {
    const p = prefixOf(n);
    if (p !== undefined) count.set(p, (count.get(p) ?? 0) + 1);
  }
  return new Map(names.map((n) => {
    const p = prefixOf(n);
    return [n, p !== undefined && count.get(p)! > 1 ? `${p}*` : n];
  }));
}

/** The thread names a profile records; a KomoriumError when it records none. */
export function recordedThreads(p: Profile): string[] {
  const names = threadNames(p.nodes);
  if (names.length === 0) {
    throw new KomoriumError(`${p.name}: the profile records no thread names (it was written by an agent or a komorium-ts that did not record them)`);
  }
  return names;
}

/** A glob (`*` any run of characters) against a thread name or its group's name. */
export function threadMatcher(pattern: string, groups: ReadonlyMap<string, string>): (name: string | null) => boolean {
  const re = new RegExp('^' + pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
  return (name) => name !== null && (re.test(name) || re.test(groups.get(name) ?? name));
}

/** A copy of the draft tree keeping only the self entries `keep` accepts (iterative: stacks may be deep). */
function restrict(root: TreeDraft, keep: (e: SelfEntry) => boolean): TreeDraft {
  const copy = (d: TreeDraft): TreeDraft => {
    const self = (d.self ?? [{ thread: null, line: -1, counter: d.counter }]).filter(keep);
    return { method: d.method, counter: self.reduce((s, e) => s + e.counter, 0), self: d.self === undefined ? undefined : self, calls: d.calls, children: [] };
  };
  const out = copy(root);
  const work: [TreeDraft, TreeDraft][] = [[root, out]];
  while (work.length > 0) {
    const [from, to] = work.pop()!;
    for (const c of from.children) {
      const k = copy(c);
      to.children.push(k);
      work.push([c, k]);
    }
  }
  return out;
}

/**
 * Only the samples of threads `pattern` matches (a name or a group's name, `*` a wildcard). The
 * total bytecodes shrink in proportion, so that estimates stay per sample. Call lines are not
 * split by thread and stay whole.
 */
export function filterThreads(p: Profile, pattern: string): Profile {
  const names = recordedThreads(p);
  const groups = threadGroups(names);
  const match = threadMatcher(pattern, groups);
  if (!names.some((n) => match(n))) {
    throw new KomoriumError(`${p.name}: no thread matches --thread ${pattern} (threads: ${[...new Set(groups.values())].join(', ')})`);
  }
  const root = restrict(toDraft(p), (e) => match(e.thread));
  const kept = sumDraft(root);
  const f = fieldsOf(p);
  f.totalBytecodes = p.totalCounter === 0 ? 0 : Math.round((p.totalBytecodes * kept) / p.totalCounter);
  f.threads = names.filter((n) => match(n)).length;
  return buildProfile(f, root);
}

function sumDraft(d: TreeDraft): number {
  let s = 0;
  const stack = [d];
  while (stack.length > 0) {
    const n = stack.pop()!;
    s += n.counter;
    for (const c of n.children) stack.push(c);
  }
  return s;
}

/** The same samples under one root frame per thread group (`<thread>` frames), for every report. */
export function splitByThread(p: Profile): Profile {
  const groups = threadGroups(recordedThreads(p));
  const all = toDraft(p);
  const labels = new Set<string>();
  for (const n of p.nodes) for (const e of n.self ?? [{ thread: null, line: -1, counter: n.counter }]) labels.add(e.thread === null ? UNKNOWN_THREAD : groups.get(e.thread)!);
  const roots: TreeDraft[] = [...labels].sort().map((label) => ({
    method: { className: THREAD_CLASS, name: label, descriptor: '()V' },
    counter: 0,
    children: restrict(all, (e) => (e.thread === null ? UNKNOWN_THREAD : groups.get(e.thread)!) === label).children,
  }));
  return buildProfile(fieldsOf(p), { method: null, counter: 0, children: roots });
}
