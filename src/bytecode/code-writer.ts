/**
 * Encodes the IR of ir.ts back into a Code attribute (JVMS 4.7.3): assigns offsets (iterating
 * while far branches widen), keeps every instruction's `form` while it still encodes the operand
 * (so a method read and written unchanged is byte-identical), computes max_stack/max_locals,
 * and re-encodes the offset-bearing sub-attributes (StackMapTable, LineNumberTable, local variable
 * tables, type annotations). It throws rather than write an attribute the JVM would reject, and
 * writes the one instruction HotSpot misreads (a keyless lookupswitch that ends the code) another way.
 */
import type { ClassFile } from '../classfile/classfile.js';
import type { ConstantPool } from '../classfile/constant-pool.js';
import { firstClassIndex as classRef } from '../classfile/class-refs.js';
import { argSlots } from '../classfile/descriptor.js';
import { ACC, CONSTANT, type MemberInfo, type RawAttribute } from '../classfile/model.js';
import { MethodTooLargeError } from '../errors.js';
import { ByteWriter } from './byte-writer.js';
import { methodDisplayName } from './code-reader.js';
import { Label, isLabel, type CodeTypeAnnotation, type Frame, type Insn, type LocalVar, type MethodCode, type VType } from './ir.js';
import {
  Fmt,
  OP,
  OPCODE_FORMATS,
  OPCODE_NAMES,
  implicitVarBase,
  implicitVarIndex,
  implicitVarOpcode,
  invertCondition,
  isConditionalBranch,
  isUnconditionalTransfer,
} from './opcodes.js';
import { stackEffect } from './stack-effect.js';
import { classNameOfVType, compressLocals, initialLocalEntries } from './vtypes.js';

export interface WriteCodeOptions {
  /**
   * The frame at `label`, the fall-through point of a conditional branch (`branch`, at
   * `code.nodes[nodeIndex]`) that the encoder widened into "inverted condition over goto_w": that
   * point becomes a branch target and needs a stack map frame in class files of version 50 and up.
   * `label` is the label already following the branch in `code.nodes` if there is one, else a new
   * label at that position. Callers whose code may need widening pass analysis/frames.ts
   * encoderFrames; without it, such code is refused.
   */
  frameAt?: (label: Label, branch: Insn, nodeIndex: number) => Frame;
  /**
   * Encode every branch in its 32-bit form (goto_w, jsr_w, inverted conditional over goto_w), as if
   * all were far. For stress tests of widening and of the frames it needs; not for production.
   */
  widenAllBranches?: boolean;
}

export interface CodeLayout {
  codeLength: number;
  /** Offset of every instruction. */
  insnOffsets: Map<Insn, number>;
  /** Conditional branches encoded as the inverted condition over a goto_w. */
  widened: Set<Insn>;
}

/** Offsets as writeCode would assign them (labels get `offset` too), without encoding. */
export function layoutCode(cf: ClassFile, method: MemberInfo, code: MethodCode): CodeLayout {
  const enc = new Encoder(cf, method, code, {});
  try {
    enc.prepare();
    enc.layout();
    return { codeLength: enc.codeLength, insnOffsets: enc.insnOffsets(), widened: enc.widenedSet() };
  } finally {
    enc.release();
  }
}

export function writeCode(cf: ClassFile, method: MemberInfo, code: MethodCode, options: WriteCodeOptions = {}): RawAttribute {
  const enc = new Encoder(cf, method, code, options);
  try {
    enc.prepare();
    enc.layout();
    return enc.encode();
  } finally {
    enc.release();
  }
}

/** The code_length of an encoded Code attribute (after max_stack and max_locals). */
export function codeLength(attr: RawAttribute): number {
  const b = attr.info;
  return b.length >= 8 ? ((b[4]! << 24) | (b[5]! << 16) | (b[6]! << 8) | b[7]!) >>> 0 : 0;
}

/**
 * The scratch buffer of the last finished Encoder. An Encoder takes it (so a nested one, from a
 * frameAt hook, allocates its own) and gives it back when done.
 */
let spareBuffer: ArrayBuffer | null = null;

/**
 * The opcode byte a load/store/ret with local `v` is written with: WIDE, `op` itself (u1 index) or
 * the short form (iload_0 …). `form` is kept while it can encode `v`, else the shortest is used.
 */
export function varForm(op: number, v: number, form: number | undefined): number {
  if (form === OP.WIDE) return OP.WIDE;
  if (form === op && v <= 255) return op;
  const imp = implicitVarOpcode(op, v);
  if (form !== undefined && form === imp) return form;
  return imp >= 0 ? imp : v <= 255 ? op : OP.WIDE;
}

/** The opcode byte an iinc is written with: WIDE or IINC. */
export function iincForm(v: number, inc: number, form: number | undefined): number {
  return form === OP.WIDE || v > 255 || inc < -128 || inc > 127 ? OP.WIDE : OP.IINC;
}

