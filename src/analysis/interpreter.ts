/**
 * The interpreter of frame analysis: what one instruction does to a frame of verification types
 * (JVMS 4.10.1, in the IR's VType form). It knows instructions and the constant pool, nothing of
 * control flow: simulation and data-flow analysis (frames.ts) drive it.
 */
import type { Insn, VType } from '../bytecode/ir.js';
import { NEWARRAY_TYPES as ELEMENT_TYPES, OP } from '../bytecode/opcodes.js';
import { isCategory2, vtypeOfClassName } from '../bytecode/vtypes.js';
import { parseMethodDescriptor } from '../classfile/descriptor.js';
import { CONSTANT } from '../classfile/model.js';

/** What frame analysis reads of a class (ClassFile satisfies it). */
export interface FrameClass {
  thisClass: string;
  cp: {
    tag(i: number): number;
    className(i: number): string;
    memberRef(i: number): { name: string; desc: string };
    dynamic(i: number): { desc: string };
  };
}

/** An instruction that cannot be interpreted in the given state (invalid code or wrong frames). */
export class InterpretError extends Error {}

/** Field descriptor → verification type (boolean, byte, char, short are int); throws on a malformed one. */
export function vtypeOfDescriptor(desc: string): VType {
  switch (desc[0]) {
    case 'Z': case 'B': case 'C': case 'S': case 'I': return 'I';
    case 'F': return 'F';
    case 'J': return 'J';
    case 'D': return 'D';
    case 'L': case '[': return desc;
    default: throw new InterpretError(`bad field descriptor '${desc}'`);
  }
}

const descCache = new Map<string, { args: VType[]; ret: VType | null }>();
function methodTypes(desc: string): { args: VType[]; ret: VType | null } {
  let t = descCache.get(desc);
  if (t === undefined) {
    const d = parseMethodDescriptor(desc);
    t = { args: d.args.map(vtypeOfDescriptor), ret: d.ret === 'V' ? null : vtypeOfDescriptor(d.ret) };
    descCache.set(desc, t);
  }
  return t;
}

/**
 * The arithmetic, conversion, comparison, constant and plain control opcodes, by opcode: how many
 * values each pops (-1: not one of them) and the type it pushes (null: none). Arrays indexed by
 * opcode, filled for all 256, so that the lookup is one element load.
 */
