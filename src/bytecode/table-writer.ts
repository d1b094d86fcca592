/**
 * Writes a method's code back from its CodeTable with byte fragments inserted before instructions
 * (docs/non-object-ir.md, step 3). It alone turns instruction indices into offsets: it lays the
 * code out again (switch padding follows each switch's new position), rewrites every branch and
 * switch offset, and relocates the exception table, LineNumberTable, LocalVariable(Type)Table and
 * StackMapTable, so that nothing before it handles an offset.
 *
 * A jump to instruction i, a handler at i, an exception range or line or local variable starting
 * at i, and a stack map frame at i all land on the code inserted before i: that code runs whenever
 * i is reached, and inherits i's frame, so it must leave the operand stack and locals as it found
 * them. A range ending at i ends before it. `uninitialized(offset)` types keep naming their `new`.
 *
 * max_stack makes room for what the insertions push, from the depths TableStack finds. Not yet
 * here: fragments with branches of their own, frames for them, widening a branch that outgrows 16
 * bits, type annotations on code, and locals for fragments. A method that needs one raises
 * TableWriterLimit, for the caller to rewrite it another way.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { ClassFormatError } from '../errors.js';
import { ByteWriter } from './byte-writer.js';
import type { TableStack } from '../analysis/table-stack.js';
import type { CodeTable } from './code-table.js';
import { Fmt, OPCODE_FORMATS } from './opcodes.js';

/** What this writer does not do yet, for a method that needs it. */
export class TableWriterLimit extends Error {
  override name = 'TableWriterLimit';
}

/** Code to insert before instruction `before` (0..n; n: after the last one). */
export interface Insertion {
  before: number;
  bytes: Uint8Array;
  /** The most words the code has on the operand stack above what it found there (0 if omitted). */
  stack?: number;
}

