/**
 * JVM opcodes (JVMS chapter 6) by their specification names, the mnemonics used in listings, and
 * each opcode's operand format, which drives both the decoder and the encoder.
 */

export const OP = {
  NOP: 0x00,
  ACONST_NULL: 0x01,
  ICONST_M1: 0x02,
  ICONST_0: 0x03,
  ICONST_1: 0x04,
  ICONST_2: 0x05,
  ICONST_3: 0x06,
  ICONST_4: 0x07,
  ICONST_5: 0x08,
  LCONST_0: 0x09,
  LCONST_1: 0x0a,
  FCONST_0: 0x0b,
  FCONST_1: 0x0c,
  FCONST_2: 0x0d,
  DCONST_0: 0x0e,
  DCONST_1: 0x0f,
  BIPUSH: 0x10,
  SIPUSH: 0x11,
  LDC: 0x12,
  LDC_W: 0x13,
  LDC2_W: 0x14,
  ILOAD: 0x15,
  LLOAD: 0x16,
  FLOAD: 0x17,
  DLOAD: 0x18,
  ALOAD: 0x19,
  ILOAD_0: 0x1a,
  ILOAD_1: 0x1b,
  ILOAD_2: 0x1c,
  ILOAD_3: 0x1d,
  LLOAD_0: 0x1e,
  LLOAD_1: 0x1f,
  LLOAD_2: 0x20,
  LLOAD_3: 0x21,
  FLOAD_0: 0x22,
  FLOAD_1: 0x23,
  FLOAD_2: 0x24,
  FLOAD_3: 0x25,
  DLOAD_0: 0x26,
  DLOAD_1: 0x27,
  DLOAD_2: 0x28,
  DLOAD_3: 0x29,
  ALOAD_0: 0x2a,
  ALOAD_1: 0x2b,
  ALOAD_2: 0x2c,
  ALOAD_3: 0x2d,
  IALOAD: 0x2e,
  LALOAD: 0x2f,
  FALOAD: 0x30,
  DALOAD: 0x31,
  AALOAD: 0x32,
  BALOAD: 0x33,
  CALOAD: 0x34,
  SALOAD: 0x35,
  ISTORE: 0x36,
  LSTORE: 0x37,
  FSTORE: 0x38,
  DSTORE: 0x39,
  ASTORE: 0x3a,
  ISTORE_0: 0x3b,
  ISTORE_1: 0x3c,
  ISTORE_2: 0x3d,
  ISTORE_3: 0x3e,
  LSTORE_0: 0x3f,
  LSTORE_1: 0x40,
  LSTORE_2: 0x41,
  LSTORE_3: 0x42,
  FSTORE_0: 0x43,
  FSTORE_1: 0x44,
  FSTORE_2: 0x45,
  FSTORE_3: 0x46,
  DSTORE_0: 0x47,
  DSTORE_1: 0x48,
  DSTORE_2: 0x49,
  DSTORE_3: 0x4a,
  ASTORE_0: 0x4b,
  ASTORE_1: 0x4c,
  ASTORE_2: 0x4d,
  ASTORE_3: 0x4e,
  IASTORE: 0x4f,
  LASTORE: 0x50,
  FASTORE: 0x51,
  DASTORE: 0x52,
  AASTORE: 0x53,
  BASTORE: 0x54,
  CASTORE: 0x55,
  SASTORE: 0x56,
  POP: 0x57,
  POP2: 0x58,
  DUP: 0x59,
  DUP_X1: 0x5a,
  DUP_X2: 0x5b,
  DUP2: 0x5c,
  DUP2_X1: 0x5d,
  DUP2_X2: 0x5e,
  SWAP: 0x5f,
  IADD: 0x60,
  LADD: 0x61,
  FADD: 0x62,
  DADD: 0x63,
  ISUB: 0x64,
  LSUB: 0x65,
  FSUB: 0x66,
  DSUB: 0x67,
  IMUL: 0x68,
  LMUL: 0x69,
  FMUL: 0x6a,
  DMUL: 0x6b,
  IDIV: 0x6c,
  LDIV: 0x6d,
  FDIV: 0x6e,
  DDIV: 0x6f,
  IREM: 0x70,
  LREM: 0x71,
  FREM: 0x72,
  DREM: 0x73,
  INEG: 0x74,
  LNEG: 0x75,
  FNEG: 0x76,
  DNEG: 0x77,
  ISHL: 0x78,
  LSHL: 0x79,
  ISHR: 0x7a,
  LSHR: 0x7b,
  IUSHR: 0x7c,
  LUSHR: 0x7d,
  IAND: 0x7e,
  LAND: 0x7f,
  IOR: 0x80,
  LOR: 0x81,
  IXOR: 0x82,
  LXOR: 0x83,
  IINC: 0x84,
  I2L: 0x85,
  I2F: 0x86,
  I2D: 0x87,
  L2I: 0x88,
  L2F: 0x89,
  L2D: 0x8a,
  F2I: 0x8b,
  F2L: 0x8c,
  F2D: 0x8d,
  D2I: 0x8e,
  D2L: 0x8f,
  D2F: 0x90,
  I2B: 0x91,
  I2C: 0x92,
  I2S: 0x93,
  LCMP: 0x94,
  FCMPL: 0x95,
  FCMPG: 0x96,
  DCMPL: 0x97,
  DCMPG: 0x98,
  IFEQ: 0x99,
  IFNE: 0x9a,
  IFLT: 0x9b,
  IFGE: 0x9c,
  IFGT: 0x9d,
  IFLE: 0x9e,
  IF_ICMPEQ: 0x9f,
  IF_ICMPNE: 0xa0,
  IF_ICMPLT: 0xa1,
  IF_ICMPGE: 0xa2,
  IF_ICMPGT: 0xa3,
  IF_ICMPLE: 0xa4,
  IF_ACMPEQ: 0xa5,
  IF_ACMPNE: 0xa6,
  GOTO: 0xa7,
  JSR: 0xa8,
  RET: 0xa9,
  TABLESWITCH: 0xaa,
  LOOKUPSWITCH: 0xab,
  IRETURN: 0xac,
  LRETURN: 0xad,
  FRETURN: 0xae,
  DRETURN: 0xaf,
  ARETURN: 0xb0,
  RETURN: 0xb1,
  GETSTATIC: 0xb2,
  PUTSTATIC: 0xb3,
  GETFIELD: 0xb4,
  PUTFIELD: 0xb5,
  INVOKEVIRTUAL: 0xb6,
  INVOKESPECIAL: 0xb7,
  INVOKESTATIC: 0xb8,
  INVOKEINTERFACE: 0xb9,
  INVOKEDYNAMIC: 0xba,
  NEW: 0xbb,
  NEWARRAY: 0xbc,
  ANEWARRAY: 0xbd,
  ARRAYLENGTH: 0xbe,
  ATHROW: 0xbf,
  CHECKCAST: 0xc0,
  INSTANCEOF: 0xc1,
  MONITORENTER: 0xc2,
  MONITOREXIT: 0xc3,
  WIDE: 0xc4,
  MULTIANEWARRAY: 0xc5,
  IFNULL: 0xc6,
  IFNONNULL: 0xc7,
  GOTO_W: 0xc8,
  JSR_W: 0xc9,
} as const;