const SIMPLE_POPS = new Int8Array(256).fill(-1);
const SIMPLE_PUSH: (VType | null)[] = new Array<VType | null>(256).fill(null);
{
  const set = (ops: number[], pops: number, push: VType | null) =>
    ops.forEach((o) => {
      SIMPLE_POPS[o] = pops;
      SIMPLE_PUSH[o] = push;
    });
  set([OP.IADD, OP.ISUB, OP.IMUL, OP.IDIV, OP.IREM, OP.ISHL, OP.ISHR, OP.IUSHR, OP.IAND, OP.IOR, OP.IXOR], 2, 'I');
  set([OP.LADD, OP.LSUB, OP.LMUL, OP.LDIV, OP.LREM, OP.LAND, OP.LOR, OP.LXOR, OP.LSHL, OP.LSHR, OP.LUSHR], 2, 'J');
  set([OP.FADD, OP.FSUB, OP.FMUL, OP.FDIV, OP.FREM], 2, 'F');
  set([OP.DADD, OP.DSUB, OP.DMUL, OP.DDIV, OP.DREM], 2, 'D');
  set([OP.INEG, OP.L2I, OP.F2I, OP.D2I, OP.I2B, OP.I2C, OP.I2S, OP.ARRAYLENGTH, OP.INSTANCEOF], 1, 'I');
  set([OP.LNEG, OP.I2L, OP.F2L, OP.D2L], 1, 'J');
  set([OP.FNEG, OP.I2F, OP.L2F, OP.D2F], 1, 'F');
  set([OP.DNEG, OP.I2D, OP.L2D, OP.F2D], 1, 'D');
  set([OP.LCMP, OP.FCMPL, OP.FCMPG, OP.DCMPL, OP.DCMPG], 2, 'I');
  set([OP.IALOAD, OP.BALOAD, OP.CALOAD, OP.SALOAD], 2, 'I');
  set([OP.LALOAD], 2, 'J');
  set([OP.FALOAD], 2, 'F');
  set([OP.DALOAD], 2, 'D');
  set([OP.IASTORE, OP.LASTORE, OP.FASTORE, OP.DASTORE, OP.AASTORE, OP.BASTORE, OP.CASTORE, OP.SASTORE], 3, null);
  set([OP.IFEQ, OP.IFNE, OP.IFLT, OP.IFGE, OP.IFGT, OP.IFLE, OP.IFNULL, OP.IFNONNULL], 1, null);
  set([OP.IF_ICMPEQ, OP.IF_ICMPNE, OP.IF_ICMPLT, OP.IF_ICMPGE, OP.IF_ICMPGT, OP.IF_ICMPLE, OP.IF_ACMPEQ, OP.IF_ACMPNE], 2, null);
  set([OP.TABLESWITCH, OP.LOOKUPSWITCH, OP.MONITORENTER, OP.MONITOREXIT, OP.ATHROW], 1, null);
  set([OP.IRETURN, OP.LRETURN, OP.FRETURN, OP.DRETURN, OP.ARETURN], 1, null);
  set([OP.NOP, OP.GOTO, OP.RETURN, OP.IINC, OP.RET], 0, null);
  set([OP.ACONST_NULL], 0, 'N');
  set([OP.ICONST_M1, OP.ICONST_0, OP.ICONST_1, OP.ICONST_2, OP.ICONST_3, OP.ICONST_4, OP.ICONST_5, OP.BIPUSH, OP.SIPUSH], 0, 'I');
  set([OP.LCONST_0, OP.LCONST_1], 0, 'J');
  set([OP.FCONST_0, OP.FCONST_1, OP.FCONST_2], 0, 'F');
  set([OP.DCONST_0, OP.DCONST_1], 0, 'D');
  set([OP.JSR], 0, 'T');
}

/** The canonical opcode of the short local forms (iload_0 …) and wide forms; a hand-built IR may use them, the reader never does. */
function canonicalOp(op: number): number {
  if (op >= OP.ILOAD_0 && op <= OP.ALOAD_3) return OP.ILOAD + ((op - OP.ILOAD_0) >> 2);
  if (op >= OP.ISTORE_0 && op <= OP.ASTORE_3) return OP.ISTORE + ((op - OP.ISTORE_0) >> 2);
  if (op === OP.GOTO_W) return OP.GOTO;
  if (op === OP.JSR_W) return OP.JSR;
  if (op === OP.LDC_W) return OP.LDC;
  return op;
}

/** The local an instruction names: the index a short form carries, else `var`. */
function localOf(insn: Insn): number | undefined {
  const op = insn.op;
  if (op >= OP.ILOAD_0 && op <= OP.ALOAD_3) return (op - OP.ILOAD_0) & 3;
  if (op >= OP.ISTORE_0 && op <= OP.ASTORE_3) return (op - OP.ISTORE_0) & 3;
  return insn.var;
}

/*
 * The stack helpers are module functions, not closures made per call, and every value is pushed
 * through `push`: stacks arrive in several array element kinds (an empty literal holds small
 * integers until its first push), and when each case pushed with its own `stack.push`, the
 * optimizing compiler, having seen one kind at one case, threw the code away at the next case
 * (a dozen recompilations of this function, a quarter of V8's compile time on guava).
 */
function push(stack: VType[], v: VType): void {
  stack.push(v);
}

function pop(stack: VType[]): VType {
  if (stack.length === 0) throw new InterpretError('operand stack underflow');
  return stack.pop()!;
}

/** Pops one category-1 value (dup, dup_x1, swap, pop take one word). */
function popWord(stack: VType[]): VType {
  const v = pop(stack);
  if (isCategory2(v)) throw new InterpretError('category-2 value split by a stack manipulation');
  return v;
}

