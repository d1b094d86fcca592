/**
 * Operand stack depth before each instruction of a CodeTable, and the code's max_stack (JVMS 4.7.3),
 * as the code writer computes it on the object IR (docs/non-object-ir.md, step 3): from the entry
 * with an empty stack, each handler with the exception, and each stack map frame with its stack,
 * so that code the verifier checks but nothing reaches counts too.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { codeAttribute, type CodeTable } from '../bytecode/code-table.js';
import { OP, isUnconditionalTransfer } from '../bytecode/opcodes.js';
import { stackEffectAt } from '../bytecode/stack-effect.js';
import { fit } from '../bytecode/scratch.js';

export class TableStack {
  /** Words on the operand stack before instruction i, or -1 where nothing reaches it. */
  depth: Int32Array = new Int32Array(0);
  /** The largest depth before or after any instruction. */
  max = 0;
  private work: Int32Array = new Int32Array(0);

  /** `info` is the Code attribute's body the table was decoded from (for its StackMapTable). */
  compute(t: CodeTable, info: Uint8Array, cp: ConstantPool): this {
    const n = t.n;
    this.depth = fit(this.depth, n);
    this.work = fit(this.work, n);
    const depth = this.depth;
    depth.fill(-1, 0, n);
    let top = 0;
    let max = 0;
    const seed = (i: number, h: number): void => {
      if (i < 0 || i >= n || depth[i]! >= 0) return;
      depth[i] = h;
      if (h > max) max = h;
      this.work[top++] = i;
    };
    seed(0, 0);
    for (let k = 0; k < t.nHandlers; k++) seed(t.handlers[4 * k + 2]!, 1);
    this.seedFrames(t, info, cp, seed);
    const { code, pc, target, switchAt, switchCount, switchTargets } = t;
    while (top > 0) {
      const i = this.work[--top]!;
      const h = depth[i]!;
      const h2 = h + stackEffectAt(cp, code, pc[i]!);
      if (h2 > max) max = h2;
      const op = t.baseOp(i);
      if (op === OP.JSR || op === OP.JSR_W) {
        seed(target[i]!, h2);
        seed(i + 1, h); // the subroutine returns with the height it was called with
        continue;
      }
      if (target[i]! >= 0) seed(target[i]!, h2);
      const first = switchAt[i]!;
      if (first >= 0) for (let k = 0; k < switchCount[i]!; k++) seed(switchTargets[first + k]!, h2);
      if (!isUnconditionalTransfer(op)) seed(i + 1, h2);
    }
    this.max = max;
    return this;
  }

  /** Seeds each StackMapTable frame's instruction with the words of the frame's stack. */
  private seedFrames(t: CodeTable, info: Uint8Array, cp: ConstantPool, seed: (i: number, h: number) => void): void {
    const body = codeAttribute(t, info, cp, 'StackMapTable');
    if (body === undefined) return;
    const u2 = (p: number): number => (body[p]! << 8) | body[p + 1]!;
    let p = 2;
    let offset = -1;
    /** Skips `count` verification types; returns their words. */
    const types = (count: number): number => {
      let words = 0;
      for (let k = 0; k < count; k++) {
        const tag = body[p++]!;
        words += tag === 3 || tag === 4 ? 2 : 1; // Double, Long
        if (tag === 7 || tag === 8) p += 2;
      }
      return words;
    };
    for (let f = u2(0); f > 0; f--) {
      const type = body[p++]!;
      let delta: number;
      let stack = 0;
      if (type < 64) delta = type;
      else if (type < 128) {
        delta = type - 64;
        stack = types(1);
      } else {
        delta = u2(p);
        p += 2;
        if (type === 247) stack = types(1);
        else if (type >= 252 && type <= 254) types(type - 251);
        else if (type === 255) {
          const locals = u2(p);
          p += 2;
          types(locals);
          const items = u2(p);
          p += 2;
          stack = types(items);
        }
      }
      offset += delta + 1;
      // The table writer and the code reader check frame offsets; an odd one only loses its seed here.
      if (offset < t.codeLength) seed(t.indexOf(offset), stack);
    }
  }
}
