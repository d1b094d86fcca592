/**
 * Operand stack effect of each instruction in words (long and double take two), as needed for
 * max_stack (JVMS 4.7.3) and for block-level stack height bookkeeping.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { parseMethodDescriptor, returnType, typeSize } from '../classfile/descriptor.js';
import { CONSTANT } from '../classfile/model.js';
import type { Insn } from './ir.js';
import { OP } from './opcodes.js';

/** NaN marks opcodes whose effect depends on the constant pool (or that are not canonical). */
const FIXED: Float64Array = (() => {
  const e = new Float64Array(256).fill(NaN);
  const set = (v: number, ...ops: number[]): void => {
    for (const op of ops) e[op] = v;
  };
  set(0, OP.NOP);
  set(1, OP.ACONST_NULL, OP.ICONST_M1, OP.ICONST_0, OP.ICONST_1, OP.ICONST_2, OP.ICONST_3, OP.ICONST_4, OP.ICONST_5);
  set(2, OP.LCONST_0, OP.LCONST_1, OP.DCONST_0, OP.DCONST_1);
  set(1, OP.FCONST_0, OP.FCONST_1, OP.FCONST_2, OP.BIPUSH, OP.SIPUSH);
  set(2, OP.LDC2_W);
  set(1, OP.ILOAD, OP.FLOAD, OP.ALOAD);
  set(2, OP.LLOAD, OP.DLOAD);
  for (let op = OP.ILOAD_0; op <= OP.ALOAD_3; op++) {
    e[op] = op >= OP.LLOAD_0 && op <= OP.LLOAD_3 ? 2 : op >= OP.DLOAD_0 && op <= OP.DLOAD_3 ? 2 : 1;
  }
  set(-1, OP.IALOAD, OP.FALOAD, OP.AALOAD, OP.BALOAD, OP.CALOAD, OP.SALOAD);
  set(0, OP.LALOAD, OP.DALOAD);
  set(-1, OP.ISTORE, OP.FSTORE, OP.ASTORE);
  set(-2, OP.LSTORE, OP.DSTORE);
  for (let op = OP.ISTORE_0; op <= OP.ASTORE_3; op++) {
    e[op] = op >= OP.LSTORE_0 && op <= OP.LSTORE_3 ? -2 : op >= OP.DSTORE_0 && op <= OP.DSTORE_3 ? -2 : -1;
  }
  set(-3, OP.IASTORE, OP.FASTORE, OP.AASTORE, OP.BASTORE, OP.CASTORE, OP.SASTORE);
  set(-4, OP.LASTORE, OP.DASTORE);
  set(-1, OP.POP);
  set(-2, OP.POP2);
  set(1, OP.DUP, OP.DUP_X1, OP.DUP_X2);
  set(2, OP.DUP2, OP.DUP2_X1, OP.DUP2_X2);
  set(0, OP.SWAP);
  // Binary arithmetic: int/float pop 2 words push 1; long/double pop 4 push 2.
  for (let op = OP.IADD; op <= OP.DREM; op++) e[op] = (op - OP.IADD) % 2 === 0 ? -1 : -2;
  set(0, OP.INEG, OP.LNEG, OP.FNEG, OP.DNEG);
  set(-1, OP.ISHL, OP.LSHL, OP.ISHR, OP.LSHR, OP.IUSHR, OP.LUSHR); // the shift count is an int
  set(-1, OP.IAND, OP.IOR, OP.IXOR);
  set(-2, OP.LAND, OP.LOR, OP.LXOR);
  set(0, OP.IINC);
  set(1, OP.I2L, OP.I2D, OP.F2L, OP.F2D);
  set(0, OP.I2F, OP.L2D, OP.F2I, OP.D2L, OP.I2B, OP.I2C, OP.I2S);
  set(-1, OP.L2I, OP.L2F, OP.D2I, OP.D2F);
  set(-3, OP.LCMP, OP.DCMPL, OP.DCMPG);
  set(-1, OP.FCMPL, OP.FCMPG);
  for (let op = OP.IFEQ; op <= OP.IFLE; op++) e[op] = -1;
  for (let op = OP.IF_ICMPEQ; op <= OP.IF_ACMPNE; op++) e[op] = -2;
  set(0, OP.GOTO, OP.GOTO_W, OP.RET);
  set(1, OP.JSR, OP.JSR_W); // the return address
  set(-1, OP.TABLESWITCH, OP.LOOKUPSWITCH);
  set(-1, OP.IRETURN, OP.FRETURN, OP.ARETURN);
  set(-2, OP.LRETURN, OP.DRETURN);
  set(0, OP.RETURN);
  set(1, OP.NEW);
  set(0, OP.NEWARRAY, OP.ANEWARRAY, OP.ARRAYLENGTH, OP.CHECKCAST, OP.INSTANCEOF);
  set(-1, OP.ATHROW, OP.MONITORENTER, OP.MONITOREXIT, OP.IFNULL, OP.IFNONNULL);
  return e;
})();