/** Pops `words` stack words (a long/double is 2) as whole values, bottom first. */
function popWords(stack: VType[], words: number): VType[] {
  const vals: VType[] = [];
  let w = 0;
  while (w < words) {
    const v = pop(stack);
    w += isCategory2(v) ? 2 : 1;
    vals.unshift(v);
  }
  if (w !== words) throw new InterpretError('category-2 value split by a stack manipulation');
  return vals;
}

function pushAll(stack: VType[], vals: readonly VType[]): void {
  for (let k = 0; k < vals.length; k++) push(stack, vals[k]!);
}

/**
 * Executes one instruction on (locals, stack), in place. Assumes verifiable code: it checks only
 * what it must to keep its own state consistent (stack depth, category-2 alignment).
 */
export function execute(cf: FrameClass, insn: Insn, locals: VType[], stack: VType[]): void {
  const op = canonicalOp(insn.op);
  const pops = SIMPLE_POPS[op]!;
  if (pops >= 0) {
    for (let k = 0; k < pops; k++) pop(stack);
    const pushed = SIMPLE_PUSH[op]!;
    if (pushed !== null) push(stack, pushed);
    return;
  }
  switch (op) {
    case OP.LDC:
    case OP.LDC2_W:
      push(stack, constantType(cf, insn.cp!));
      return;
    case OP.ILOAD: push(stack, 'I'); return;
    case OP.LLOAD: push(stack, 'J'); return;
    case OP.FLOAD: push(stack, 'F'); return;
    case OP.DLOAD: push(stack, 'D'); return;
    case OP.ALOAD: {
      const v = localOf(insn);
      const t = locals[v!];
      if (t === undefined) throw new InterpretError(`aload ${v} of an undefined local`);
      push(stack, t);
      return;
    }
    case OP.ISTORE: case OP.LSTORE: case OP.FSTORE: case OP.DSTORE: case OP.ASTORE:
      setLocal(locals, localOf(insn)!, pop(stack));
      return;
    case OP.AALOAD: {
      pop(stack);
      const arr = pop(stack);
      if (arr === 'N') push(stack, 'N');
      else if (typeof arr === 'string' && arr.startsWith('[')) push(stack, vtypeOfDescriptor(arr.substring(1)));
      else throw new InterpretError(`aaload on ${describe(arr)}`);
      return;
    }
    case OP.POP: popWord(stack); return;
    case OP.POP2: popWords(stack, 2); return;
    case OP.DUP: { const a = popWord(stack); push(stack, a); push(stack, a); return; }
    case OP.DUP_X1: { const a = popWord(stack); const b = popWord(stack); push(stack, a); push(stack, b); push(stack, a); return; }
    case OP.DUP_X2: { const a = popWord(stack); const b = popWords(stack, 2); push(stack, a); pushAll(stack, b); push(stack, a); return; }
    case OP.DUP2: { const a = popWords(stack, 2); pushAll(stack, a); pushAll(stack, a); return; }
    case OP.DUP2_X1: { const a = popWords(stack, 2); const b = popWord(stack); pushAll(stack, a); push(stack, b); pushAll(stack, a); return; }
    case OP.DUP2_X2: { const a = popWords(stack, 2); const b = popWords(stack, 2); pushAll(stack, a); pushAll(stack, b); pushAll(stack, a); return; }
    case OP.SWAP: { const a = popWord(stack); const b = popWord(stack); push(stack, a); push(stack, b); return; }
    case OP.GETSTATIC: push(stack, vtypeOfDescriptor(cf.cp.memberRef(insn.cp!).desc)); return;
    case OP.PUTSTATIC: pop(stack); return;
    case OP.GETFIELD: pop(stack); push(stack, vtypeOfDescriptor(cf.cp.memberRef(insn.cp!).desc)); return;
    case OP.PUTFIELD: pop(stack); pop(stack); return;
    case OP.INVOKEVIRTUAL: case OP.INVOKESPECIAL: case OP.INVOKESTATIC: case OP.INVOKEINTERFACE: case OP.INVOKEDYNAMIC:
      invokeEffect(cf, op, insn, locals, stack);
      return;
    case OP.NEW: push(stack, insn); return;
    case OP.NEWARRAY: {
      pop(stack);
      const e = ELEMENT_TYPES[insn.n!];
      const t = e === undefined ? undefined : `[${e}`;
      if (t === undefined) throw new InterpretError(`newarray with type code ${insn.n}`);
      push(stack, t);
      return;
    }
    case OP.ANEWARRAY: pop(stack); push(stack, '[' + vtypeOfClassName(cf.cp.className(insn.cp!))); return;
    case OP.CHECKCAST: pop(stack); push(stack, vtypeOfClassName(cf.cp.className(insn.cp!))); return;
    case OP.MULTIANEWARRAY:
      for (let k = 0; k < insn.n!; k++) pop(stack);
      push(stack, cf.cp.className(insn.cp!));
      return;
    default:
      throw new InterpretError(`unsupported opcode ${op}`);
  }
}

