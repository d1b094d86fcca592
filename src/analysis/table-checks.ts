/**
 * Where Komorium's granularity checks go (checks.ts, seed 002 §5.2), on a CodeTable's blocks: every
 * block that returns or throws, every block with an invocation, every loop header, then MaxPath's
 * extra checks by the same greedy pass over a topological order of the edges into unchecked blocks.
 * checks.ts explains the rule; this keeps it, in typed arrays refilled per method.
 */
import type { CodeTable } from '../bytecode/code-table.js';
import { OP, isInvoke, isReturn } from '../bytecode/opcodes.js';
import type { CheckOptions } from './checks.js';
import type { TableBlocks } from './table-blocks.js';
import type { TableLoops } from './table-loops.js';
import { grownSize } from '../bytecode/scratch.js';

/** Why a block has a check (0: it has none), as checks.ts's CheckReason. */
export const CHECK_REASON = { none: 0, terminates: 1, invoke: 2, loop: 3, maxpath: 4, all: 5 } as const;

export class TableChecks {
  /** CHECK_REASON of each block. */
  reason = new Uint8Array(0);
  private indegree = new Int32Array(0);
  private queue = new Int32Array(0);
  private out = new Int32Array(0);
  private predCount = new Int32Array(0);
  private best = new Int32Array(0);
  private done = new Uint8Array(0);

  compute(t: CodeTable, blocks: TableBlocks, loops: TableLoops, options: CheckOptions): this {
    const n = blocks.count;
    if (this.reason.length < n) {
      const size = grownSize(this.reason.length, n);
      this.reason = new Uint8Array(size);
      this.indegree = new Int32Array(size);
      this.queue = new Int32Array(size);
      this.out = new Int32Array(size);
      this.predCount = new Int32Array(size);
      this.best = new Int32Array(size);
      this.done = new Uint8Array(size);
    }
    const reason = this.reason;
    if (options.mode === 'all') {
      reason.fill(CHECK_REASON.all, 0, n);
      return this;
    }
    reason.fill(CHECK_REASON.none, 0, n);
    const { op } = t;
    for (let b = 0; b < n; b++) {
      const end = blocks.end(b);
      const last = t.baseOp(end - 1);
      if (isReturn(last) || last === OP.ATHROW) {
        reason[b] = CHECK_REASON.terminates;
        continue;
      }
      for (let i = blocks.starts[b]!; i < end; i++) {
        if (isInvoke(op[i]!)) {
          reason[b] = CHECK_REASON.invoke;
          break;
        }
      }
      if (reason[b] === CHECK_REASON.none && loops.isHeader[b]) reason[b] = CHECK_REASON.loop;
    }
    if (options.maxPath > 0 && n > 0) this.maxPath(blocks, loops, options.maxPath);
    return this;
  }

  /** Kahn's algorithm over the edges into unchecked blocks, checking a block where a path would pass maxPath. */
  private maxPath(blocks: TableBlocks, loops: TableLoops, maxPath: number): void {
    const n = blocks.count;
    const { succStart, succ } = loops;
    const { reason, indegree, queue, out, predCount, best, done } = this;
    predCount.fill(0, 0, n);
    for (let e = 0; e < succStart[n]!; e++) predCount[succ[e]!]!++;
    for (let v = 0; v < n; v++) indegree[v] = reason[v] === CHECK_REASON.none ? predCount[v]! : 0;
    let tail = 0;
    for (let v = 0; v < n; v++) if (indegree[v] === 0) queue[tail++] = v;
    done.fill(0, 0, n);
    out.fill(0, 0, n);
    // best[v]: the largest out() of v's predecessors done so far; all of them are done when v is dequeued.
    best.fill(0, 0, n);
    for (let head = 0; head < tail; head++) {
      const b = queue[head]!;
      done[b] = 1;
      const len = blocks.end(b) - blocks.starts[b]!;
      if (reason[b] !== CHECK_REASON.none) out[b] = len;
      else if (best[b]! + len > maxPath) {
        reason[b] = CHECK_REASON.maxpath;
        out[b] = len;
      } else out[b] = best[b]! + len;
      for (let e = succStart[b]!; e < succStart[b + 1]!; e++) {
        const v = succ[e]!;
        if (out[b]! > best[v]!) best[v] = out[b]!;
        if (reason[v] === CHECK_REASON.none && !done[v] && --indegree[v] === 0) queue[tail++] = v;
      }
    }
    // A cycle of unchecked blocks would mean a loop without a header; checking what is left is always safe.
    for (let b = 0; b < n; b++) if (!done[b] && reason[b] === CHECK_REASON.none) reason[b] = CHECK_REASON.maxpath;
  }
}