const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;
const s4 = (b: Uint8Array, p: number): number => (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;

export class TableWriter {
  /** New offset of each instruction; [n] is the new code_length. */
  private newPc = new Int32Array(0);
  /** New offset of the code inserted before each instruction (its own offset when there is none). */
  private landing = new Int32Array(0);

  constructor(
    readonly cp: ConstantPool,
    /** Class file and method, for errors. */
    private readonly entry: string,
  ) {}

  /**
   * The Code attribute's body (max_stack onward) for `t`, read from `info`, with `insertions`
   * (ordered by `before`; several before one instruction go in their order). With `stack`, the
   * depths of `t` (TableStack), max_stack makes room for what the insertions push; without it, it
   * stays as read.
   */
  write(t: CodeTable, info: Uint8Array, insertions: readonly Insertion[], method: string, stack?: TableStack): Uint8Array {
    const codeLength = this.layout(t, insertions);
    const w = new ByteWriter(info.length + codeLength - t.codeLength + 64);
    w.u2(stack === undefined ? t.maxStack : maxStack(t, insertions, stack, method));
    w.u2(t.maxLocals);
    w.u4(codeLength);
    w.bytes(this.code(t, insertions, codeLength, method));
    w.u2(t.nHandlers);
    const h = t.handlers;
    for (let k = 0; k < t.nHandlers; k++) {
      w.u2(this.landing[h[4 * k]!]!);
      w.u2(this.landing[h[4 * k + 1]!]!);
      w.u2(this.landing[h[4 * k + 2]!]!);
      w.u2(h[4 * k + 3]!);
    }
    this.attributes(t, info, insertions.length > 0, method, w);
    return w.finish();
  }

  private layout(t: CodeTable, insertions: readonly Insertion[]): number {
    const n = t.n;
    if (this.newPc.length < n + 1) {
      this.newPc = new Int32Array(n + 1);
      this.landing = new Int32Array(n + 1);
    }
    let off = 0;
    let k = 0;
    for (let i = 0; i <= n; i++) {
      this.landing[i] = off;
      while (k < insertions.length && insertions[k]!.before === i) off += insertions[k++]!.bytes.length;
      this.newPc[i] = off;
      if (i === n) break;
      const f = OPCODE_FORMATS[t.op[i]!];
      if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
        const oldQ = (t.pc[i]! + 4) & ~3;
        off += ((off + 4) & ~3) - off + (t.pc[i + 1]! - oldQ);
      } else off += t.pc[i + 1]! - t.pc[i]!;
    }
    if (k < insertions.length) throw new Error(`insertions out of order or past the code: ${insertions[k]!.before}`);
    if (off > 65535) throw new TableWriterLimit(`the code would be ${off} bytes`);
    return off;
  }

  private code(t: CodeTable, insertions: readonly Insertion[], codeLength: number, method: string): Uint8Array {
    const out = new Uint8Array(codeLength);
    const { code, pc, op, target } = t;
    let k = 0;
    for (let i = 0; i <= t.n; i++) {
      let at = this.landing[i]!;
      while (k < insertions.length && insertions[k]!.before === i) {
        out.set(insertions[k]!.bytes, at);
        at += insertions[k++]!.bytes.length;
      }
      if (i === t.n) break;
      const p = pc[i]!;
      const q = this.newPc[i]!;
      const f = OPCODE_FORMATS[op[i]!];
      if (f === Fmt.BRANCH) {
        const d = this.landing[target[i]!]! - q;
        if (d < -32768 || d > 32767) throw new TableWriterLimit(`method ${method}: the branch at ${p} would need widening`);
        out[q] = op[i]!;
        out[q + 1] = d >> 8;
        out[q + 2] = d;
      } else if (f === Fmt.BRANCH_W) {
        out[q] = op[i]!;
        put4(out, q + 1, this.landing[target[i]!]! - q);
      } else if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
        this.switch(t, i, out);
      } else {
        out.set(code.subarray(p, pc[i + 1]), q);
      }
    }
    return out;
  }

  private switch(t: CodeTable, i: number, out: Uint8Array): void {
    const { code, pc, switchTargets } = t;
    const p = pc[i]!;
    const q = this.newPc[i]!;
    const oldQ = (p + 4) & ~3;
    const newQ = (q + 4) & ~3;
    out[q] = t.op[i]!; // the padding bytes stay 0
    const first = t.switchAt[i]!;
    const count = t.switchCount[i]!;
    const to = (k: number): number => this.landing[switchTargets[first + k]!]! - q;
    put4(out, newQ, to(0));
    if (OPCODE_FORMATS[t.op[i]!] === Fmt.TABLESWITCH) {
      out.set(code.subarray(oldQ + 4, oldQ + 12), newQ + 4); // low, high
      for (let k = 1; k < count; k++) put4(out, newQ + 8 + 4 * k, to(k));
    } else {
      out.set(code.subarray(oldQ + 4, oldQ + 8), newQ + 4); // npairs
      for (let k = 1; k < count; k++) {
        out.set(code.subarray(oldQ + 8 * k, oldQ + 8 * k + 4), newQ + 8 * k); // match
        put4(out, newQ + 8 * k + 4, to(k));
      }
    }
  }

  private attributes(t: CodeTable, info: Uint8Array, inserted: boolean, method: string, w: ByteWriter): void {
    let p = t.attributesAt;
    const count = u2(info, p);
    p += 2;
    w.u2(count);
    for (let a = 0; a < count; a++) {
      const nameIndex = u2(info, p);
      const length = s4(info, p + 2) >>> 0;
      const body = info.subarray(p + 6, p + 6 + length);
      p += 6 + length;
      const name = this.cp.utf8(nameIndex);
      let out: Uint8Array;
      switch (name) {
        case 'LineNumberTable':
          out = this.lines(t, body, method);
          break;
        case 'LocalVariableTable':
        case 'LocalVariableTypeTable':
          out = this.locals(t, body, name, method);
          break;
        case 'StackMapTable':
          out = this.frames(t, body, method);
          break;
        case 'RuntimeVisibleTypeAnnotations':
        case 'RuntimeInvisibleTypeAnnotations':
          if (inserted) throw new TableWriterLimit(`method ${method}: ${name} on code`);
          out = body;
          break;
        default:
          out = body;
      }
      w.u2(nameIndex);
      w.u4(out.length);
      w.bytes(out);
    }
  }

  /**
   * The landing of the instruction at old offset `pc`. An offset inside an instruction is left to
   * the object pipeline, whose handling of such tables (written by obfuscators, not javac) is tested.
   */
  private moved(t: CodeTable, pc: number, what: string, method: string): number {
    const i = t.indexOf(pc);
    if (i < 0) throw new TableWriterLimit(`method ${method}: ${what} ${pc} is not at the start of an instruction`);
    return this.landing[i]!;
  }

  private lines(t: CodeTable, body: Uint8Array, method: string): Uint8Array {
    const out = Uint8Array.from(body);
    const n = u2(body, 0);
    for (let k = 0; k < n; k++) put2(out, 2 + 4 * k, this.moved(t, u2(body, 2 + 4 * k), 'LineNumberTable start_pc', method));
    return out;
  }

  private locals(t: CodeTable, body: Uint8Array, name: string, method: string): Uint8Array {
    const out = Uint8Array.from(body);
    const n = u2(body, 0);
    for (let k = 0; k < n; k++) {
      const o = 2 + 10 * k;
      const start = u2(body, o);
      const end = start + u2(body, o + 2);
      const s = this.moved(t, start, `${name} start_pc`, method);
      put2(out, o, s);
      put2(out, o + 2, this.moved(t, end, `${name} end`, method) - s);
    }
    return out;
  }

  /** StackMapTable (JVMS 4.7.4) with its offsets moved; frame types widened where a delta outgrows them. */
  private frames(t: CodeTable, body: Uint8Array, method: string): Uint8Array {
    const w = new ByteWriter(body.length + 16);
    const n = u2(body, 0);
    w.u2(n);
    let p = 2;
    let oldOffset = -1;
    let newOffset = -1;
    const types = (count: number): void => {
      for (let k = 0; k < count; k++) {
        const tag = body[p++]!;
        w.u1(tag);
        if (tag === 7) {
          w.u2(u2(body, p)); // Object: a constant pool index
          p += 2;
        } else if (tag === 8) {
          // Uninitialized: the offset of its `new`, which moves with the instruction itself.
          const i = t.indexOf(u2(body, p));
          if (i < 0 || i >= t.n) throw new TableWriterLimit(`method ${method}: StackMapTable names a new at ${u2(body, p)}, not an instruction`);
          w.u2(this.newPc[i]!);
          p += 2;
        }
      }
    };
    for (let f = 0; f < n; f++) {
      const type = body[p++]!;
      let delta: number;
      if (type < 64) delta = type;
      else if (type < 128) delta = type - 64;
      else if (type < 247) throw new ClassFormatError(this.entry, `method ${method}: StackMapTable frame type ${type} is reserved`);
      else {
        delta = u2(body, p);
        p += 2;
      }
      oldOffset += delta + 1;
      const to = this.moved(t, oldOffset, 'StackMapTable frame at', method);
      const d = to - newOffset - 1;
      newOffset = to;
      if (type < 64) {
        if (d < 64) w.u1(d);
        else (w.u1(251), w.u2(d));
      } else if (type < 128) {
        if (d < 64) w.u1(64 + d);
        else (w.u1(247), w.u2(d));
        types(1);
      } else {
        w.u1(type);
        w.u2(d);
        if (type === 247) types(1);
        else if (type >= 252 && type <= 254) types(type - 251);
        else if (type === 255) {
          const locals = u2(body, p);
          w.u2(locals);
          p += 2;
          types(locals);
          const stack = u2(body, p);
          w.u2(stack);
          p += 2;
          types(stack);
        }
      }
    }
    return w.finish();
  }
}

/** max_stack with room for each insertion's words above the depth where it runs. */
function maxStack(t: CodeTable, insertions: readonly Insertion[], stack: TableStack, method: string): number {
  let max = Math.max(t.maxStack, stack.max);
  for (const ins of insertions) {
    const at = ins.before < t.n ? stack.depth[ins.before]! : 0;
    // Code nothing reaches keeps the depth of the verifier's view of it: none, so count from 0.
    const top = Math.max(at, 0) + (ins.stack ?? 0);
    if (top > max) max = top;
  }
  if (max > 0xffff) throw new TableWriterLimit(`method ${method}: max_stack would be ${max}`);
  return max;
}

function put2(b: Uint8Array, p: number, v: number): void {
  b[p] = v >> 8;
  b[p + 1] = v;
}

function put4(b: Uint8Array, p: number, v: number): void {
  b[p] = v >> 24;
  b[p + 1] = v >> 16;
  b[p + 2] = v >> 8;
  b[p + 3] = v;
}
