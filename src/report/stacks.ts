/**
 * A profile as the weighted stacks that sample-based formats (pprof, speedscope) hold: one stack
 * per context, thread and line its samples ran on, each frame at the line a stack trace shows
 * (lines.ts). Contexts without a breakdown give one stack with unknown thread and line.
 */
import type { ContextNode, MethodEntry, Profile } from '../profile/model.js';
import { callLine } from './lines.js';

export interface Frame {
  method: MethodEntry;
  /** The line the frame stands at; undefined when the profile does not know it. */
  line: number | undefined;
}

export interface WeightedStack {
  /** Root first; the last frame ran the samples. */
  frames: Frame[];
  thread: string | null;
  /** Samples (or, for the exact agent, bytecodes) of this stack. */
  counter: number;
  node: ContextNode;
}

/** The outer frames of a context, root first, each at the line it called the next one from. */
function callers(n: ContextNode): Frame[] {
  const out: Frame[] = [];
  let inner = n;
  for (let c = n.parent; c !== null && c.method !== null; c = c.parent) {
    out.push({ method: c.method, line: callLine(inner) });
    inner = c;
  }
  return out.reverse();
}

export function weightedStacks(p: Profile): WeightedStack[] {
  const out: WeightedStack[] = [];
  for (const n of p.nodes) {
    if (n.method === null || n.counter === 0) continue;
    const outer = callers(n);
    for (const e of n.self ?? [{ thread: null, line: -1, counter: n.counter }]) {
      out.push({ frames: [...outer, { method: n.method, line: e.line >= 0 ? e.line : undefined }], thread: e.thread, counter: e.counter, node: n });
    }
  }
  return out;
}
