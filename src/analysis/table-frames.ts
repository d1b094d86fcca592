/**
 * The frame before instructions of a CodeTable, by straight-line simulation from the nearest
 * recorded stack map frame or the method's entry (analysis/frames.ts simulateFrames, on ints;
 * docs/non-object-ir.md, step 3). No merging and so no class hierarchy: exact wherever the recorded
 * frames are, which is what a new branch target needs in code whose control flow is otherwise
 * unchanged. Verification types are stack-map.ts ints; locals are simulated one entry per slot (a
 * long or double, then Top) and handed out as StackMapTable entries (a long or double is one).
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { parseMethodDescriptor } from '../classfile/descriptor.js';
import { CONSTANT } from '../classfile/model.js';
import { KomoriumError } from '../errors.js';
import type { CodeTable } from '../bytecode/code-table.js';
import { Fmt, NEWARRAY_TYPES, OP, OPCODE_FORMATS, implicitVarBase, implicitVarIndex, isUnconditionalTransfer } from '../bytecode/opcodes.js';
import { ITEM, vtUninitialized, type StackMap } from '../bytecode/stack-map.js';

/** A frame as StackMapTable entries. */
export interface TableFrame {
  locals: number[];
  stack: number[];
}

class SimulationError extends Error {}

const isWide = (v: number): boolean => v === ITEM.Long || v === ITEM.Double;

/**
 * Whether nothing falls through from instruction i: after it the frame is known only where one is
 * recorded (jsr too: its return point follows a subroutine).
 */
function endsStraightLine(t: CodeTable, i: number): boolean {
  const op = t.baseOp(i);
  return isUnconditionalTransfer(op) || op === OP.JSR || op === OP.JSR_W;
}
const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;

/** Pops and pushes of the opcodes whose effect is fixed (-1: not one of them); the pushed type, or -1. */
const POPS = new Int8Array(256).fill(-1);
const PUSH = new Int8Array(256).fill(-1);
{
  const set = (ops: number[], pops: number, push: number) =>
    ops.forEach((o) => {
      POPS[o] = pops;
      PUSH[o] = push;
    });
  const { Integer: I, Float: F, Long: J, Double: D, Null: N, Top: T } = ITEM;
  set([OP.IADD, OP.ISUB, OP.IMUL, OP.IDIV, OP.IREM, OP.ISHL, OP.ISHR, OP.IUSHR, OP.IAND, OP.IOR, OP.IXOR], 2, I);
  set([OP.LADD, OP.LSUB, OP.LMUL, OP.LDIV, OP.LREM, OP.LAND, OP.LOR, OP.LXOR, OP.LSHL, OP.LSHR, OP.LUSHR], 2, J);
  set([OP.FADD, OP.FSUB, OP.FMUL, OP.FDIV, OP.FREM], 2, F);
  set([OP.DADD, OP.DSUB, OP.DMUL, OP.DDIV, OP.DREM], 2, D);
  set([OP.INEG, OP.L2I, OP.F2I, OP.D2I, OP.I2B, OP.I2C, OP.I2S, OP.ARRAYLENGTH, OP.INSTANCEOF], 1, I);
  set([OP.LNEG, OP.I2L, OP.F2L, OP.D2L], 1, J);
  set([OP.FNEG, OP.I2F, OP.L2F, OP.D2F], 1, F);
  set([OP.DNEG, OP.I2D, OP.L2D, OP.F2D], 1, D);
  set([OP.LCMP, OP.FCMPL, OP.FCMPG, OP.DCMPL, OP.DCMPG], 2, I);
  set([OP.IALOAD, OP.BALOAD, OP.CALOAD, OP.SALOAD], 2, I);
  set([OP.LALOAD], 2, J);
  set([OP.FALOAD], 2, F);
  set([OP.DALOAD], 2, D);
  set([OP.IASTORE, OP.LASTORE, OP.FASTORE, OP.DASTORE, OP.AASTORE, OP.BASTORE, OP.CASTORE, OP.SASTORE], 3, -1);
  set([OP.IFEQ, OP.IFNE, OP.IFLT, OP.IFGE, OP.IFGT, OP.IFLE, OP.IFNULL, OP.IFNONNULL], 1, -1);
  set([OP.IF_ICMPEQ, OP.IF_ICMPNE, OP.IF_ICMPLT, OP.IF_ICMPGE, OP.IF_ICMPGT, OP.IF_ICMPLE, OP.IF_ACMPEQ, OP.IF_ACMPNE], 2, -1);
  set([OP.TABLESWITCH, OP.LOOKUPSWITCH, OP.MONITORENTER, OP.MONITOREXIT, OP.ATHROW], 1, -1);
  set([OP.IRETURN, OP.LRETURN, OP.FRETURN, OP.DRETURN, OP.ARETURN], 1, -1);
  set([OP.NOP, OP.GOTO, OP.GOTO_W, OP.RETURN, OP.IINC, OP.RET], 0, -1);
  set([OP.ACONST_NULL], 0, N);
  set([OP.ICONST_M1, OP.ICONST_0, OP.ICONST_1, OP.ICONST_2, OP.ICONST_3, OP.ICONST_4, OP.ICONST_5, OP.BIPUSH, OP.SIPUSH], 0, I);
  set([OP.LCONST_0, OP.LCONST_1], 0, J);
  set([OP.FCONST_0, OP.FCONST_1, OP.FCONST_2], 0, F);
  set([OP.DCONST_0, OP.DCONST_1], 0, D);
  set([OP.JSR, OP.JSR_W], 0, T); // a returnAddress: jsr code (class files < 50) has no frames to write
}