/**
 * Operand formats. The decoder and encoder switch on these rather than on opcodes, so that each
 * layout (JVMS 6.5) is written once.
 */
export enum Fmt {
  /** Not a valid opcode in a class file (0xca breakpoint, 0xfe/0xff impdep and the unassigned ones). */
  INVALID,
  /** Opcode only. */
  NONE,
  /** bipush: s1. */
  S1,
  /** sipush: s2. */
  S2,
  /** newarray: u1 atype. */
  ATYPE,
  /** xload/xstore/ret: u1 index (u2 under wide). */
  VAR,
  /** iload_0 … astore_3: the index is in the opcode. */
  VAR_IMPLICIT,
  /** iinc: u1 index, s1 const (u2, s2 under wide). */
  IINC,
  /** ldc: u1 constant-pool index. */
  CP1,
  /** ldc_w, ldc2_w, field and method refs, new, anewarray, checkcast, instanceof: u2 index. */
  CP2,
  /** invokeinterface: u2 index, u1 count, u1 0. */
  INVOKEINTERFACE,
  /** invokedynamic: u2 index, u1 0, u1 0. */
  INVOKEDYNAMIC,
  /** multianewarray: u2 index, u1 dimensions. */
  MULTIANEWARRAY,
  /** if*, goto, jsr: s2 branch offset. */
  BRANCH,
  /** goto_w, jsr_w: s4 branch offset. */
  BRANCH_W,
  TABLESWITCH,
  LOOKUPSWITCH,
  WIDE,
}

