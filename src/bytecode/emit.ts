/** Small constructors for the instructions the transforms insert. */
import type { ConstantPool } from '../classfile/constant-pool.js';
import type { Insn } from './ir.js';
import { OP } from './opcodes.js';

export function op(code: number): Insn {
  return { op: code };
}

export function pushInt(cp: ConstantPool, v: number): Insn {
  if (v >= -1 && v <= 5) return { op: OP.ICONST_0 + v };
  if (v >= -128 && v <= 127) return { op: OP.BIPUSH, n: v };
  if (v >= -32768 && v <= 32767) return { op: OP.SIPUSH, n: v };
  return { op: OP.LDC, cp: cp.integerIndex(v) };
}

export function pushString(cp: ConstantPool, s: string | null): Insn {
  return s === null ? { op: OP.ACONST_NULL } : { op: OP.LDC, cp: cp.stringIndex(s) };
}

export function load(opcode: number, v: number): Insn {
  return { op: opcode, var: v };
}

export function field(cp: ConstantPool, opcode: number, owner: string, name: string, desc: string): Insn {
  return { op: opcode, cp: cp.fieldrefIndex(owner, name, desc) };
}

export function invoke(
  cp: ConstantPool,
  opcode: number,
  owner: string,
  name: string,
  desc: string,
  isInterface = opcode === OP.INVOKEINTERFACE,
): Insn {
  return { op: opcode, cp: cp.methodIndex(owner, name, desc, isInterface) };
}

/** The load instruction for a value of the given field descriptor. */
export function loadOpFor(desc: string): number {
  switch (desc[0]) {
    case 'Z':
    case 'B':
    case 'C':
    case 'S':
    case 'I':
      return OP.ILOAD;
    case 'J':
      return OP.LLOAD;
    case 'F':
      return OP.FLOAD;
    case 'D':
      return OP.DLOAD;
    default:
      return OP.ALOAD;
  }
}

/** The return instruction for a method's return descriptor. */
export function returnOpFor(ret: string): number {
  switch (ret[0]) {
    case 'V':
      return OP.RETURN;
    case 'Z':
    case 'B':
    case 'C':
    case 'S':
    case 'I':
      return OP.IRETURN;
    case 'J':
      return OP.LRETURN;
    case 'F':
      return OP.FRETURN;
    case 'D':
      return OP.DRETURN;
    default:
      return OP.ARETURN;
  }
}

/** The store instruction for a value of the given field descriptor. */
export function storeOpFor(desc: string): number {
  return loadOpFor(desc) + (OP.ISTORE - OP.ILOAD);
}