export class TableFrames {
  /**
   * The frame before each wanted instruction, in the order of `wanted`, or null where none is known
   * (after an unconditional transfer, until a recorded frame). (Not a Map: clearing and filling one
   * per method allocated more than the simulation.)
   */
  readonly before: (TableFrame | null)[] = [];
  private locals: number[] = [];
  private stack: number[] = [];
  private t!: CodeTable;
  private map!: StackMap;
  private cp!: ConstantPool;
  private thisClass = '';
  private knownAt = new Uint8Array(0);

  /**
   * Simulates `t` from its entry (map.initial) and its recorded frames (`map`, decoded) up to the
   * last of `wanted` (instruction indices, ascending), recording the frame before each of them.
   * `entry` and `method` name the class file and method in errors.
   */
  compute(t: CodeTable, map: StackMap, cp: ConstantPool, thisClass: string, wanted: readonly number[], entry: string, method: string): this {
    this.before.length = 0;
    if (wanted.length === 0) return this;
    this.t = t;
    this.map = map;
    this.cp = cp;
    this.thisClass = thisClass;
    this.startAtEntry(map.initial);
    // The state is the frame before instruction `pos`. Only the code between a wanted instruction
    // and the last recorded frame before it is simulated: a recorded frame is what the verifier
    // takes there, whatever came before.
    let pos = 0;
    let live = true;
    let g = -1; // the last recorded frame at or before the wanted instruction
    try {
      for (const i of wanted) {
        while (g + 1 < map.n && map.at[g + 1]! <= i) g++;
        if (g >= 0 && map.at[g]! >= pos) {
          pos = map.at[g]!;
          this.startFrom(map.types, map.localsAt[g]!, map.nLocals[g]!, map.stackAt[g]!, map.nStack[g]!);
          live = true;
        }
        for (; pos < i && live; pos++) {
          this.execute(pos);
          if (endsStraightLine(t, pos)) live = false;
        }
        pos = Math.max(pos, i);
        this.before.push(live ? this.snapshot() : null);
      }
    } catch (e) {
      if (!(e instanceof SimulationError)) throw e;
      throw new KomoriumError(`${entry}: method ${method}: frame simulation failed at offset ${t.pc[pos]}: ${e.message}`);
    }
    return this;
  }

