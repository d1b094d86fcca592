/**
 * Builds the bytes of a fragment for the table writer (docs/non-object-ir.md, step 3): what a pass
 * inserts, written straight into bytes instead of as an Insn per instruction. Each instruction
 * takes the form the object writer gives an instruction a transform made (emit.ts): the shortest.
 * Branches name labels of the fragment; `finish` resolves them, so no pass computes an offset, and
 * reports the offsets of the labels that need a stack map frame (Insertion.frames).
 *
 * Constant pool operands are indices: a pass resolves the members it names once per class and
 * hands the indices in, instead of looking a member up for every instruction.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { OP, implicitVarOpcode } from './opcodes.js';

/** A position in a fragment, placed once. */
export class FragmentLabel {
  /** Offset in the fragment, or -1 until placed. */
  at = -1;
  constructor(
    /** Whether a stack map frame goes here (a branch of the fragment lands here in a class file with frames). */
    readonly framed: boolean,
  ) {}
}

/**
 * One builder makes many fragments: each `finish` hands out a view of the bytes built since the
 * last one, and `reset` (once what was handed out is written) starts the buffer over. A typed array
 * per fragment cost more than building it.
 */
export class Fragment {
  private buf = new Uint8Array(256);
  length = 0;
  /** Where the fragment being built starts in `buf`. */
  private start = 0;
  /** Each branch: the offset of its opcode and its label. */
  private readonly jumps: { at: number; to: FragmentLabel }[] = [];
  private readonly labels: FragmentLabel[] = [];

  constructor(readonly cp: ConstantPool) {}

  /** Forgets every fragment handed out: their views must have been used. */
  reset(): this {
    this.length = 0;
    this.start = 0;
    this.jumps.length = 0;
    this.labels.length = 0;
    return this;
  }

  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      // Views handed out keep the old buffer; only the fragment being built moves.
      const b = new Uint8Array(Math.max(this.buf.length * 2, this.length - this.start + n + 256));
      b.set(this.buf.subarray(this.start, this.length));
      this.length -= this.start;
      for (const j of this.jumps) j.at -= this.start;
      for (const l of this.labels) if (l.at >= 0) l.at -= this.start;
      this.start = 0;
      this.buf = b;
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  // Fixed arities, not a rest parameter: an array per instruction was most of a fragment's cost.
  private u1(a: number): this {
    const at = this.room(1);
    this.buf[at] = a;
    return this;
  }

  private u2(a: number, b: number): this {
    const at = this.room(2);
    this.buf[at] = a;
    this.buf[at + 1] = b;
    return this;
  }

  /** An opcode and a u2 operand. */
  private op3(code: number, operand: number): this {
    const at = this.room(3);
    this.buf[at] = code;
    this.buf[at + 1] = (operand >> 8) & 0xff;
    this.buf[at + 2] = operand & 0xff;
    return this;
  }

  /** An instruction without operands. */
  op(code: number): this {
    return this.u1(code);
  }

  /** The int constant `v`: iconst_<n>, bipush, sipush, or ldc of an Integer entry. */
  pushInt(v: number): this {
    if (v >= -1 && v <= 5) return this.u1(OP.ICONST_0 + v);
    if (v >= -128 && v <= 127) return this.u2(OP.BIPUSH, v & 0xff);
    if (v >= -32768 && v <= 32767) return this.op3(OP.SIPUSH, v);
    return this.ldc(this.cp.integerIndex(v));
  }

  /** ldc of constant `index` (ldc_w past 255). */
  ldc(index: number): this {
    return index <= 255 ? this.u2(OP.LDC, index) : this.op3(OP.LDC_W, index);
  }

  /** A load, store or ret (ILOAD … ASTORE, RET) of local `v`. */
  local(opcode: number, v: number): this {
    const implicit = implicitVarOpcode(opcode, v);
    if (implicit >= 0) return this.u1(implicit);
    if (v <= 255) return this.u2(opcode, v);
    return this.u2(OP.WIDE, opcode).u2(v >> 8, v & 0xff);
  }

  iinc(v: number, inc: number): this {
    if (v <= 255 && inc >= -128 && inc <= 127) return this.u2(OP.IINC, v).u1(inc & 0xff);
    return this.u2(OP.WIDE, OP.IINC).u2(v >> 8, v & 0xff).u2((inc >> 8) & 0xff, inc & 0xff);
  }

  /** An instruction with a constant pool index (field access, invoke, new, checkcast, …). */
  ref(opcode: number, index: number): this {
    this.op3(opcode, index);
    if (opcode === OP.INVOKEDYNAMIC) this.u2(0, 0);
    return this;
  }

  /** invokeinterface of method `index`, whose arguments (receiver included) take `words` stack words. */
  invokeInterface(index: number, words: number): this {
    return this.op3(OP.INVOKEINTERFACE, index).u2(words, 0);
  }

  label(framed = false): FragmentLabel {
    const l = new FragmentLabel(framed);
    this.labels.push(l);
    return l;
  }

  /** Places `l` here. */
  place(l: FragmentLabel): this {
    if (l.at >= 0) throw new Error('a fragment label placed twice');
    l.at = this.length;
    return this;
  }

  /** Offset of the next byte in the fragment being built. */
  get offset(): number {
    return this.length - this.start;
  }

  /** A branch (goto, if…) to `to`, inside the fragment. */
  jump(opcode: number, to: FragmentLabel): this {
    this.jumps.push({ at: this.length, to });
    return this.op3(opcode, 0);
  }

  /** The fragment's bytes (a view, valid until `reset`), and the offsets in them of its framed labels, in order. */
  finish(): { bytes: Uint8Array; frames: number[] } {
    for (const { at, to } of this.jumps) {
      if (to.at < 0) throw new Error('a fragment branches to a label it never placed');
      const d = to.at - at;
      if (d < -32768 || d > 32767) throw new Error(`a fragment branch of ${d} bytes`);
      this.buf[at + 1] = (d >> 8) & 0xff;
      this.buf[at + 2] = d & 0xff;
    }
    const frames: number[] = [];
    for (const l of this.labels) if (l.framed && l.at >= 0 && !frames.includes(l.at - this.start)) frames.push(l.at - this.start);
    frames.sort((a, b) => a - b);
    const bytes = this.buf.subarray(this.start, this.length);
    this.start = this.length;
    this.jumps.length = 0;
    this.labels.length = 0;
    return { bytes, frames };
  }
}
