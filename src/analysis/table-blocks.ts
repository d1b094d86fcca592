/**
 * Komorium's basic blocks (blocks.ts, seed 002 §4.2) on a CodeTable: a block ends only at a jump,
 * branch, switch, return, athrow, jsr or ret, and starts at a target, at a handler and after an
 * instruction that ends one. With MaxPath, a block of more instructions is cut into pieces of
 * MaxPath instructions (the last one shorter), as blocks.ts's applySplits does. The answer is
 * instruction indices in typed arrays, for the passes that work on tables (docs/non-object-ir.md).
 */
import type { CodeTable } from '../bytecode/code-table.js';
import { endsBlock } from './blocks.js';
import { grownSize } from '../bytecode/scratch.js';

/** The blocks of one method at a time: `compute` refills the same arrays, valid until its next call. */
export class TableBlocks {
  /** Number of blocks (pieces, with MaxPath). */
  count = 0;
  /** Instructions of the method. */
  n = 0;
  /** First instruction of each block, ascending (the first `count`); a block runs to the next start, or to n. */
  starts = new Int32Array(0);
  /** The block of each instruction (the first n). */
  blockOf = new Int32Array(0);
  /** For each block, the first instruction and the end of the basic block it is a piece of (itself without MaxPath). */
  origFirst = new Int32Array(0);
  origEnd = new Int32Array(0);
  private isStart = new Uint8Array(0);

  /** End (exclusive instruction index) of block b. */
  end(b: number): number {
    return b + 1 < this.count ? this.starts[b + 1]! : this.n;
  }

  compute(t: CodeTable, maxPath = 0): this {
    const { n, target, switchAt, switchCount, switchTargets, handlers } = t;
    this.n = n;
    if (this.isStart.length < n) {
      const size = grownSize(this.isStart.length, n);
      this.isStart = new Uint8Array(size);
      this.starts = new Int32Array(size);
      this.blockOf = new Int32Array(size);
      this.origFirst = new Int32Array(size);
      this.origEnd = new Int32Array(size);
    } else this.isStart.fill(0, 0, n);
    const start = this.isStart;
    if (n > 0) start[0] = 1;
    for (let i = 0; i < n; i++) {
      if (endsBlock(t.baseOp(i)) && i + 1 < n) start[i + 1] = 1;
      if (target[i]! >= 0) start[target[i]!] = 1;
      const s = switchAt[i]!;
      if (s >= 0) for (let k = s; k < s + switchCount[i]!; k++) start[switchTargets[k]!] = 1;
    }
    for (let k = 0; k < t.nHandlers; k++) start[handlers[4 * k + 2]!] = 1;
    const { starts, blockOf, origFirst, origEnd } = this;
    let b = -1;
    for (let first = 0; first < n; ) {
      let end = first + 1;
      while (end < n && !start[end]) end++;
      const step = maxPath > 0 ? maxPath : end - first;
      for (let p = first; p < end; p += step) {
        starts[++b] = p;
        origFirst[b] = first;
        origEnd[b] = end;
        blockOf.fill(b, p, Math.min(p + step, end));
      }
      first = end;
    }
    this.count = b + 1;
    return this;
  }
}