  /**
   * Where a frame is known before an instruction (1) and where not (0: after an unconditional
   * transfer, until a recorded frame), as compute would find it, without simulating: where a pass
   * may put a branch whose target needs a frame.
   */
  known(t: CodeTable, map: StackMap): Uint8Array {
    if (this.knownAt.length < t.n) this.knownAt = new Uint8Array(Math.max(t.n, 2 * this.knownAt.length));
    const out = this.knownAt;
    let live = true;
    let f = 0;
    for (let i = 0; i < t.n; i++) {
      while (f < map.n && map.at[f]! < i) f++;
      if (f < map.n && map.at[f]! === i) live = true;
      out[i] = live ? 1 : 0;
      if (endsStraightLine(t, i)) live = false;
    }
    return out;
  }

  /**
   * The implicit initial frame's locals expanded into slots, and an empty stack. (Not startFrom on
   * an array: one function meeting both array types was what made `compute` slow.)
   */
  private startAtEntry(entries: readonly number[]): void {
    const locals = this.locals;
    locals.length = 0;
    for (let k = 0; k < entries.length; k++) {
      const v = entries[k]!;
      locals.push(v);
      if (isWide(v)) locals.push(ITEM.Top);
    }
    this.stack.length = 0;
  }

  /** Locals `entries[at..+count]` expanded into slots, and the stack `types[stackAt..+nStack]` of the map. */
  private startFrom(entries: Int32Array, at: number, count: number, stackAt: number, nStack: number): void {
    const locals = this.locals;
    locals.length = 0;
    for (let k = at; k < at + count; k++) {
      const v = entries[k]!;
      locals.push(v);
      if (isWide(v)) locals.push(ITEM.Top);
    }
    this.stack.length = 0;
    for (let k = 0; k < nStack; k++) this.stack.push(this.map.types[stackAt + k]!);
  }

  /** The current frame: trailing Tops dropped (not a long's or double's second half), locals as entries. */
  private snapshot(): TableFrame {
    const slots = this.locals;
    let n = slots.length;
    while (n > 0 && slots[n - 1] === ITEM.Top && !(n >= 2 && isWide(slots[n - 2]!))) n--;
    const locals: number[] = [];
    for (let k = 0; k < n; k++) {
      const v = slots[k]!;
      locals.push(v);
      if (isWide(v)) k++;
    }
    return { locals, stack: this.stack.slice() };
  }

  private pop(): number {
    if (this.stack.length === 0) throw new SimulationError('operand stack underflow');
    return this.stack.pop()!;
  }

  private popWord(): number {
    const v = this.pop();
    if (isWide(v)) throw new SimulationError('category-2 value split by a stack manipulation');
    return v;
  }

  /** Pops `words` stack words as whole values, bottom first. */
  private popWords(words: number): number[] {
    const vals: number[] = [];
    let w = 0;
    while (w < words) {
      const v = this.pop();
      w += isWide(v) ? 2 : 1;
      vals.unshift(v);
    }
    if (w !== words) throw new SimulationError('category-2 value split by a stack manipulation');
    return vals;
  }

  private pushAll(vals: readonly number[]): void {
    for (const v of vals) this.stack.push(v);
  }

  /** The verification type of a value of field type `desc`. */
  private ofDescriptor(desc: string): number {
    const v = this.map.fieldType(desc);
    if (v === undefined) throw new SimulationError(`bad field descriptor '${desc}'`);
    return v;
  }