/** The type ldc / ldc2_w pushes for constant `i`. */
function constantType(cf: FrameClass, i: number): VType {
  switch (cf.cp.tag(i)) {
    case CONSTANT.Integer: return 'I';
    case CONSTANT.Float: return 'F';
    case CONSTANT.Long: return 'J';
    case CONSTANT.Double: return 'D';
    case CONSTANT.String: return 'Ljava/lang/String;';
    case CONSTANT.Class: return 'Ljava/lang/Class;';
    case CONSTANT.MethodType: return 'Ljava/lang/invoke/MethodType;';
    case CONSTANT.MethodHandle: return 'Ljava/lang/invoke/MethodHandle;';
    case CONSTANT.Dynamic: return vtypeOfDescriptor(cf.cp.dynamic(i).desc);
    default: throw new InterpretError(`ldc of constant pool entry ${i} with tag ${cf.cp.tag(i)}`);
  }
}

/** An invoke: pops the arguments (and receiver), initializes the object of a constructor call, pushes the result. */
function invokeEffect(cf: FrameClass, op: number, insn: Insn, locals: VType[], stack: VType[]): void {
  const ref = op === OP.INVOKEDYNAMIC ? { name: '', desc: cf.cp.dynamic(insn.cp!).desc } : cf.cp.memberRef(insn.cp!);
  const t = methodTypes(ref.desc);
  for (let k = 0; k < t.args.length; k++) pop(stack);
  if (op !== OP.INVOKESTATIC && op !== OP.INVOKEDYNAMIC) {
    const receiver = pop(stack);
    if (op === OP.INVOKESPECIAL && ref.name === '<init>') {
      // The object is initialized now: every copy of the uninitialized value becomes the class type.
      let init: VType;
      if (receiver === 'U') init = `L${cf.thisClass};`;
      else if (typeof receiver !== 'string') init = vtypeOfClassName(cf.cp.className(receiver.cp!));
      else throw new InterpretError(`<init> called on ${describe(receiver)}`);
      for (let k = 0; k < locals.length; k++) if (locals[k] === receiver) locals[k] = init;
      for (let k = 0; k < stack.length; k++) if (stack[k] === receiver) stack[k] = init;
    }
  }
  if (t.ret !== null) push(stack, t.ret);
}

/** Stores into local n, invalidating a long/double whose half it overwrites (JVMS 4.10.1.7). */
function setLocal(locals: VType[], n: number, v: VType): void {
  const top = isCategory2(v) ? n + 1 : n;
  while (locals.length <= top) locals.push('T');
  if (n > 0 && isCategory2(locals[n - 1]!)) locals[n - 1] = 'T';
  locals[n] = v;
  if (top > n) locals[top] = 'T';
}

export function describe(v: VType): string {
  if (typeof v !== 'string') return 'an uninitialized object';
  return { T: 'top', I: 'int', F: 'float', J: 'long', D: 'double', N: 'null', U: 'uninitializedThis' }[v] ?? v;
}
