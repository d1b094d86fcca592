/**
 * Placement of granularity checks (seed 002 §5.2). A check goes into
 *  - every block that terminates (return, athrow), so that a sample is not charged to the caller,
 *  - every block with an invocation, so that a sample is not charged to a callee,
 *  - every loop header, so that iterative computations are checked,
 * and then into as few further blocks as needed so that at most MaxPath original bytecodes run
 * between two checks. Paths follow normal successors and handler edges (an exception may leave a
 * block early, but the block was charged in full, so the handler path counts the whole block).
 *
 * Algorithm for the extra checks. A check sits at the start of its block, after the counter
 * update, so the bytecodes run since the last check, at the end of block b, are
 *     out(b) = len(b) + (b has a check ? 0 : max over predecessors p of out(p))
 * (0 before the entry block: the method entry follows a check in the caller or a fresh start).
 * Every cycle contains a loop header (loops.ts), and headers have checks, so the edges into
 * unchecked blocks form a DAG, and out() can be computed in one pass over a topological order.
 * Greedy: visit blocks in that order; when an unchecked block's out() would exceed MaxPath, give
 * it a check (out(b) = len(b)). Placing the check exactly where the bound is first exceeded is
 * the latest point that still keeps every path through b within MaxPath, which is optimal on a
 * single path and on trees, and near-optimal on general DAGs (where the exact minimum is a
 * harder covering problem than §5.2's "as few as possible" needs). Blocks longer than MaxPath
 * must be split first (computeBlocks with maxPath); a check cannot shorten a block.
 */
import type { Block } from './blocks.js';
import { edgesOf } from './loops.js';

export type CheckReason = 'terminates' | 'invoke' | 'loop' | 'maxpath' | 'all';

export interface CheckOptions {
  /** §4.2 MaxPath (0: no extra checks). */
  maxPath: number;
  /** 'optimized' is §5.2; 'all' puts a check into every block (§4.2 without the optimization). */
  mode?: 'optimized' | 'all';
}

/** Block index → why it has a check. The keys are the blocks that get a check. */
export function placeChecks(blocks: readonly Block[], loopHeaders: ReadonlySet<number>, options: CheckOptions): Map<number, CheckReason> {
  const checks = new Map<number, CheckReason>();
  if (options.mode === 'all') {
    for (const b of blocks) checks.set(b.index, 'all');
    return checks;
  }
  for (const b of blocks) {
    if (b.terminates) checks.set(b.index, 'terminates');
    else if (b.hasInvoke) checks.set(b.index, 'invoke');
    else if (loopHeaders.has(b.index)) checks.set(b.index, 'loop');
  }
  const maxPath = options.maxPath;
  if (maxPath <= 0 || blocks.length === 0) return checks;

  const n = blocks.length;
  const succ = blocks.map(edgesOf);
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let u = 0; u < n; u++) for (const v of succ[u]!) preds[v]!.push(u);

  // Kahn's algorithm over the edges into unchecked blocks (checked blocks do not depend on their predecessors).
  const fixed = new Set(checks.keys());
  const indegree = new Int32Array(n);
  for (let v = 0; v < n; v++) if (!fixed.has(v)) indegree[v] = preds[v]!.length;
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (indegree[v] === 0) queue.push(v);
  const out = new Float64Array(n);
  const done = new Uint8Array(n);
  for (let qi = 0; qi < queue.length; qi++) {
    const b = queue[qi]!;
    done[b] = 1;
    const len = blocks[b]!.insnCount;
    if (fixed.has(b)) out[b] = len;
    else {
      let incoming = 0;
      for (const p of preds[b]!) incoming = Math.max(incoming, out[p]!);
      if (incoming + len > maxPath) {
        checks.set(b, 'maxpath');
        out[b] = len;
      } else out[b] = incoming + len;
    }
    for (const v of succ[b]!) {
      if (!fixed.has(v) && --indegree[v] === 0) queue.push(v);
    }
  }
  // A cycle of unchecked blocks would mean a loop without a header: impossible with findLoops'
  // headers, but a caller may pass others. Check every block left over, which is always safe.
  for (let b = 0; b < n; b++) if (!done[b] && !checks.has(b)) checks.set(b, 'maxpath');
  return checks;
}