  /** What instruction i does to the frame. */
  private execute(i: number): void {
    const { t, cp, stack } = this;
    const p = t.pc[i]!;
    let op = t.op[i]!;
    const wide = op === OP.WIDE;
    if (wide) op = t.code[p + 1]!;
    const pops = POPS[op]!;
    if (pops >= 0) {
      for (let k = 0; k < pops; k++) this.pop();
      if (PUSH[op]! >= 0) stack.push(PUSH[op]!);
      return;
    }
    const fmt = OPCODE_FORMATS[op];
    if (fmt === Fmt.VAR_IMPLICIT || (fmt === Fmt.VAR && op !== OP.RET)) {
      const base = fmt === Fmt.VAR_IMPLICIT ? implicitVarBase(op) : op;
      const v = fmt === Fmt.VAR_IMPLICIT ? implicitVarIndex(op) : wide ? u2(t.code, p + 2) : t.code[p + 1]!;
      this.local(base, v);
      return;
    }
    switch (op) {
      case OP.LDC:
        stack.push(this.constant(t.code[p + 1]!));
        return;
      case OP.LDC_W:
      case OP.LDC2_W:
        stack.push(this.constant(u2(t.code, p + 1)));
        return;
      case OP.AALOAD: {
        this.pop();
        const arr = this.pop();
        if (arr === ITEM.Null) stack.push(ITEM.Null);
        else {
          const name = (arr & 15) === ITEM.Object ? this.map.nameOf(arr) : '';
          if (name.charCodeAt(0) !== 0x5b /* [ */) throw new SimulationError(`aaload on ${name || `type ${arr & 15}`}`);
          stack.push(this.ofDescriptor(name.slice(1)));
        }
        return;
      }
      case OP.POP:
        this.popWord();
        return;
      case OP.POP2:
        this.popWords(2);
        return;
      case OP.DUP: {
        const a = this.popWord();
        stack.push(a, a);
        return;
      }
      case OP.DUP_X1: {
        const a = this.popWord();
        const b = this.popWord();
        stack.push(a, b, a);
        return;
      }
      case OP.DUP_X2: {
        const a = this.popWord();
        const b = this.popWords(2);
        stack.push(a);
        this.pushAll(b);
        stack.push(a);
        return;
      }
      case OP.DUP2: {
        const a = this.popWords(2);
        this.pushAll(a);
        this.pushAll(a);
        return;
      }
      case OP.DUP2_X1: {
        const a = this.popWords(2);
        const b = this.popWord();
        this.pushAll(a);
        stack.push(b);
        this.pushAll(a);
        return;
      }
      case OP.DUP2_X2: {
        const a = this.popWords(2);
        const b = this.popWords(2);
        this.pushAll(a);
        this.pushAll(b);
        this.pushAll(a);
        return;
      }
      case OP.SWAP: {
        const a = this.popWord();
        const b = this.popWord();
        stack.push(a, b);
        return;
      }
      case OP.GETSTATIC:
        stack.push(this.ofDescriptor(cp.memberRef(u2(t.code, p + 1)).desc));
        return;
      case OP.PUTSTATIC:
        this.pop();
        return;
      case OP.GETFIELD:
        this.pop();
        stack.push(this.ofDescriptor(cp.memberRef(u2(t.code, p + 1)).desc));
        return;
      case OP.PUTFIELD:
        this.pop();
        this.pop();
        return;
      case OP.INVOKEVIRTUAL:
      case OP.INVOKESPECIAL:
      case OP.INVOKESTATIC:
      case OP.INVOKEINTERFACE:
      case OP.INVOKEDYNAMIC:
        this.invoke(op, u2(t.code, p + 1));
        return;
      case OP.NEW:
        stack.push(vtUninitialized(i));
        return;
      case OP.NEWARRAY: {
        this.pop();
        const e = NEWARRAY_TYPES[t.code[p + 1]!];
        if (e === undefined) throw new SimulationError(`newarray with type code ${t.code[p + 1]}`);
        stack.push(this.map.objectNamed(`[${e}`));
        return;
      }
      case OP.ANEWARRAY: {
        this.pop();
        const c = cp.className(u2(t.code, p + 1));
        stack.push(this.map.objectNamed(c.charCodeAt(0) === 0x5b ? `[${c}` : `[L${c};`));
        return;
      }
      case OP.CHECKCAST:
        this.pop();
        stack.push(this.map.objectNamed(cp.className(u2(t.code, p + 1))));
        return;
      case OP.MULTIANEWARRAY:
        for (let k = t.code[p + 3]!; k > 0; k--) this.pop();
        stack.push(this.map.objectNamed(cp.className(u2(t.code, p + 1))));
        return;
      default:
        throw new SimulationError(`unsupported opcode ${op}`);
    }
  }

