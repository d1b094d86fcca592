/**
 * A method's code as a table: one pass over the Code attribute's bytes into typed arrays indexed by
 * instruction number, with no object per instruction, label or frame (docs/non-object-ir.md, step 2).
 * Branch and switch targets and the exception table are instruction indices, so analyses and the
 * passes built on the table never see an offset; only a writer turns indices back into offsets.
 *
 * The table checks what it reads as code-reader.ts does (opcodes, operands inside the code, targets
 * at instruction starts, exception ranges) and raises ClassFormatError naming the class and method.
 */
import { ClassFormatError } from '../errors.js';
import { Fmt, OP, OPCODE_FORMATS, OPCODE_NAMES, isWideable } from './opcodes.js';
import { fit, grownSize } from './scratch.js';

/**
 * The table of one method at a time: `decode` refills the same arrays (grown when a method needs
 * more), so reading a jar allocates per table, not per method or instruction. What `decode` returns
 * is valid until the next call.
 */
export class CodeTable {
  maxStack = 0;
  maxLocals = 0;
  codeLength = 0;
  /** Number of instructions. */
  n = 0;
  /** Opcode of each instruction (WIDE for a wide-prefixed one; the byte after it is what it widens). */
  op = new Uint8Array(0);
  /** Offset of each instruction as read; pc[n] is code_length. */
  pc = new Int32Array(1);
  /** Branch target (goto, if*, jsr and their wide forms) as an instruction index, else -1. */
  target = new Int32Array(0);
  /** For a switch: where its targets start in `switchTargets` (the default first), else -1. */
  switchAt = new Int32Array(0);
  /** For a switch: how many targets it has, the default included. */
  switchCount = new Int32Array(0);
  switchTargets: Int32Array = new Int32Array(64);
  /** exception_table as instruction indices, four per entry: start, end (n for the end of the code), handler, catch_type. */
  handlers = new Int32Array(16);
  /** Number of exception_table entries. */
  nHandlers = 0;
  /** The raw code bytes (a view of the attribute), for operands the table does not decode. */
  code: Uint8Array = new Uint8Array(0);
  /** Instruction index + 1 at each offset (0: not an instruction start), up to code_length; see indexOf. */
  private indexAt = new Int32Array(0);

  /**
   * Reads a Code attribute's body (`info`: max_stack onward) into this table. `entry` and `method`
   * name the class file and the method (name + descriptor) in errors.
   */
  decode(info: Uint8Array, entry: string, method: string): this {
    decodeInto(this, info, entry, method);
    return this;
  }

  /** The instruction at offset `pc` as read (n for code_length), or -1 when no instruction starts there. */
  indexOf(pc: number): number {
    return pc >= 0 && pc <= this.codeLength ? this.indexAt[pc]! - 1 : -1;
  }

  /** Where attributes_count is in the Code attribute's body the table was decoded from. */
  get attributesAt(): number {
    return 8 + this.codeLength + 2 + 8 * this.nHandlers;
  }

  /** The opcode of instruction i, or for a wide-prefixed one the opcode it widens. */
  baseOp(i: number): number {
    const o = this.op[i]!;
    return o === OP.WIDE ? this.code[this.pc[i]! + 1]! : o;
  }

  /** @internal Arrays for a method of `codeLength` bytes (an instruction takes at least one). */
  reserve(codeLength: number): Int32Array {
    if (this.indexAt.length < codeLength + 1) {
      const size = grownSize(this.indexAt.length, codeLength + 1);
      this.indexAt = new Int32Array(size);
      this.op = new Uint8Array(size);
      this.pc = new Int32Array(size + 1);
      this.target = new Int32Array(size);
      this.switchAt = new Int32Array(size);
      this.switchCount = new Int32Array(size);
    } else this.indexAt.fill(0, 0, codeLength + 1);
    return this.indexAt;
  }