/** Words a method descriptor's arguments take (without a receiver) and its result takes. */
function invokeWords(desc: string): { args: number; ret: number } {
  let w = wordsCache.get(desc);
  if (w === undefined) {
    let args = 0;
    for (const a of parseMethodDescriptor(desc).args) args += typeSize(a);
    w = { args, ret: typeSize(returnType(desc)) };
    // Descriptors repeat across a jar; a bounded cache keeps parsing off the per-instruction path.
    if (wordsCache.size > 20_000) wordsCache.clear();
    wordsCache.set(desc, w);
  }
  return w;
}
const wordsCache = new Map<string, { args: number; ret: number }>();

/**
 * Net change of the operand stack height (in words) when `insn` executes. For JSR this is the
 * pushed return address (+1); ATHROW counts only the popped reference.
 */
export function stackEffect(cp: ConstantPool, insn: Insn): number {
  return effectOf(cp, insn.op, insn.cp ?? 0, insn.n ?? 0);
}

/**
 * stackEffect of the instruction at `pc` of raw code, as a CodeTable holds it: a wide-prefixed one
 * has the effect of the instruction it widens.
 */
export function stackEffectAt(cp: ConstantPool, code: Uint8Array, pc: number): number {
  const op = code[pc]!;
  if (op === OP.WIDE) return effectOf(cp, code[pc + 1]!, 0, 0);
  const fixed = FIXED[op]!;
  if (fixed === fixed) return fixed;
  const index = op === OP.LDC ? code[pc + 1]! : (code[pc + 1]! << 8) | code[pc + 2]!;
  return effectOf(cp, op, index, op === OP.MULTIANEWARRAY ? code[pc + 3]! : 0);
}

/** The effect of opcode `op` with constant pool operand `index` (and `dims` for multianewarray). */
function effectOf(cp: ConstantPool, op: number, index: number, dims: number): number {
  const fixed = FIXED[op]!;
  if (fixed === fixed) return fixed; // not NaN
  switch (op) {
    case OP.LDC:
    case OP.LDC_W: {
      const tag = cp.tag(index);
      if (tag === CONSTANT.Long || tag === CONSTANT.Double) return 2;
      if (tag === CONSTANT.Dynamic) return typeSize(cp.dynamic(index).desc);
      return 1;
    }
    case OP.GETSTATIC:
      return typeSize(cp.memberDesc(index));
    case OP.PUTSTATIC:
      return -typeSize(cp.memberDesc(index));
    case OP.GETFIELD:
      return typeSize(cp.memberDesc(index)) - 1;
    case OP.PUTFIELD:
      return -typeSize(cp.memberDesc(index)) - 1;
    case OP.INVOKEVIRTUAL:
    case OP.INVOKESPECIAL:
    case OP.INVOKEINTERFACE: {
      const w = invokeWords(cp.memberDesc(index));
      return w.ret - w.args - 1;
    }
    case OP.INVOKESTATIC: {
      const w = invokeWords(cp.memberDesc(index));
      return w.ret - w.args;
    }
    case OP.INVOKEDYNAMIC: {
      const w = invokeWords(cp.dynamic(index).desc);
      return w.ret - w.args;
    }
    case OP.MULTIANEWARRAY:
      return 1 - dims;
    default:
      throw new Error(`stackEffect: opcode ${op} is not a canonical instruction`);
  }
}