  /** A load or store of local `v`. */
  private local(base: number, v: number): void {
    const { locals, stack } = this;
    switch (base) {
      case OP.ILOAD:
        stack.push(ITEM.Integer);
        return;
      case OP.LLOAD:
        stack.push(ITEM.Long);
        return;
      case OP.FLOAD:
        stack.push(ITEM.Float);
        return;
      case OP.DLOAD:
        stack.push(ITEM.Double);
        return;
      case OP.ALOAD: {
        const t = locals[v];
        if (t === undefined) throw new SimulationError(`aload ${v} of an undefined local`);
        stack.push(t);
        return;
      }
    }
    // A store; one over half of a long or double leaves its other half Top (JVMS 4.10.1.7).
    const value = this.pop();
    const top = isWide(value) ? v + 1 : v;
    while (locals.length <= top) locals.push(ITEM.Top);
    if (v > 0 && isWide(locals[v - 1]!)) locals[v - 1] = ITEM.Top;
    locals[v] = value;
    if (top > v) locals[top] = ITEM.Top;
  }

  /** The type ldc / ldc_w / ldc2_w pushes for constant `i`. */
  private constant(i: number): number {
    const cp = this.cp;
    switch (cp.tag(i)) {
      case CONSTANT.Integer:
        return ITEM.Integer;
      case CONSTANT.Float:
        return ITEM.Float;
      case CONSTANT.Long:
        return ITEM.Long;
      case CONSTANT.Double:
        return ITEM.Double;
      case CONSTANT.String:
        return this.map.objectNamed('java/lang/String');
      case CONSTANT.Class:
        return this.map.objectNamed('java/lang/Class');
      case CONSTANT.MethodType:
        return this.map.objectNamed('java/lang/invoke/MethodType');
      case CONSTANT.MethodHandle:
        return this.map.objectNamed('java/lang/invoke/MethodHandle');
      case CONSTANT.Dynamic:
        return this.ofDescriptor(cp.dynamic(i).desc);
      default:
        throw new SimulationError(`ldc of constant pool entry ${i} with tag ${cp.tag(i)}`);
    }
  }

  /** An invoke: pops the arguments and receiver, initializes the object of a constructor call, pushes the result. */
  private invoke(op: number, index: number): void {
    const ref = op === OP.INVOKEDYNAMIC ? { name: '', desc: this.cp.dynamic(index).desc } : this.cp.memberRef(index);
    const d = parseMethodDescriptor(ref.desc);
    for (let k = 0; k < d.args.length; k++) this.pop();
    if (op !== OP.INVOKESTATIC && op !== OP.INVOKEDYNAMIC) {
      const receiver = this.pop();
      if (op === OP.INVOKESPECIAL && ref.name === '<init>') {
        // Initialized now: every copy of the uninitialized value becomes the class type.
        let init: number;
        if (receiver === ITEM.UninitializedThis) init = this.map.objectNamed(this.thisClass);
        else if ((receiver & 15) === ITEM.Uninitialized) init = this.map.objectNamed(this.cp.className(u2(this.t.code, this.t.pc[receiver >> 4]! + 1)));
        else throw new SimulationError(`<init> called on type ${receiver & 15}`);
        const { locals, stack } = this;
        for (let k = 0; k < locals.length; k++) if (locals[k] === receiver) locals[k] = init;
        for (let k = 0; k < stack.length; k++) if (stack[k] === receiver) stack[k] = init;
      }
    }
    if (d.ret !== 'V') this.stack.push(this.ofDescriptor(d.ret));
  }
}