const KIND_LABEL = -1;

/** Frame-kind categories of JVMS 4.7.4 frame_type values. */
function kindCategory(k: number): number {
  if (k < 64) return 0; // same_frame
  if (k < 128) return 64; // same_locals_1_stack_item_frame
  return k; // 247 … 255 are their own categories
}

function sameList(a: readonly VType[], b: readonly VType[], n = a.length): boolean {
  if (a.length !== n || b.length !== n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `a` has `b` as its first b.length elements. */
function isPrefix(b: readonly VType[], a: readonly VType[]): boolean {
  if (b.length > a.length) return false;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function utf8Ref(cp: ConstantPool, index: number | undefined, s: string): number {
  if (index !== undefined && cp.has(index) && cp.tag(index) === CONSTANT.Utf8 && cp.utf8(index) === s) return index;
  return cp.utf8Index(s);
}

function words(stack: readonly VType[]): number {
  let w = 0;
  for (const t of stack) w += t === 'J' || t === 'D' ? 2 : 1;
  return w;
}

class Encoder {
  private readonly nodes: MethodCode['nodes'];
  private readonly n: number;
  /** Per node: the canonical opcode, or KIND_LABEL. */
  private readonly ops: Int32Array;
  /** Per instruction node: the opcode byte written first (the chosen form). */
  private readonly emit: Int32Array;
  /** Per instruction node: its size, or -1 when it depends on the offset (switches, branches). */
  private readonly size: Int32Array;
  /** Per node: offset. */
  private readonly off: Int32Array;
  /** Per branch node: 1 once it must use a 32-bit offset. */
  private readonly wide: Uint8Array;
  /** maxStack's scratch: the next instruction node at or after each node, and stack heights. */
  private readonly next: Int32Array;
  private readonly heights: Int32Array;
  private readonly buffer: ArrayBuffer;
  private readonly branches: number[] = [];
  private readonly labelIndex = new Map<Label, number>();
  /**
   * The node of a lookupswitch without keys that is the last instruction, or -1. HotSpot reads a
   * lookupswitch only when its 8 fixed bytes end before the code does (Bytecodes::special_length_at),
   * so such a switch is a "Bad instruction" to its verifier; it is written as `pop; goto default`
   * (same stack effect, same successor, no new frame), with `wide` choosing goto_w. A copy a layout
   * appends can end with one (javac's switch with only a default, in JavaCC's token managers).
   */
  private keylessAtEnd = -1;
  codeLength = 0;

  constructor(
    private readonly cf: ClassFile,
    private readonly method: MemberInfo,
    private readonly code: MethodCode,
    private readonly options: WriteCodeOptions,
  ) {
    this.nodes = code.nodes;
    this.n = this.nodes.length;
    // Views of one buffer, reused from the previous method when it is big enough: allocating
    // ArrayBuffers per method cost more than the rest of the constructor.
    const n = this.n;
    const bytes = n * 29 + 4;
    let buf = spareBuffer;
    if (buf === null || buf.byteLength < bytes) buf = new ArrayBuffer(Math.max(bytes, 4096));
    else {
      spareBuffer = null;
      // As fresh as a new buffer: prepare() tells labels from instructions by a zero in ops.
      new Uint8Array(buf, 0, bytes).fill(0);
    }
    this.buffer = buf;
    this.ops = new Int32Array(buf, 0, n);
    this.emit = new Int32Array(buf, n * 4, n);
    this.size = new Int32Array(buf, n * 8, n);
    this.off = new Int32Array(buf, n * 12, n);
    this.next = new Int32Array(buf, n * 16, n + 1);
    this.heights = new Int32Array(buf, n * 20 + 4, n);
    this.wide = new Uint8Array(buf, n * 24 + 4, n);
  }

  /** Gives the scratch buffer back; the Encoder must not be used afterwards. */
  release(): void {
    if (spareBuffer === null || spareBuffer.byteLength < this.buffer.byteLength) spareBuffer = this.buffer;
  }

  private bug(detail: string): never {
    throw new Error(`writeCode ${methodDisplayName(this.cf, this.method)}: ${detail}`);
  }

  private hasLabel(l: Label | undefined): l is Label {
    return l !== undefined && this.labelIndex.has(l);
  }

  private checkLabel(l: Label | undefined, what: string): void {
    if (!this.hasLabel(l)) this.bug(`${what} refers to a label that is not in the instruction list`);
  }

  /** Chooses each instruction's encoding where it does not depend on offsets, and checks operands. */
  prepare(): void {
    const { nodes, n, ops, emit, size, wide } = this;
    for (let i = 0; i < n; i++) {
      const node = nodes[i]!;
      if (isLabel(node)) {
        if (this.labelIndex.has(node)) this.bug(`label ${node.id} appears twice in the instruction list`);
        this.labelIndex.set(node, i);
        ops[i] = KIND_LABEL;
      }
    }
    const u2 = (v: number | undefined, what: string, min = 0): number => {
      if (v === undefined || !Number.isInteger(v) || v < min || v > 0xffff) this.bug(`${what} ${v} at node is out of range`);
      return v;
    };
    for (let i = 0; i < n; i++) {
      if (ops[i] === KIND_LABEL) continue;
      const insn = nodes[i] as Insn;
      const op = insn.op;
      ops[i] = op;
      emit[i] = op;
      const name = OPCODE_NAMES[op];
      switch (OPCODE_FORMATS[op] as Fmt) {
        case Fmt.NONE:
          size[i] = 1;
          break;
        case Fmt.S1:
          if (!Number.isInteger(insn.n) || insn.n! < -128 || insn.n! > 127) this.bug(`bipush ${insn.n} out of range`);
          size[i] = 2;
          break;
        case Fmt.S2:
          if (!Number.isInteger(insn.n) || insn.n! < -32768 || insn.n! > 32767) this.bug(`sipush ${insn.n} out of range`);
          size[i] = 3;
          break;
        case Fmt.ATYPE:
          if (!Number.isInteger(insn.n) || insn.n! < 0 || insn.n! > 255) this.bug(`newarray atype ${insn.n} out of range`);
          size[i] = 2;
          break;
        case Fmt.VAR: {
          const e = varForm(op, u2(insn.var, `${name} index`), insn.form);
          emit[i] = e;
          size[i] = e === OP.WIDE ? 4 : e === op ? 2 : 1;
          break;
        }
        case Fmt.VAR_IMPLICIT:
          size[i] = 1; // a non-canonical iload_0 … astore_3: the opcode carries the index
          break;
        case Fmt.IINC: {
          const v = u2(insn.var, 'iinc index');
          const inc = insn.inc;
          if (inc === undefined || !Number.isInteger(inc) || inc < -32768 || inc > 32767) this.bug(`iinc increment ${inc} out of range`);
          emit[i] = iincForm(v, inc, insn.form);
          size[i] = emit[i] === OP.WIDE ? 6 : 3;
          break;
        }
        case Fmt.CP1: {
          const cp = u2(insn.cp, 'ldc constant', 1);
          emit[i] = insn.form === OP.LDC_W || cp > 255 ? OP.LDC_W : OP.LDC;
          size[i] = emit[i] === OP.LDC ? 2 : 3;
          break;
        }
        case Fmt.CP2:
          u2(insn.cp, `${name} constant`, 1);
          size[i] = 3;
          break;
        case Fmt.INVOKEINTERFACE:
          u2(insn.cp, 'invokeinterface constant', 1);
          if (insn.n !== undefined && (!Number.isInteger(insn.n) || insn.n < 1 || insn.n > 255)) this.bug(`invokeinterface count ${insn.n}`);
          size[i] = 5;
          break;
        case Fmt.INVOKEDYNAMIC:
          u2(insn.cp, 'invokedynamic constant', 1);
          size[i] = 5;
          break;
        case Fmt.MULTIANEWARRAY:
          u2(insn.cp, 'multianewarray constant', 1);
          if (!Number.isInteger(insn.n) || insn.n! < 1 || insn.n! > 255) this.bug(`multianewarray dimensions ${insn.n}`);
          size[i] = 4;
          break;
        case Fmt.BRANCH:
          this.checkLabel(insn.target, name!);
          wide[i] = insn.form === OP.GOTO_W || insn.form === OP.JSR_W || this.options.widenAllBranches ? 1 : 0;
          size[i] = -1;
          this.branches.push(i);
          break;
        case Fmt.BRANCH_W:
          this.checkLabel(insn.target, name!);
          wide[i] = 1;
          size[i] = -1;
          break;
        case Fmt.TABLESWITCH:
          this.checkLabel(insn.dflt, 'tableswitch default');
          if (insn.targets === undefined || insn.targets.length === 0) this.bug('tableswitch without targets');
          for (const t of insn.targets) this.checkLabel(t, 'tableswitch');
          if (!Number.isInteger(insn.low) || insn.low! + insn.targets.length - 1 > 0x7fffffff || insn.low! < -0x80000000) {
            this.bug(`tableswitch low ${insn.low} with ${insn.targets.length} targets`);
          }
          size[i] = -1;
          break;
        case Fmt.LOOKUPSWITCH: {
          this.checkLabel(insn.dflt, 'lookupswitch default');
          const keys = insn.keys ?? [];
          const targets = insn.targets ?? [];
          if (keys.length !== targets.length) this.bug('lookupswitch keys and targets differ in length');
          for (const t of targets) this.checkLabel(t, 'lookupswitch');
          size[i] = -1;
          break;
        }
        default:
          this.bug(`node ${i} has opcode ${op} (${name || 'invalid'}), which is not a canonical instruction`);
      }
    }
    for (const tc of this.code.tryCatch) {
      this.checkLabel(tc.start, 'exception table start');
      this.checkLabel(tc.end, 'exception table end');
      this.checkLabel(tc.handler, 'exception table handler');
    }
    let last = n - 1;
    while (last >= 0 && ops[last] === KIND_LABEL) last--;
    if (last >= 0 && ops[last] === OP.LOOKUPSWITCH && ((nodes[last] as Insn).keys?.length ?? 0) === 0) {
      this.keylessAtEnd = last;
      wide[last] = this.options.widenAllBranches ? 1 : 0;
    }
  }

  /** Assigns offsets, widening branches whose displacement no longer fits 16 bits, until stable. */
  layout(): void {
    const { nodes, n, ops, size, off, wide } = this;
    // Widening only ever grows the code, so this terminates after at most one pass per branch.
    for (;;) {
      let pc = 0;
      for (let i = 0; i < n; i++) {
        const op = ops[i]!;
        off[i] = pc;
        if (op === KIND_LABEL) {
          (nodes[i] as Label).offset = pc;
          continue;
        }
        let s = size[i]!;
        if (s < 0) {
          const insn = nodes[i] as Insn;
          if (op === OP.TABLESWITCH) s = 1 + (3 - (pc & 3)) + 12 + 4 * insn.targets!.length;
          else if (i === this.keylessAtEnd) s = wide[i] ? 6 : 4;
          else if (op === OP.LOOKUPSWITCH) s = 1 + (3 - (pc & 3)) + 8 + 8 * (insn.targets?.length ?? 0);
          else s = wide[i] ? (isConditionalBranch(op) ? 8 : 5) : 3;
        }
        pc += s;
      }
      this.codeLength = pc;
      if (pc > 65535) throw new MethodTooLargeError(this.cf.thisClass, this.method.name + this.method.desc, pc);
      let changed = false;
      for (const i of this.branches) {
        if (wide[i]) continue;
        const d = (nodes[i] as Insn).target!.offset - off[i]!;
        if (d < -32768 || d > 32767) {
          wide[i] = 1;
          changed = true;
        }
      }
      const k = this.keylessAtEnd;
      if (k >= 0 && !wide[k]) {
        const d = (nodes[k] as Insn).dflt!.offset - (off[k]! + 1); // from its goto, after the pop
        if (d < -32768 || d > 32767) {
          wide[k] = 1;
          changed = true;
        }
      }
      if (!changed) break;
    }
    if (this.codeLength === 0) this.bug('the method has no instructions');
  }

  insnOffsets(): Map<Insn, number> {
    const m = new Map<Insn, number>();
    for (let i = 0; i < this.n; i++) {
      if (this.ops[i] === KIND_LABEL) continue;
      const insn = this.nodes[i] as Insn;
      if (m.has(insn)) this.bug(`the same Insn object appears twice in the instruction list (node ${i})`);
      m.set(insn, this.off[i]!);
    }
    return m;
  }

  widenedSet(): Set<Insn> {
    const s = new Set<Insn>();
    for (const i of this.branches) if (this.wide[i] && isConditionalBranch(this.ops[i]!)) s.add(this.nodes[i] as Insn);
    return s;
  }

  private encodeInstructions(): Uint8Array {
    const { nodes, n, ops, emit, off, wide } = this;
    const b = new Uint8Array(this.codeLength);
    const dv = new DataView(b.buffer);
    const cp = this.cf.cp;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === KIND_LABEL) continue;
      const insn = nodes[i] as Insn;
      const pc = off[i]!;
      switch (OPCODE_FORMATS[op] as Fmt) {
        case Fmt.NONE:
        case Fmt.VAR_IMPLICIT:
          b[pc] = op;
          break;
        case Fmt.S1:
        case Fmt.ATYPE:
          b[pc] = op;
          b[pc + 1] = insn.n! & 0xff;
          break;
        case Fmt.S2:
          b[pc] = op;
          dv.setInt16(pc + 1, insn.n!);
          break;
        case Fmt.VAR: {
          const e = emit[i]!;
          if (e === OP.WIDE) {
            b[pc] = OP.WIDE;
            b[pc + 1] = op;
            dv.setUint16(pc + 2, insn.var!);
          } else if (e === op) {
            b[pc] = op;
            b[pc + 1] = insn.var!;
          } else {
            b[pc] = e;
          }
          break;
        }
        case Fmt.IINC:
          if (emit[i] === OP.WIDE) {
            b[pc] = OP.WIDE;
            b[pc + 1] = OP.IINC;
            dv.setUint16(pc + 2, insn.var!);
            dv.setInt16(pc + 4, insn.inc!);
          } else {
            b[pc] = OP.IINC;
            b[pc + 1] = insn.var!;
            b[pc + 2] = insn.inc! & 0xff;
          }
          break;
        case Fmt.CP1:
          if (emit[i] === OP.LDC) {
            b[pc] = OP.LDC;
            b[pc + 1] = insn.cp!;
          } else {
            b[pc] = OP.LDC_W;
            dv.setUint16(pc + 1, insn.cp!);
          }
          break;
        case Fmt.CP2:
          b[pc] = op;
          dv.setUint16(pc + 1, insn.cp!);
          break;
        case Fmt.INVOKEINTERFACE: {
          b[pc] = op;
          dv.setUint16(pc + 1, insn.cp!);
          // The count is redundant with the descriptor (JVMS 6.5 invokeinterface); compute it when not given.
          b[pc + 3] = insn.n ?? argSlots(cp.memberDesc(insn.cp!)) + 1;
          b[pc + 4] = 0;
          break;
        }
        case Fmt.INVOKEDYNAMIC:
          b[pc] = op;
          dv.setUint16(pc + 1, insn.cp!);
          break;
        case Fmt.MULTIANEWARRAY:
          b[pc] = op;
          dv.setUint16(pc + 1, insn.cp!);
          b[pc + 3] = insn.n!;
          break;
        case Fmt.BRANCH: {
          const target = insn.target!.offset;
          if (!wide[i]) {
            b[pc] = op;
            dv.setInt16(pc + 1, target - pc);
          } else if (isConditionalBranch(op)) {
            b[pc] = invertCondition(op);
            dv.setInt16(pc + 1, 8);
            b[pc + 3] = OP.GOTO_W;
            dv.setInt32(pc + 4, target - (pc + 3));
          } else {
            b[pc] = op === OP.GOTO ? OP.GOTO_W : OP.JSR_W;
            dv.setInt32(pc + 1, target - pc);
          }
          break;
        }
        case Fmt.BRANCH_W:
          b[pc] = op;
          dv.setInt32(pc + 1, insn.target!.offset - pc);
          break;
        case Fmt.TABLESWITCH: {
          b[pc] = op;
          let p = (pc + 4) & ~3; // padding bytes stay 0
          dv.setInt32(p, insn.dflt!.offset - pc);
          dv.setInt32(p + 4, insn.low!);
          dv.setInt32(p + 8, insn.low! + insn.targets!.length - 1);
          p += 12;
          for (const t of insn.targets!) {
            dv.setInt32(p, t.offset - pc);
            p += 4;
          }
          break;
        }
        case Fmt.LOOKUPSWITCH: {
          if (i === this.keylessAtEnd) {
            const d = insn.dflt!.offset - (pc + 1);
            b[pc] = OP.POP;
            b[pc + 1] = wide[i] ? OP.GOTO_W : OP.GOTO;
            if (wide[i]) dv.setInt32(pc + 2, d);
            else dv.setInt16(pc + 2, d);
            break;
          }
          b[pc] = op;
          let p = (pc + 4) & ~3;
          const keys = insn.keys ?? [];
          const targets = insn.targets ?? [];
          dv.setInt32(p, insn.dflt!.offset - pc);
          dv.setInt32(p + 4, keys.length);
          p += 8;
          for (let k = 0; k < keys.length; k++) {
            dv.setInt32(p, keys[k]!);
            dv.setInt32(p + 4, targets[k]!.offset - pc);
            p += 8;
          }
          break;
        }
        default:
          this.bug(`cannot encode opcode ${op}`);
      }
    }
    return b;
  }

  /** Frames for the fall-through points of widened conditionals that do not have one yet. */
  private extraFrames(): { label: Label; frame: Frame }[] {
    const out: { label: Label; frame: Frame }[] = [];
    if (this.cf.major < 50) return out; // no StackMapTable before version 50 (JVMS 4.7.4)
    const { nodes, n, wide, ops, off, code } = this;
    for (const i of this.branches) {
      if (!wide[i] || !isConditionalBranch(ops[i]!)) continue;
      let existing: Label | undefined;
      let framed = false;
      for (let j = i + 1; j < n && ops[j] === KIND_LABEL; j++) {
        const l = nodes[j] as Label;
        existing ??= l;
        if (code.frames?.has(l)) framed = true;
      }
      if (framed) continue;
      const at = off[i]! + 8;
      if (at >= this.codeLength) continue; // falls off the code: the verifier rejects it either way
      const insn = nodes[i] as Insn;
      const label = existing ?? new Label();
      label.offset = at;
      if (this.options.frameAt === undefined) this.bug(`the branch at ${off[i]} needs widening, and a frame after it, but no frameAt was given`);
      out.push({ label, frame: this.options.frameAt(label, insn, i) });
    }
    return out;
  }

  private maxStack(): number {
    const { nodes, n, ops, code } = this;
    const cp = this.cf.cp;
    const next = this.next;
    next[n] = -1;
    for (let i = n - 1; i >= 0; i--) next[i] = ops[i] === KIND_LABEL ? next[i + 1]! : i;
    const heights = this.heights.fill(-1);
    const work: number[] = [];
    let max = 0;
    const seed = (i: number, h: number): void => {
      if (i < 0 || heights[i]! >= 0) return;
      heights[i] = h;
      if (h > max) max = h;
      work.push(i);
    };
    const at = (l: Label): number => next[this.labelIndex.get(l)!]!;
    seed(next[0]!, 0);
    // A handler starts with just the exception; a framed position (possibly unreachable, but still
    // verified) with its frame's stack.
    for (const tc of code.tryCatch) seed(at(tc.handler), 1);
    if (code.frames !== null) for (const [l, f] of code.frames) if (this.hasLabel(l)) seed(at(l), words(f.stack));
    while (work.length > 0) {
      const i = work.pop()!;
      const insn = nodes[i] as Insn;
      const op = insn.op;
      const h = heights[i]!;
      const h2 = h + stackEffect(cp, insn);
      if (h2 > max) max = h2;
      if (op === OP.JSR) {
        seed(at(insn.target!), h2);
        seed(next[i + 1]!, h); // the subroutine returns with the height it was called with
        continue;
      }
      if (insn.target !== undefined) seed(at(insn.target), h2);
      if (insn.targets !== undefined) {
        seed(at(insn.dflt!), h2);
        for (const t of insn.targets) seed(at(t), h2);
      }
      if (!isUnconditionalTransfer(op)) seed(next[i + 1]!, h2);
    }
    return max;
  }

  private maxLocals(frames: readonly { frame: Frame }[]): number {
    let max = argSlots(this.method.desc) + ((this.method.access & ACC.STATIC) === 0 ? 1 : 0);
    const { nodes, n, ops } = this;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === KIND_LABEL) continue;
      let v = (nodes[i] as Insn).var;
      let base = op;
      if (OPCODE_FORMATS[op] === Fmt.VAR_IMPLICIT) {
        // a non-canonical iload_0 … astore_3 carries its index in the opcode
        v = implicitVarIndex(op);
        base = implicitVarBase(op);
      }
      if (v === undefined) continue;
      const top = v + (base === OP.LLOAD || base === OP.DLOAD || base === OP.LSTORE || base === OP.DSTORE ? 2 : 1);
      if (top > max) max = top;
    }
    for (const { frame } of frames) {
      let len = frame.locals.length;
      while (len > 0 && frame.locals[len - 1] === 'T') len--;
      if (len > 0 && (frame.locals[len - 1] === 'J' || frame.locals[len - 1] === 'D')) len++;
      if (len > max) max = len;
    }
    return max;
  }

  private writeVType(w: ByteWriter, t: VType, offsets: () => Map<Insn, number>): void {
    if (typeof t !== 'string') {
      const at = offsets().get(t);
      if (at === undefined || t.op !== OP.NEW) this.bug('a frame has uninitialized(new) for a new that is not in the code');
      w.u1(8);
      w.u2(at);
      return;
    }
    switch (t) {
      case 'T': w.u1(0); return;
      case 'I': w.u1(1); return;
      case 'F': w.u1(2); return;
      case 'D': w.u1(3); return;
      case 'J': w.u1(4); return;
      case 'N': w.u1(5); return;
      case 'U': w.u1(6); return;
      default:
        if (t[0] !== 'L' && t[0] !== '[') this.bug(`bad verification type '${t}'`);
        w.u1(7);
        w.u2(classRef(this.cf.cp, classNameOfVType(t)));
    }
  }

  private encodeFrames(frames: { label: Label; frame: Frame }[], offsets: () => Map<Insn, number>): Uint8Array {
    const w = new ByteWriter(64 + frames.length * 8);
    w.u2(frames.length);
    let prev: VType[] = initialLocalEntries(this.cf, this.method);
    let prevOffset = -1;
    const kinds = this.code.frameKinds;
    for (const { label, frame } of frames) {
      const offset = label.offset;
      const delta = prevOffset < 0 ? offset : offset - prevOffset - 1;
      prevOffset = offset;
      let cur: VType[];
      try {
        cur = compressLocals(frame.locals);
      } catch (e) {
        this.bug(`frame at ${offset}: ${(e as Error).message}`);
      }
      const stack = frame.stack;
      const recorded = kinds.get(label);
      let kind = -1;
      if (recorded !== undefined) {
        // Reuse the kind read where it is still valid for the exact locals (trailing Tops and all),
        // so an unchanged method encodes to the same bytes.
        const c = kindCategory(recorded);
        const ns = stack.length;
        if (c === 0 || c === 64) {
          if (delta < 64 && ns === c / 64 && sameList(cur, prev)) kind = c + delta;
        } else if (c === 247) {
          if (ns === 1 && sameList(cur, prev)) kind = 247;
        } else if (c < 251) {
          if (ns === 0 && prev.length - cur.length === 251 - c && isPrefix(cur, prev)) kind = c;
        } else if (c === 251) {
          if (ns === 0 && sameList(cur, prev)) kind = 251;
        } else if (c < 255) {
          if (ns === 0 && cur.length - prev.length === c - 251 && isPrefix(prev, cur)) kind = c;
        } else {
          kind = 255;
        }
      }
      if (kind < 0) {
        // Trailing Tops are the same as absent locals to the verifier; drop them to compress.
        let len = cur.length;
        while (len > 0 && cur[len - 1] === 'T') len--;
        if (len < cur.length) cur = cur.slice(0, len);
        const ns = stack.length;
        const same = sameList(cur, prev);
        if (ns === 0 && same) kind = delta < 64 ? delta : 251;
        else if (ns === 1 && same) kind = delta < 64 ? 64 + delta : 247;
        else if (ns === 0 && cur.length < prev.length && prev.length - cur.length <= 3 && isPrefix(cur, prev)) {
          kind = 251 - (prev.length - cur.length);
        } else if (ns === 0 && cur.length > prev.length && cur.length - prev.length <= 3 && isPrefix(prev, cur)) {
          kind = 251 + (cur.length - prev.length);
        } else kind = 255;
      }
      w.u1(kind);
      if (kind >= 247) w.u2(delta);
      if (kind >= 64 && kind < 128) {
        this.writeVType(w, stack[0]!, offsets);
      } else if (kind === 247) {
        this.writeVType(w, stack[0]!, offsets);
      } else if (kind > 251 && kind < 255) {
        for (let k = prev.length; k < cur.length; k++) this.writeVType(w, cur[k]!, offsets);
      } else if (kind === 255) {
        w.u2(cur.length);
        for (const t of cur) this.writeVType(w, t, offsets);
        w.u2(stack.length);
        for (const t of stack) this.writeVType(w, t, offsets);
      }
      prev = cur;
    }
    return w.finish();
  }

  encode(): RawAttribute {
    const { cf, method, code } = this;
    const cp = cf.cp;
    const bytes = this.encodeInstructions();
    const codeLength = this.codeLength;
    let offsetsMap: Map<Insn, number> | undefined;
    const offsets = (): Map<Insn, number> => (offsetsMap ??= this.insnOffsets());

    // Frames in offset order, plus those the widening needs.
    let frames: { label: Label; frame: Frame }[] = [];
    if (code.frames !== null) {
      for (const [label, frame] of code.frames) {
        if (!this.hasLabel(label)) continue; // its code was removed
        frames.push({ label, frame });
      }
    }
    const extra = this.extraFrames();
    if (extra.length > 0) frames = frames.concat(extra);
    let sorted = true;
    for (let k = 1; k < frames.length; k++) if (frames[k]!.label.offset <= frames[k - 1]!.label.offset) sorted = false;
    if (!sorted) {
      frames.sort((a, b) => a.label.offset - b.label.offset);
      const dedup: typeof frames = [];
      for (const f of frames) {
        const last = dedup[dedup.length - 1];
        if (last !== undefined && last.label.offset === f.label.offset) {
          if (!sameList(last.frame.locals, f.frame.locals) || !sameList(last.frame.stack, f.frame.stack)) {
            this.bug(`two different stack map frames at offset ${f.label.offset}: ${JSON.stringify(last.frame)} and ${JSON.stringify(f.frame)}`);
          }
          continue;
        }
        dedup.push(f);
      }
      frames = dedup;
    }
    for (const f of frames) {
      if (f.label.offset >= codeLength) this.bug(`a stack map frame at offset ${f.label.offset}, at the end of the code`);
    }

    const maxStack = Math.max(code.maxStack, this.maxStack());
    const maxLocals = Math.max(code.maxLocals, this.maxLocals(frames));
    if (maxStack > 0xffff || maxLocals > 0xffff) this.bug(`max_stack ${maxStack} or max_locals ${maxLocals} exceeds 65535`);

    const w = new ByteWriter(codeLength + 256);
    w.u2(maxStack);
    w.u2(maxLocals);
    w.u4(codeLength);
    w.bytes(bytes);

    // exception_table; a range a transform emptied is dropped (HotSpot rejects start_pc >= end_pc).
    const excIndex = new Int32Array(code.tryCatch.length).fill(-1);
    const countAt = w.length;
    w.u2(0);
    let nExc = 0;
    code.tryCatch.forEach((tc, k) => {
      if (tc.start.offset >= tc.end.offset) return;
      let ct = 0;
      if (tc.catchType !== null) {
        const i = tc.catchTypeIndex;
        ct = i > 0 && cp.has(i) && cp.tag(i) === CONSTANT.Class && cp.className(i) === tc.catchType ? i : classRef(cp, tc.catchType);
      }
      w.u2(tc.start.offset);
      w.u2(tc.end.offset);
      w.u2(tc.handler.offset);
      w.u2(ct);
      excIndex[k] = nExc++;
    });
    if (nExc > 0xffff) this.bug('more than 65535 exception table entries');
    w.patchU2(countAt, nExc);

    const attrs: { nameIndex: number; info: Uint8Array }[] = [];
    let wroteFrames = false;
    const frameTable = (): Uint8Array => this.encodeFrames(frames, offsets);
    for (const slot of code.attributes) {
      switch (slot.kind) {
        case 'raw':
          attrs.push({ nameIndex: utf8Ref(cp, slot.attribute.nameIndex, slot.attribute.name), info: slot.attribute.info });
          break;
        case 'StackMapTable':
          if (code.frames === null && frames.length === 0) break;
          if (wroteFrames) break;
          wroteFrames = true;
          attrs.push({ nameIndex: utf8Ref(cp, slot.nameIndex, slot.kind), info: frameTable() });
          break;
        case 'LineNumberTable': {
          const lw = new ByteWriter(2 + slot.entries.length * 4);
          lw.u2(0);
          let k = 0;
          for (const e of slot.entries) {
            if (!this.hasLabel(e.start) || e.start.offset >= codeLength) continue;
            lw.u2(e.start.offset);
            lw.u2(e.line);
            k++;
          }
          lw.patchU2(0, k);
          attrs.push({ nameIndex: utf8Ref(cp, slot.nameIndex, slot.kind), info: lw.finish() });
          break;
        }
        case 'LocalVariableTable':
        case 'LocalVariableTypeTable':
          attrs.push({ nameIndex: utf8Ref(cp, slot.nameIndex, slot.kind), info: this.encodeLocals(slot.entries) });
          break;
        case 'RuntimeVisibleTypeAnnotations':
        case 'RuntimeInvisibleTypeAnnotations':
          attrs.push({
            nameIndex: utf8Ref(cp, slot.nameIndex, slot.kind),
            info: this.encodeTypeAnnotations(slot.annotations, excIndex, offsets),
          });
          break;
      }
    }
    if (!wroteFrames && frames.length > 0) {
      attrs.push({ nameIndex: cp.utf8Index('StackMapTable'), info: frameTable() });
    }
    w.u2(attrs.length);
    for (const a of attrs) {
      w.u2(a.nameIndex);
      w.u4(a.info.length);
      w.bytes(a.info);
    }
    const old = method.attributes.find((a) => a.name === 'Code');
    return { nameIndex: utf8Ref(cp, old?.nameIndex, 'Code'), name: 'Code', info: w.finish() };
  }

  private encodeLocals(entries: readonly LocalVar[]): Uint8Array {
    const w = new ByteWriter(2 + entries.length * 10);
    w.u2(0);
    let k = 0;
    for (const e of entries) {
      // Entries whose range a transform removed or reversed are dropped rather than written wrong.
      if (!this.hasLabel(e.start) || !this.hasLabel(e.end)) continue;
      const start = e.start.offset;
      const end = e.end.offset;
      if (start >= this.codeLength || end < start) continue;
      w.u2(start);
      w.u2(end - start);
      w.u2(e.nameIndex);
      w.u2(e.descIndex);
      w.u2(e.index);
      k++;
    }
    w.patchU2(0, k);
    return w.finish();
  }

  private encodeTypeAnnotations(
    list: readonly CodeTypeAnnotation[],
    excIndex: Int32Array,
    offsets: () => Map<Insn, number>,
  ): Uint8Array {
    const w = new ByteWriter(64);
    w.u2(0);
    let k = 0;
    for (const a of list) {
      const t = a.targetType;
      if (t === 0x40 || t === 0x41) {
        const ranges = (a.ranges ?? []).filter(
          (r) => this.hasLabel(r.start) && this.hasLabel(r.end) && r.start.offset < this.codeLength && r.end.offset >= r.start.offset,
        );
        if (ranges.length === 0 && (a.ranges ?? []).length > 0) continue;
        w.u1(t);
        w.u2(ranges.length);
        for (const r of ranges) {
          w.u2(r.start.offset);
          w.u2(r.end.offset - r.start.offset);
          w.u2(r.index);
        }
      } else if (t === 0x42) {
        const i = a.index!;
        const mapped = i >= 0 && i < excIndex.length ? excIndex[i]! : i;
        if (mapped < 0) continue;
        w.u1(t);
        w.u2(mapped);
      } else if (t >= 0x43 && t <= 0x4b) {
        const at = a.insn === undefined ? undefined : offsets().get(a.insn);
        if (at === undefined) continue;
        w.u1(t);
        w.u2(at);
        if (t >= 0x47) w.u1(a.index!);
      } else {
        this.bug(`type annotation target_type 0x${t.toString(16)} does not belong in a Code attribute`);
      }
      w.bytes(a.rest);
      k++;
    }
    w.patchU2(0, k);
    return w.finish();
  }
}
