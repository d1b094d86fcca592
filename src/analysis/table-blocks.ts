/**
 * Komorium's basic blocks (blocks.ts, seed 002 §4.2) on a CodeTable: a block ends only at a jump,
 * branch, switch, return, athrow, jsr or ret, and starts at a target, at a handler and after an
 * instruction that ends one. The answer is instruction indices in typed arrays, for the passes that
 * work on tables (docs/non-object-ir.md); blocks.ts gives the same blocks on the object IR.
 */
import type { CodeTable } from '../bytecode/code-table.js';
import { OP } from '../bytecode/opcodes.js';
import { endsBlock } from './blocks.js';

/** The blocks of one method at a time: `compute` refills the same arrays, valid until its next call. */
export class TableBlocks {
  /** Number of blocks. */
  count = 0;
  /** First instruction of each block, ascending (the first `count`); a block runs to the next start, or to n. */
  starts = new Int32Array(0);
  /** The block of each instruction (the first n). */
  blockOf = new Int32Array(0);
  private isStart = new Uint8Array(0);

  compute(t: CodeTable): this {
    const { n, op, pc, code, target, switchAt, switchCount, switchTargets, handlers } = t;
    if (this.isStart.length < n) {
      const size = Math.max(n, this.isStart.length * 2, 64);
      this.isStart = new Uint8Array(size);
      this.starts = new Int32Array(size);
      this.blockOf = new Int32Array(size);
    } else this.isStart.fill(0, 0, n);
    const start = this.isStart;
    if (n > 0) start[0] = 1;
    for (let i = 0; i < n; i++) {
      const o = op[i] === OP.WIDE ? code[pc[i]! + 1]! : op[i]!;
      if (endsBlock(o) && i + 1 < n) start[i + 1] = 1;
      if (target[i]! >= 0) start[target[i]!] = 1;
      const s = switchAt[i]!;
      if (s >= 0) for (let k = s; k < s + switchCount[i]!; k++) start[switchTargets[k]!] = 1;
    }
    for (let k = 0; k < t.nHandlers; k++) start[handlers[4 * k + 2]!] = 1;
    const { starts, blockOf } = this;
    let b = -1;
    for (let i = 0; i < n; i++) {
      if (start[i]) starts[++b] = i;
      blockOf[i] = b;
    }
    this.count = b + 1;
    return this;
  }
}