/** Mnemonic (lower case, as javap prints it) by opcode; '' for invalid opcodes. */
export const OPCODE_NAMES: readonly string[] = (() => {
  const names: string[] = new Array<string>(256).fill('');
  for (const [name, code] of Object.entries(OP)) names[code] = name.toLowerCase();
  return names;
})();

/** Operand format by opcode. */
export const OPCODE_FORMATS: Uint8Array = (() => {
  const f = new Uint8Array(256).fill(Fmt.INVALID);
  for (let op = OP.NOP; op <= OP.JSR_W; op++) f[op] = Fmt.NONE;
  f[OP.BIPUSH] = Fmt.S1;
  f[OP.SIPUSH] = Fmt.S2;
  f[OP.NEWARRAY] = Fmt.ATYPE;
  for (let op = OP.ILOAD; op <= OP.ALOAD; op++) f[op] = Fmt.VAR;
  for (let op = OP.ISTORE; op <= OP.ASTORE; op++) f[op] = Fmt.VAR;
  f[OP.RET] = Fmt.VAR;
  for (let op = OP.ILOAD_0; op <= OP.ALOAD_3; op++) f[op] = Fmt.VAR_IMPLICIT;
  for (let op = OP.ISTORE_0; op <= OP.ASTORE_3; op++) f[op] = Fmt.VAR_IMPLICIT;
  f[OP.IINC] = Fmt.IINC;
  f[OP.LDC] = Fmt.CP1;
  for (const op of [
    OP.LDC_W, OP.LDC2_W, OP.GETSTATIC, OP.PUTSTATIC, OP.GETFIELD, OP.PUTFIELD, OP.INVOKEVIRTUAL,
    OP.INVOKESPECIAL, OP.INVOKESTATIC, OP.NEW, OP.ANEWARRAY, OP.CHECKCAST, OP.INSTANCEOF,
  ]) {
    f[op] = Fmt.CP2;
  }
  f[OP.INVOKEINTERFACE] = Fmt.INVOKEINTERFACE;
  f[OP.INVOKEDYNAMIC] = Fmt.INVOKEDYNAMIC;
  f[OP.MULTIANEWARRAY] = Fmt.MULTIANEWARRAY;
  for (let op = OP.IFEQ; op <= OP.JSR; op++) f[op] = Fmt.BRANCH;
  f[OP.IFNULL] = Fmt.BRANCH;
  f[OP.IFNONNULL] = Fmt.BRANCH;
  f[OP.GOTO_W] = Fmt.BRANCH_W;
  f[OP.JSR_W] = Fmt.BRANCH_W;
  f[OP.TABLESWITCH] = Fmt.TABLESWITCH;
  f[OP.LOOKUPSWITCH] = Fmt.LOOKUPSWITCH;
  f[OP.WIDE] = Fmt.WIDE;
  return f;
})();

/** For iload_0 … astore_3: the canonical opcode (ILOAD … ASTORE). */
export function implicitVarBase(op: number): number {
  return op < OP.ISTORE_0 ? OP.ILOAD + ((op - OP.ILOAD_0) >> 2) : OP.ISTORE + ((op - OP.ISTORE_0) >> 2);
}

/** For iload_0 … astore_3: the local variable index in the opcode. */
export function implicitVarIndex(op: number): number {
  return op < OP.ISTORE_0 ? (op - OP.ILOAD_0) & 3 : (op - OP.ISTORE_0) & 3;
}

