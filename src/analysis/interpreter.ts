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

/** Stack effect of the arithmetic and conversion opcodes: [values popped, type pushed]. */
const SIMPLE: Record<number, [number, VType | null]> = {};
{
  const set = (ops: number[], pops: number, push: VType | null) => ops.forEach((o) => (SIMPLE[o] = [pops, push]));
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

/** The short local forms (iload_0 …) as [base op, var]; the reader canonicalizes them, a hand-built IR may not. */
function canonicalVar(insn: Insn): [number, number | undefined] {
  const op = insn.op;
  if (op >= OP.ILOAD_0 && op <= OP.ALOAD_3) return [OP.ILOAD + ((op - OP.ILOAD_0) >> 2), (op - OP.ILOAD_0) & 3];
  if (op >= OP.ISTORE_0 && op <= OP.ASTORE_3) return [OP.ISTORE + ((op - OP.ISTORE_0) >> 2), (op - OP.ISTORE_0) & 3];
  if (op === OP.GOTO_W) return [OP.GOTO, undefined];
  if (op === OP.JSR_W) return [OP.JSR, undefined];
  if (op === OP.LDC_W) return [OP.LDC, undefined];
  return [op, insn.var];
}

/**
 * Executes one instruction on (locals, stack), in place. Assumes verifiable code: it checks only
 * what it must to keep its own state consistent (stack depth, category-2 alignment).
 */
export function execute(cf: FrameClass, insn: Insn, locals: VType[], stack: VType[]): void {
  const pop = (): VType => {
    if (stack.length === 0) throw new InterpretError('operand stack underflow');
    return stack.pop()!;
  };
  // Pops `words` stack words (a long/double is 2) as whole values, bottom first.
  const popWords = (words: number): VType[] => {
    const vals: VType[] = [];
    let w = 0;
    while (w < words) {
      const v = pop();
      w += isCategory2(v) ? 2 : 1;
      vals.unshift(v);
    }
    if (w !== words) throw new InterpretError('category-2 value split by a stack manipulation');
    return vals;
  };
  const [op, v] = canonicalVar(insn);
  const simple = SIMPLE[op];
  if (simple !== undefined) {
    for (let k = 0; k < simple[0]; k++) pop();
    if (simple[1] !== null) stack.push(simple[1]);
    return;
  }
  switch (op) {
    case OP.LDC:
    case OP.LDC2_W: {
      const i = insn.cp!;
      switch (cf.cp.tag(i)) {
        case CONSTANT.Integer: stack.push('I'); break;
        case CONSTANT.Float: stack.push('F'); break;
        case CONSTANT.Long: stack.push('J'); break;
        case CONSTANT.Double: stack.push('D'); break;
        case CONSTANT.String: stack.push('Ljava/lang/String;'); break;
        case CONSTANT.Class: stack.push('Ljava/lang/Class;'); break;
        case CONSTANT.MethodType: stack.push('Ljava/lang/invoke/MethodType;'); break;
        case CONSTANT.MethodHandle: stack.push('Ljava/lang/invoke/MethodHandle;'); break;
        case CONSTANT.Dynamic: stack.push(vtypeOfDescriptor(cf.cp.dynamic(i).desc)); break;
        default: throw new InterpretError(`ldc of constant pool entry ${i} with tag ${cf.cp.tag(i)}`);
      }
      return;
    }
    case OP.ILOAD: stack.push('I'); return;
    case OP.LLOAD: stack.push('J'); return;
    case OP.FLOAD: stack.push('F'); return;
    case OP.DLOAD: stack.push('D'); return;
    case OP.ALOAD: {
      const t = locals[v!];
      if (t === undefined) throw new InterpretError(`aload ${v} of an undefined local`);
      stack.push(t);
      return;
    }
    case OP.ISTORE: case OP.LSTORE: case OP.FSTORE: case OP.DSTORE: case OP.ASTORE:
      setLocal(locals, v!, pop());
      return;
    case OP.AALOAD: {
      pop();
      const arr = pop();
      if (arr === 'N') stack.push('N');
      else if (typeof arr === 'string' && arr.startsWith('[')) stack.push(vtypeOfDescriptor(arr.substring(1)));
      else throw new InterpretError(`aaload on ${describe(arr)}`);
      return;
    }
    case OP.POP: popWords(1); return;
    case OP.POP2: popWords(2); return;
    case OP.DUP: { const a = popWords(1); stack.push(...a, ...a); return; }
    case OP.DUP_X1: { const a = popWords(1); const b = popWords(1); stack.push(...a, ...b, ...a); return; }
    case OP.DUP_X2: { const a = popWords(1); const b = popWords(2); stack.push(...a, ...b, ...a); return; }
    case OP.DUP2: { const a = popWords(2); stack.push(...a, ...a); return; }
    case OP.DUP2_X1: { const a = popWords(2); const b = popWords(1); stack.push(...a, ...b, ...a); return; }
    case OP.DUP2_X2: { const a = popWords(2); const b = popWords(2); stack.push(...a, ...b, ...a); return; }
    case OP.SWAP: { const a = popWords(1); const b = popWords(1); stack.push(...a, ...b); return; }
    case OP.GETSTATIC: stack.push(vtypeOfDescriptor(cf.cp.memberRef(insn.cp!).desc)); return;
    case OP.PUTSTATIC: pop(); return;
    case OP.GETFIELD: pop(); stack.push(vtypeOfDescriptor(cf.cp.memberRef(insn.cp!).desc)); return;
    case OP.PUTFIELD: pop(); pop(); return;
    case OP.INVOKEVIRTUAL: case OP.INVOKESPECIAL: case OP.INVOKESTATIC: case OP.INVOKEINTERFACE: case OP.INVOKEDYNAMIC: {
      const ref = op === OP.INVOKEDYNAMIC ? { name: '', desc: cf.cp.dynamic(insn.cp!).desc } : cf.cp.memberRef(insn.cp!);
      const t = methodTypes(ref.desc);
      for (let k = 0; k < t.args.length; k++) pop();
      if (op !== OP.INVOKESTATIC && op !== OP.INVOKEDYNAMIC) {
        const receiver = pop();
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
      if (t.ret !== null) stack.push(t.ret);
      return;
    }
    case OP.NEW: stack.push(insn); return;
    case OP.NEWARRAY: {
      pop();
      const e = ELEMENT_TYPES[insn.n!];
      const t = e === undefined ? undefined : `[${e}`;
      if (t === undefined) throw new InterpretError(`newarray with type code ${insn.n}`);
      stack.push(t);
      return;
    }
    case OP.ANEWARRAY: pop(); stack.push('[' + vtypeOfClassName(cf.cp.className(insn.cp!))); return;
    case OP.CHECKCAST: pop(); stack.push(vtypeOfClassName(cf.cp.className(insn.cp!))); return;
    case OP.MULTIANEWARRAY:
      for (let k = 0; k < insn.n!; k++) pop();
      stack.push(cf.cp.className(insn.cp!));
      return;
    default:
      throw new InterpretError(`unsupported opcode ${op}`);
  }
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
