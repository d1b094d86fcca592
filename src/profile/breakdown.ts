/**
 * The parts a calling context's counters are made of, when the runtime recorded them: the self
 * counter by thread and by the source line of the block that ran, the inclusive counter by the
 * line of the parent's method that called the context. The samples tree stays keyed by methods
 * alone, so that overlaps and diffs do not change when code only moves between lines.
 */

/** Part of a context's self counter: one thread (null: not recorded) and one line (-1: unknown). */
export interface SelfEntry {
  thread: string | null;
  line: number;
  counter: number;
}

/** Part of a context's inclusive counter: what its parent's method called it from `line`. */
export interface CallEntry {
  line: number;
  counter: number;
}

/** Unknown threads first, then names by UTF-16 code units (the format's order), then lines. */
export function compareSelf(a: SelfEntry, b: SelfEntry): number {
  if (a.thread !== b.thread) {
    if (a.thread === null) return -1;
    if (b.thread === null) return 1;
    return a.thread < b.thread ? -1 : 1;
  }
  return a.line - b.line;
}

/** Sums entries with the same thread and line; sorted, zero counters dropped. */
export function mergeSelf(parts: Iterable<SelfEntry>): SelfEntry[] {
  const sum = new Map<string, SelfEntry>();
  for (const e of parts) {
    const key = `${e.thread === null ? '' : `=${e.thread}`}\u0000${e.line}`;
    const known = sum.get(key);
    if (known) known.counter += e.counter;
    else sum.set(key, { ...e });
  }
  return [...sum.values()].filter((e) => e.counter > 0).sort(compareSelf);
}

export function mergeCalls(parts: Iterable<CallEntry>): CallEntry[] {
  const sum = new Map<number, number>();
  for (const e of parts) sum.set(e.line, (sum.get(e.line) ?? 0) + e.counter);
  return [...sum].filter(([, c]) => c > 0).map(([line, counter]) => ({ line, counter })).sort((a, b) => a.line - b.line);
}

/**
 * The self entries of a context merged from several sources (profiles of a merge): where a source
 * has no breakdown, its counter stays unknown (no thread, line -1), so that the entries still sum
 * to the counter. Undefined when no source had one.
 */
export function combineSelf(sources: readonly { counter: number; self?: readonly SelfEntry[] }[]): SelfEntry[] | undefined {
  if (!sources.some((s) => s.self !== undefined)) return undefined;
  return mergeSelf(sources.flatMap((s) => s.self ?? [{ thread: null, line: -1, counter: s.counter }]));
}

export function combineCalls(sources: readonly { calls?: readonly CallEntry[] }[]): CallEntry[] | undefined {
  if (!sources.some((s) => s.calls !== undefined)) return undefined;
  return mergeCalls(sources.flatMap((s) => s.calls ?? []));
}
