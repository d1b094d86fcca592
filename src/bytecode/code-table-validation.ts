/**
 * What code-reader.ts refuses in a Code attribute beyond what CodeTable.decode already checks: the
 * constants that instructions name, the zero operand bytes of invokeinterface and invokedynamic, and
 * the layout of the Code attribute's own attributes. A pipeline that works on the table asks this
 * first and leaves a method it answers false for to the object reader, which names the problem: so
 * broken input is reported the same way whichever pipeline meets it.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { constantProblem } from './code-reader.js';
import type { CodeTable } from './code-table.js';
import { ITEM, type StackMap } from './stack-map.js';
import { Fmt, OPCODE_FORMATS } from './opcodes.js';

const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;
const u4 = (b: Uint8Array, p: number): number => ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;

/**
 * Whether code-reader.ts would read `t` (decoded from `info`) as far as these checks go. A constant
 * that cannot be read, or a catch type that is not a Class, raises ClassFormatError.
 */
export function readerAccepts(t: CodeTable, info: Uint8Array, cp: ConstantPool): boolean {
  const { code, pc, op } = t;
  for (let k = 0; k < t.nHandlers; k++) if (t.handlers[4 * k + 3] !== 0) cp.className(t.handlers[4 * k + 3]!);
  for (let i = 0; i < t.n; i++) {
    const p = pc[i]!;
    switch (OPCODE_FORMATS[op[i]!]) {
      case Fmt.CP1:
        if (constantProblem(cp, op[i]!, code[p + 1]!, p) !== null) return false;
        break;
      case Fmt.INVOKEINTERFACE:
        if (code[p + 4] !== 0) return false;
        if (constantProblem(cp, op[i]!, u2(code, p + 1), p) !== null) return false;
        break;
      case Fmt.INVOKEDYNAMIC:
        if (code[p + 3] !== 0 || code[p + 4] !== 0) return false;
        if (constantProblem(cp, op[i]!, u2(code, p + 1), p) !== null) return false;
        break;
      case Fmt.CP2:
      case Fmt.MULTIANEWARRAY:
        if (constantProblem(cp, op[i]!, u2(code, p + 1), p) !== null) return false;
        break;
    }
  }
  return attributesAccepted(t, info, cp);
}

/** The Code attribute's attributes fill it exactly; line and local tables fit their counts; one StackMapTable at most. */
function attributesAccepted(t: CodeTable, info: Uint8Array, cp: { utf8(i: number): string }): boolean {
  let p = t.attributesAt;
  if (p + 2 > info.length) return false;
  let frames = 0;
  let count = u2(info, p);
  for (p += 2; count > 0; count--) {
    if (p + 6 > info.length) return false;
    const length = u4(info, p + 2);
    const at = p + 6;
    p = at + length;
    if (p > info.length) return false;
    const name = cp.utf8(u2(info, at - 6));
    const entries = length >= 2 ? u2(info, at) : -1;
    if (name === 'LineNumberTable' && length !== 2 + 4 * entries) return false;
    if ((name === 'LocalVariableTable' || name === 'LocalVariableTypeTable') && length !== 2 + 10 * entries) return false;
    if (name === 'StackMapTable' && ++frames > 1) return false;
  }
  return p === info.length;
}

/** The Object types of frames `map` decoded name Class entries, as code-reader.ts requires; else ClassFormatError. */
export function frameClassesValid(map: StackMap, cp: ConstantPool): void {
  const end = map.n === 0 ? 0 : Math.max(map.localsAt[map.n - 1]! + map.nLocals[map.n - 1]!, map.stackAt[map.n - 1]! + map.nStack[map.n - 1]!);
  for (let i = 0; i < end; i++) {
    const v = map.types[i]!;
    if ((v & 15) === ITEM.Object && v > 0) cp.className(v >> 4);
  }
}
