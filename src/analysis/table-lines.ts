/**
 * Source lines and the object IR's labels on a CodeTable: what Komorium's rewrite needs of the
 * LineNumberTable (the line of each instruction, the method's first line, the lines it calls from)
 * and of every offset that code-reader.ts gives a label (branch and switch targets, exception
 * ranges and handlers, line and local variable ranges, stack map frames), without reading the
 * method into objects. `read` answers false where an entry is not at an instruction start: the
 * object reader reports that, so the caller leaves such a method to it.
 */
import type { CodeTable } from '../bytecode/code-table.js';
import { isInvoke } from '../bytecode/opcodes.js';
import { grownSize } from '../bytecode/scratch.js';

const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;
const u4 = (b: Uint8Array, p: number): number => ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;

/** Each attribute of the Code attribute `info` (decoded into `t`): its name index, body start and length. */
function eachAttribute(t: CodeTable, info: Uint8Array, visit: (nameIndex: number, at: number) => boolean): boolean {
  const p = t.attributesAt;
  for (let a = u2(info, p), q = p + 2; a > 0; a--) {
    if (!visit(u2(info, q), q + 6)) return false;
    q += 6 + u4(info, q + 2);
  }
  return true;
}

export class TableLines {
  /** The source line of each instruction (the last LineNumberTable entry at or before it), or -1. */
  line = new Int32Array(0);
  /** The smallest line of the LineNumberTable, or -1 without one (sites.ts firstLine). */
  first = -1;
  /** Whether an object IR label precedes each instruction. Filled by `read` when asked. */
  labelled = new Uint8Array(0);
  private startLine = new Int32Array(0);

  /**
   * Reads the lines of `t` (decoded from `info`); with `labels`, which instructions a label precedes,
   * `frames` being the instruction indices of the StackMapTable's frames. False when an entry does
   * not start at an instruction: the object reader rejects that.
   */
  read(t: CodeTable, info: Uint8Array, cp: { utf8(i: number): string }, labels?: { n: number; at: Int32Array }): boolean {
    const n = t.n;
    if (this.line.length < n + 1) {
      const size = grownSize(this.line.length, n + 1);
      this.line = new Int32Array(size);
      this.startLine = new Int32Array(size);
      this.labelled = new Uint8Array(size);
    }
    const starts = this.startLine;
    starts.fill(-1, 0, n + 1);
    this.first = -1;
    const mark = labels ? this.labelled.fill(0, 0, n + 1) : null;
    const ok = eachAttribute(t, info, (nameIndex, at) => {
      const name = cp.utf8(nameIndex);
      if (name === 'LineNumberTable') {
        for (let k = u2(info, at), q = at + 2; k > 0; k--, q += 4) {
          const i = t.indexOf(u2(info, q));
          if (i < 0 || i >= n) return false;
          const l = u2(info, q + 2);
          starts[i] = l;
          if (mark) mark[i] = 1;
          if (this.first < 0 || l < this.first) this.first = l;
        }
      } else if (mark && (name === 'LocalVariableTable' || name === 'LocalVariableTypeTable')) {
        for (let k = u2(info, at), q = at + 2; k > 0; k--, q += 10) {
          const s = t.indexOf(u2(info, q));
          const e = t.indexOf(u2(info, q) + u2(info, q + 2));
          if (s < 0 || s >= n || e < 0) return false;
          mark[s] = 1;
          mark[e] = 1;
        }
      }
      return true;
    });
    if (!ok) return false;
    let line = -1;
    for (let i = 0; i < n; i++) {
      if (starts[i] !== -1) line = starts[i]!;
      this.line[i] = line;
    }
    if (mark) markLabels(t, mark, labels!);
    return true;
  }

  /** The distinct lines that `t`'s invoke instructions are on, ascending. */
  callLines(t: CodeTable): number[] {
    const lines = new Set<number>();
    for (let i = 0; i < t.n; i++) {
      const l = this.line[i]!;
      if (l >= 0 && isInvoke(t.op[i]!)) lines.add(l);
    }
    return [...lines].sort((a, b) => a - b);
  }
}

/** Branch and switch targets, exception ranges and handlers, and frames. */
function markLabels(t: CodeTable, mark: Uint8Array, frames: { n: number; at: Int32Array }): void {
  for (let i = 0; i < t.n; i++) {
    if (t.target[i]! >= 0) mark[t.target[i]!] = 1;
    const s = t.switchAt[i]!;
    if (s >= 0) for (let k = 0; k < t.switchCount[i]!; k++) mark[t.switchTargets[s + k]!] = 1;
  }
  for (let k = 0; k < 4 * t.nHandlers; k += 4) {
    mark[t.handlers[k]!] = 1;
    mark[t.handlers[k + 1]!] = 1;
    mark[t.handlers[k + 2]!] = 1;
  }
  for (let f = 0; f < frames.n; f++) mark[frames.at[f]!] = 1;
}