/** The short form (iload_n …) of ILOAD … ASTORE for slot n ≤ 3, or -1 (RET has none). */
export function implicitVarOpcode(op: number, index: number): number {
  if (index > 3 || index < 0) return -1;
  if (op >= OP.ILOAD && op <= OP.ALOAD) return OP.ILOAD_0 + ((op - OP.ILOAD) << 2) + index;
  if (op >= OP.ISTORE && op <= OP.ASTORE) return OP.ISTORE_0 + ((op - OP.ISTORE) << 2) + index;
  return -1;
}

/** Opcodes that may follow wide (JVMS 6.5 wide). */
export function isWideable(op: number): boolean {
  return (op >= OP.ILOAD && op <= OP.ALOAD) || (op >= OP.ISTORE && op <= OP.ASTORE) || op === OP.RET || op === OP.IINC;
}

/** Conditional branches: if<cond>, if_icmp<cond>, if_acmp<cond>, ifnull, ifnonnull. */
export function isConditionalBranch(op: number): boolean {
  return (op >= OP.IFEQ && op <= OP.IF_ACMPNE) || op === OP.IFNULL || op === OP.IFNONNULL;
}

/** The conditional branch with the opposite condition (used to widen a far conditional over a goto_w). */
export function invertCondition(op: number): number {
  if (op === OP.IFNULL) return OP.IFNONNULL;
  if (op === OP.IFNONNULL) return OP.IFNULL;
  // JVMS pairs each condition with its negation at adjacent opcodes: ifeq/ifne, iflt/ifge, ifgt/ifle, ...
  return ((op - OP.IFEQ) ^ 1) + OP.IFEQ;
}

/** Instructions after which control does not fall through to the next instruction. */
export function isUnconditionalTransfer(op: number): boolean {
  return (
    op === OP.GOTO || op === OP.GOTO_W || op === OP.RET || op === OP.TABLESWITCH || op === OP.LOOKUPSWITCH ||
    (op >= OP.IRETURN && op <= OP.RETURN) || op === OP.ATHROW
  );
}

/** ireturn … return. */
export function isReturn(op: number): boolean {
  return op >= OP.IRETURN && op <= OP.RETURN;
}

/** invokevirtual, invokespecial, invokestatic, invokeinterface and invokedynamic. */
export function isInvoke(op: number): boolean {
  return op >= OP.INVOKEVIRTUAL && op <= OP.INVOKEDYNAMIC;
}

/** Instructions with a local variable operand (`var` in the IR): loads, stores, iinc, ret. */
export function isVarInsn(op: number): boolean {
  return (op >= OP.ILOAD && op <= OP.ALOAD) || (op >= OP.ISTORE && op <= OP.ASTORE) || op === OP.IINC || op === OP.RET;
}

/** Loads and stores of a long or double, whose local takes two slots. */
export function isWideVar(op: number): boolean {
  return op === OP.LLOAD || op === OP.DLOAD || op === OP.LSTORE || op === OP.DSTORE;
}

/** getfield, putfield, getstatic, putstatic. */
export function isFieldInsn(op: number): boolean {
  return op >= OP.GETSTATIC && op <= OP.PUTFIELD;
}

/** Array element loads (iaload … saload) and stores (iastore … sastore). */
export function isArrayAccess(op: number): boolean {
  return (op >= OP.IALOAD && op <= OP.SALOAD) || (op >= OP.IASTORE && op <= OP.SASTORE);
}

/** Instructions with a `target` label (branches, goto, jsr). */
export function hasTarget(op: number): boolean {
  return (op >= OP.IFEQ && op <= OP.JSR) || op === OP.IFNULL || op === OP.IFNONNULL || op === OP.GOTO_W || op === OP.JSR_W;
}

/** NEWARRAY atype codes (JVMS 6.5 newarray) to the element's field descriptor. */
export const NEWARRAY_TYPES: Readonly<Record<number, string>> = { 4: 'Z', 5: 'C', 6: 'F', 7: 'D', 8: 'B', 9: 'S', 10: 'I', 11: 'J' };