  /** @internal */
  reserveSwitchTargets(n: number): void {
    this.switchTargets = fit(this.switchTargets, n);
  }

  /** @internal */
  reserveHandlers(n: number): void {
    if (this.handlers.length < 4 * n) this.handlers = new Int32Array(grownSize(this.handlers.length, 4 * n));
  }
}

const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;
const s2 = (b: Uint8Array, p: number): number => ((b[p]! << 24) >> 16) | b[p + 1]!;
const s4 = (b: Uint8Array, p: number): number => (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;

/** The body of the Code attribute's own attribute `name` (the first one), or undefined. */
export function codeAttribute(t: CodeTable, info: Uint8Array, cp: { utf8(i: number): string }, name: string): Uint8Array | undefined {
  const p = t.attributesAt;
  for (let a = u2(info, p), q = p + 2; a > 0; a--) {
    const length = s4(info, q + 2) >>> 0;
    if (cp.utf8(u2(info, q)) === name) return info.subarray(q + 6, q + 6 + length);
    q += 6 + length;
  }
  return undefined;
}

/** Size of the instruction at `pc`, or -1 when it runs past `len` or is not an instruction. */
export function insnSize(code: Uint8Array, pc: number, len: number): number {
  const op = code[pc]!;
  let size: number;
  switch (OPCODE_FORMATS[op]) {
    case Fmt.NONE:
    case Fmt.VAR_IMPLICIT:
      size = 1;
      break;
    case Fmt.S1:
    case Fmt.ATYPE:
    case Fmt.VAR:
    case Fmt.CP1:
      size = 2;
      break;
    case Fmt.S2:
    case Fmt.IINC:
    case Fmt.CP2:
    case Fmt.BRANCH:
      size = 3;
      break;
    case Fmt.MULTIANEWARRAY:
      size = 4;
      break;
    case Fmt.INVOKEINTERFACE:
    case Fmt.INVOKEDYNAMIC:
    case Fmt.BRANCH_W:
      size = 5;
      break;
    case Fmt.WIDE:
      if (pc + 1 >= len) return -1;
      size = code[pc + 1] === OP.IINC ? 6 : 4;
      break;
    case Fmt.TABLESWITCH: {
      const q = (pc + 4) & ~3;
      if (q + 12 > len) return -1;
      const count = s4(code, q + 8) - s4(code, q + 4) + 1;
      if (count < 1 || count > 65536) return -1;
      size = q - pc + 12 + 4 * count;
      break;
    }
    case Fmt.LOOKUPSWITCH: {
      const q = (pc + 4) & ~3;
      if (q + 8 > len) return -1;
      const count = s4(code, q + 4);
      if (count < 0 || count > 65536) return -1;
      size = q - pc + 8 + 8 * count;
      break;
    }
    default:
      return -1;
  }
  return pc + size <= len ? size : -1;
}

function decodeInto(t: CodeTable, info: Uint8Array, entry: string, method: string): void {
  const fail = (detail: string): never => {
    throw new ClassFormatError(entry, `method ${method}: ${detail}`);
  };
  if (info.length < 8) fail(`Code attribute truncated in max_stack/max_locals/code_length (byte 0 of ${info.length})`);
  const codeLength = s4(info, 4) >>> 0;
  if (codeLength === 0 || codeLength > 65535) fail(`code_length ${codeLength} is not in 1..65535`);
  if (8 + codeLength > info.length) fail(`Code attribute truncated in code (byte 8 of ${info.length})`);
  const code = info.subarray(8, 8 + codeLength);

  // Pass 1: instruction starts (index + 1 at each start offset, so 0 means "not a start").
  const indexAt = t.reserve(codeLength);
  const pcs = t.pc;
  let n = 0;
  for (let pc = 0; pc < codeLength; ) {
    const op = code[pc]!;
    const size = insnSize(code, pc, codeLength);
    if (size < 0) {
      if (OPCODE_FORMATS[op] === Fmt.INVALID) fail(`unknown opcode ${op} at ${pc}`);
      fail(`${OPCODE_NAMES[op]} at ${pc} runs past the end of the code (length ${codeLength})`);
    }
    if (op === OP.WIDE && !isWideable(code[pc + 1]!)) fail(`wide at ${pc} prefixes ${OPCODE_NAMES[code[pc + 1]!] || `opcode ${code[pc + 1]}`}`);
    indexAt[pc] = ++n;
    pcs[n - 1] = pc;
    pc += size;
  }
  pcs[n] = codeLength;
  indexAt[codeLength] = n + 1;
  const at = (from: number, to: number): number => {
    if (to < 0 || to >= codeLength) return fail(`${OPCODE_NAMES[code[from]!]} at ${from} jumps to ${to}, outside the code`);
    const i = indexAt[to]! - 1;
    if (i < 0) return fail(`${OPCODE_NAMES[code[from]!]} at ${from} jumps to ${to}, into the middle of an instruction`);
    return i;
  };

  // Pass 2: targets as instruction indices.
  const { op, pc, target, switchAt, switchCount } = t;
  let nSwitch = 0;
  for (let i = 0; i < n; i++) {
    target[i] = -1;
    switchAt[i] = -1;
    switchCount[i] = 0;
    const p = pc[i]!;
    const o = code[p]!;
    op[i] = o;
    const f = OPCODE_FORMATS[o];
    if (f === Fmt.BRANCH) target[i] = at(p, p + s2(code, p + 1));
    else if (f === Fmt.BRANCH_W) target[i] = at(p, p + s4(code, p + 1));
    else if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
      const q = (p + 4) & ~3;
      const table = f === Fmt.TABLESWITCH;
      const count = table ? s4(code, q + 8) - s4(code, q + 4) + 1 : s4(code, q + 4);
      t.reserveSwitchTargets(nSwitch + count + 1);
      const list = t.switchTargets;
      switchAt[i] = nSwitch;
      switchCount[i] = count + 1;
      list[nSwitch++] = at(p, p + s4(code, q));
      for (let k = 0; k < count; k++) list[nSwitch++] = at(p, p + s4(code, table ? q + 12 + 4 * k : q + 12 + 8 * k));
    }
  }

  let p = 8 + codeLength;
  if (p + 2 > info.length) fail(`Code attribute truncated in exception_table_length (byte ${p} of ${info.length})`);
  const nExc = u2(info, p);
  p += 2;
  if (p + 8 * nExc > info.length) fail(`Code attribute truncated in exception_table (byte ${p} of ${info.length})`);
  t.reserveHandlers(nExc);
  const handlers = t.handlers;
  for (let k = 0; k < nExc; k++, p += 8) {
    const start = u2(info, p);
    const end = u2(info, p + 2);
    const handler = u2(info, p + 4);
    if (start >= codeLength || indexAt[start] === 0) fail(`exception_table entry ${k}: start_pc ${start} is not at the start of an instruction`);
    if (end > codeLength || indexAt[end] === 0) fail(`exception_table entry ${k}: end_pc ${end} is not at the start of an instruction or the end of the code`);
    if (end <= start) fail(`exception_table entry ${k}: end_pc ${end} is not after start_pc ${start}`);
    if (handler >= codeLength || indexAt[handler] === 0) fail(`exception_table entry ${k}: handler_pc ${handler} is not at the start of an instruction`);
    handlers[4 * k] = indexAt[start]! - 1;
    handlers[4 * k + 1] = indexAt[end]! - 1;
    handlers[4 * k + 2] = indexAt[handler]! - 1;
    handlers[4 * k + 3] = u2(info, p + 6);
  }

  t.maxStack = u2(info, 0);
  t.maxLocals = u2(info, 2);
  t.codeLength = codeLength;
  t.n = n;
  t.nHandlers = nExc;
  t.code = code;
}
