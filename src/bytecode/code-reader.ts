/**
 * Decodes a Code attribute (JVMS 4.7.3) into the IR of ir.ts: instructions in canonical form,
 * Labels for every offset a table or branch refers to, and the StackMapTable expanded into full
 * frames. Everything malformed raises ClassFormatError naming the class and method, since a
 * rewriter must not guess at code it cannot read exactly.
 */
import type { ClassFile } from '../classfile/classfile.js';
import { CONSTANT, type MemberInfo, type RawAttribute } from '../classfile/model.js';
import { tagName, type ConstantPool } from '../classfile/constant-pool.js';
import { isValidFieldDescriptor, isValidMethodDescriptor } from '../classfile/descriptor.js';
import { ClassFormatError, KomoriumError } from '../errors.js';
import {
  Label,
  type CodeAttributeSlot,
  type CodeTypeAnnotation,
  type Frame,
  type Insn,
  type LineNumber,
  type LocalVar,
  type MethodCode,
  type Node,
  type TryCatch,
  type VType,
} from './ir.js';
import { Fmt, OP, OPCODE_FORMATS, OPCODE_NAMES, implicitVarBase, implicitVarIndex, isWideable } from './opcodes.js';
import { expandLocals, initialLocalEntries, vtypeOfClassName } from './vtypes.js';
import { javaName } from '../classfile/names.js';

/** "java.lang.Foo.bar(I)V", the way errors name a method. */
export function methodDisplayName(cf: ClassFile, method: MemberInfo): string {
  return `${javaName(cf.thisClass)}.${method.name}${method.desc}`;
}

/** Thrown inside the reader and turned into a ClassFormatError naming the method. */
class Bad extends Error {}

/** Per class (its pool), the Fieldref/Methodref/InvokeDynamic constants whose descriptor checkConstant found valid. */
const validRefs = new WeakMap<ConstantPool, Set<number>>();

/** The constant kinds each instruction that names a constant takes (JVMS 4.9.1). */
const T = CONSTANT;
const LDC_KINDS = [T.Integer, T.Float, T.String, T.Class, T.MethodType, T.MethodHandle, T.Dynamic];
const LDC2_KINDS = [T.Long, T.Double, T.Dynamic];
const FIELD_KINDS = [T.Fieldref];
const VIRTUAL_KINDS = [T.Methodref];
const SPECIAL_KINDS = [T.Methodref, T.InterfaceMethodref];
const INTERFACE_KINDS = [T.InterfaceMethodref];
const INDY_KINDS = [T.InvokeDynamic];
const CLASS_KINDS = [T.Class];

function hex2(n: number): string {
  return '0x' + n.toString(16).padStart(2, '0');
}

/**
 * The IR of a Code attribute. With `withOffsets`, `code.offsets` gives each instruction's offset as
 * read (its bytecode index, the position profiles name), for transforms that record positions.
 */
export function readCode(cf: ClassFile, method: MemberInfo, codeAttr: RawAttribute, withOffsets = false): MethodCode {
  try {
    return new CodeReader(cf, method, codeAttr.info).read(withOffsets);
  } catch (e) {
    const where = methodDisplayName(cf, method);
    if (e instanceof Bad) throw new ClassFormatError(cf.entry, `${where}: ${e.message}`);
    if (e instanceof ClassFormatError) throw new ClassFormatError(cf.entry, `${where}: ${e.detail}`);
    if (e instanceof KomoriumError) throw new ClassFormatError(cf.entry, `${where}: ${e.message}`);
    throw e;
  }
}

class CodeReader {
  private readonly dv: DataView;
  private codeLength = 0;
  /** The instruction starting at each offset. */
  private insnAt: (Insn | undefined)[] = [];
  /** The label at each offset, 0 … code_length inclusive. */
  private labels: (Label | undefined)[] = [];
  /** Branch and switch targets to check once every instruction start is known: [source, target, …]. */
  private jumps: number[] = [];
  private classNames = new Map<number, string>();

  constructor(
    private readonly cf: ClassFile,
    private readonly method: MemberInfo,
    private readonly info: Uint8Array,
  ) {
    this.dv = new DataView(info.buffer, info.byteOffset, info.byteLength);
  }

  private need(p: number, n: number, what: string): void {
    if (p + n > this.info.length) throw new Bad(`Code attribute truncated in ${what} (byte ${p} of ${this.info.length})`);
  }

  private label(offset: number): Label {
    let l = this.labels[offset];
    if (l === undefined) {
      l = new Label(offset);
      this.labels[offset] = l;
    }
    return l;
  }

  private isInsnStart(offset: number): boolean {
    return offset >= 0 && offset < this.codeLength && this.insnAt[offset] !== undefined;
  }

  /** A label at an instruction start (or, when `allowEnd`, at code_length); else Bad naming `what`. */
  private labelAt(offset: number, what: string, allowEnd = false): Label {
    if (this.isInsnStart(offset) || (allowEnd && offset === this.codeLength)) return this.label(offset);
    if (offset < 0 || offset > this.codeLength || (!allowEnd && offset === this.codeLength)) {
      throw new Bad(`${what}: offset ${offset} is outside the code (length ${this.codeLength})`);
    }
    throw new Bad(`${what}: offset ${offset} is not at the start of an instruction`);
  }

  read(withOffsets: boolean): MethodCode {
    const { dv, info } = this;
    this.need(0, 8, 'max_stack/max_locals/code_length');
    const maxStack = dv.getUint16(0);
    const maxLocals = dv.getUint16(2);
    const codeLength = dv.getUint32(4);
    if (codeLength === 0 || codeLength > 65535) throw new Bad(`code_length ${codeLength} is not in 1..65535`);
    this.need(8, codeLength, 'code');
    this.codeLength = codeLength;
    this.insnAt = new Array<Insn | undefined>(codeLength);
    this.labels = new Array<Label | undefined>(codeLength + 1);
    const order = this.decodeInstructions(info.subarray(8, 8 + codeLength));

    const jumps = this.jumps;
    for (let i = 0; i < jumps.length; i += 2) {
      const target = jumps[i + 1]!;
      if (!this.isInsnStart(target)) {
        const why = target < 0 || target >= codeLength ? 'outside the code' : 'into the middle of an instruction';
        throw new Bad(`${OPCODE_NAMES[info[8 + jumps[i]!]!]} at ${jumps[i]} jumps to ${target}, ${why}`);
      }
    }

    let p = 8 + codeLength;
    this.need(p, 2, 'exception_table_length');
    const nExc = dv.getUint16(p);
    p += 2;
    this.need(p, nExc * 8, 'exception_table');
    const tryCatch: TryCatch[] = [];
    for (let i = 0; i < nExc; i++, p += 8) {
      const start = dv.getUint16(p);
      const end = dv.getUint16(p + 2);
      const handler = dv.getUint16(p + 4);
      const ct = dv.getUint16(p + 6);
      const what = `exception_table[${i}]`;
      if (start >= end) throw new Bad(`${what}: start_pc ${start} is not before end_pc ${end}`);
      tryCatch.push({
        start: this.labelAt(start, `${what} start_pc`),
        end: this.labelAt(end, `${what} end_pc`, true),
        handler: this.labelAt(handler, `${what} handler_pc`),
        catchType: ct === 0 ? null : this.cf.cp.className(ct),
        catchTypeIndex: ct,
      });
    }

    this.need(p, 2, 'attributes_count');
    const nAttr = dv.getUint16(p);
    p += 2;
    const attributes: CodeAttributeSlot[] = [];
    let frames: Map<Label, Frame> | null = null;
    const frameKinds = new Map<Label, number>();
    for (let i = 0; i < nAttr; i++) {
      this.need(p, 6, 'attribute header');
      const nameIndex = dv.getUint16(p);
      const len = dv.getUint32(p + 2);
      p += 6;
      this.need(p, len, 'attribute');
      const name = this.cf.cp.utf8(nameIndex);
      const end = p + len;
      switch (name) {
        case 'LineNumberTable':
          attributes.push({ kind: name, entries: this.readLines(p, end), nameIndex });
          break;
        case 'LocalVariableTable':
        case 'LocalVariableTypeTable':
          attributes.push({ kind: name, entries: this.readLocals(p, end, name), nameIndex });
          break;
        case 'StackMapTable':
          if (frames !== null) throw new Bad('more than one StackMapTable attribute');
          frames = this.readFrames(p, end, frameKinds);
          attributes.push({ kind: name, nameIndex });
          break;
        case 'RuntimeVisibleTypeAnnotations':
        case 'RuntimeInvisibleTypeAnnotations':
          attributes.push({ kind: name, annotations: this.readTypeAnnotations(p, end, name), nameIndex });
          break;
        default:
          attributes.push({ kind: 'raw', attribute: { nameIndex, name, info: info.subarray(p, end) } });
      }
      p = end;
    }
    if (p !== info.length) throw new Bad(`${info.length - p} bytes after the last Code sub-attribute`);

    const nodes: Node[] = [];
    const labels = this.labels;
    const insnAt = this.insnAt;
    const offsets = withOffsets ? new Map<Insn, number>() : undefined;
    for (let i = 0; i < order.length; i++) {
      const off = order[i]!;
      const l = labels[off];
      if (l !== undefined) nodes.push(l);
      nodes.push(insnAt[off]!);
      offsets?.set(insnAt[off]!, off);
    }
    const endLabel = labels[codeLength];
    if (endLabel !== undefined) nodes.push(endLabel);

    const code: MethodCode = { maxStack, maxLocals, nodes, tryCatch, attributes, frames, frameKinds };
    if (offsets) code.offsets = offsets;
    return code;
  }

  /** Pass over the code array; returns the instruction start offsets in order. */
  private decodeInstructions(code: Uint8Array): number[] {
    const n = code.length;
    const cdv = new DataView(code.buffer, code.byteOffset, code.byteLength);
    const insnAt = this.insnAt;
    const jumps = this.jumps;
    const order: number[] = [];
    const truncated = (pc: number): never => {
      throw new Bad(`truncated ${OPCODE_NAMES[code[pc]!]} at ${pc} (code_length ${n})`);
    };
    let pc = 0;
    while (pc < n) {
      const op = code[pc]!;
      let insn: Insn;
      let len: number;
      switch (OPCODE_FORMATS[op] as Fmt) {
        case Fmt.NONE:
          insn = { op };
          len = 1;
          break;
        case Fmt.S1:
          if (pc + 2 > n) truncated(pc);
          insn = { op, n: cdv.getInt8(pc + 1) };
          len = 2;
          break;
        case Fmt.S2:
          if (pc + 3 > n) truncated(pc);
          insn = { op, n: cdv.getInt16(pc + 1) };
          len = 3;
          break;
        case Fmt.ATYPE:
          if (pc + 2 > n) truncated(pc);
          insn = { op, n: code[pc + 1]! };
          len = 2;
          break;
        case Fmt.VAR:
          if (pc + 2 > n) truncated(pc);
          insn = { op, var: code[pc + 1]!, form: op };
          len = 2;
          break;
        case Fmt.VAR_IMPLICIT:
          insn = { op: implicitVarBase(op), var: implicitVarIndex(op), form: op };
          len = 1;
          break;
        case Fmt.IINC:
          if (pc + 3 > n) truncated(pc);
          insn = { op, var: code[pc + 1]!, inc: cdv.getInt8(pc + 2), form: op };
          len = 3;
          break;
        case Fmt.CP1:
          if (pc + 2 > n) truncated(pc);
          insn = { op, cp: code[pc + 1]!, form: op };
          len = 2;
          break;
        case Fmt.CP2:
          if (pc + 3 > n) truncated(pc);
          insn = op === OP.LDC_W ? { op: OP.LDC, cp: cdv.getUint16(pc + 1), form: op } : { op, cp: cdv.getUint16(pc + 1) };
          len = 3;
          break;
        case Fmt.INVOKEINTERFACE:
          if (pc + 5 > n) truncated(pc);
          if (code[pc + 4] !== 0) throw new Bad(`invokeinterface at ${pc}: fourth operand byte is ${code[pc + 4]}, not 0`);
          insn = { op, cp: cdv.getUint16(pc + 1), n: code[pc + 3]! };
          len = 5;
          break;
        case Fmt.INVOKEDYNAMIC:
          if (pc + 5 > n) truncated(pc);
          if (code[pc + 3] !== 0 || code[pc + 4] !== 0) throw new Bad(`invokedynamic at ${pc}: operand bytes 3-4 are not 0`);
          insn = { op, cp: cdv.getUint16(pc + 1) };
          len = 5;
          break;
        case Fmt.MULTIANEWARRAY:
          if (pc + 4 > n) truncated(pc);
          insn = { op, cp: cdv.getUint16(pc + 1), n: code[pc + 3]! };
          len = 4;
          break;
        case Fmt.BRANCH: {
          if (pc + 3 > n) truncated(pc);
          const t = pc + cdv.getInt16(pc + 1);
          jumps.push(pc, t);
          insn = op === OP.GOTO || op === OP.JSR ? { op, target: this.safeLabel(t), form: op } : { op, target: this.safeLabel(t) };
          len = 3;
          break;
        }
        case Fmt.BRANCH_W: {
          if (pc + 5 > n) truncated(pc);
          const t = pc + cdv.getInt32(pc + 1);
          jumps.push(pc, t);
          insn = { op: op === OP.GOTO_W ? OP.GOTO : OP.JSR, target: this.safeLabel(t), form: op };
          len = 5;
          break;
        }
        case Fmt.TABLESWITCH: {
          const p = (pc + 4) & ~3; // the operands start at the next multiple of 4 after the opcode
          if (p + 12 > n) truncated(pc);
          const dflt = pc + cdv.getInt32(p);
          const low = cdv.getInt32(p + 4);
          const high = cdv.getInt32(p + 8);
          if (low > high) throw new Bad(`tableswitch at ${pc}: low ${low} > high ${high}`);
          const count = high - low + 1;
          if (p + 12 + 4 * count > n) truncated(pc);
          jumps.push(pc, dflt);
          const targets: Label[] = new Array<Label>(count);
          for (let k = 0; k < count; k++) {
            const t = pc + cdv.getInt32(p + 12 + 4 * k);
            jumps.push(pc, t);
            targets[k] = this.safeLabel(t);
          }
          insn = { op, dflt: this.safeLabel(dflt), low, targets };
          len = p + 12 + 4 * count - pc;
          break;
        }
        case Fmt.LOOKUPSWITCH: {
          const p = (pc + 4) & ~3;
          if (p + 8 > n) truncated(pc);
          const dflt = pc + cdv.getInt32(p);
          const npairs = cdv.getInt32(p + 4);
          if (npairs < 0) throw new Bad(`lookupswitch at ${pc}: npairs ${npairs} is negative`);
          if (p + 8 + 8 * npairs > n) truncated(pc);
          jumps.push(pc, dflt);
          const keys: number[] = new Array<number>(npairs);
          const targets: Label[] = new Array<Label>(npairs);
          for (let k = 0; k < npairs; k++) {
            keys[k] = cdv.getInt32(p + 8 + 8 * k);
            const t = pc + cdv.getInt32(p + 12 + 8 * k);
            jumps.push(pc, t);
            targets[k] = this.safeLabel(t);
          }
          insn = { op, dflt: this.safeLabel(dflt), keys, targets };
          len = p + 8 + 8 * npairs - pc;
          break;
        }
        case Fmt.WIDE: {
          if (pc + 2 > n) truncated(pc);
          const op2 = code[pc + 1]!;
          if (!isWideable(op2)) {
            throw new Bad(`wide at ${pc} modifies ${OPCODE_NAMES[op2] || hex2(op2)}, which has no wide form`);
          }
          if (op2 === OP.IINC) {
            if (pc + 6 > n) truncated(pc);
            insn = { op: op2, var: cdv.getUint16(pc + 2), inc: cdv.getInt16(pc + 4), form: OP.WIDE };
            len = 6;
          } else {
            if (pc + 4 > n) truncated(pc);
            insn = { op: op2, var: cdv.getUint16(pc + 2), form: OP.WIDE };
            len = 4;
          }
          break;
        }
        default:
          throw new Bad(`unknown opcode ${hex2(op)} at ${pc}`);
      }
      if (insn.cp !== undefined) this.checkConstant(insn.op, insn.cp, pc);
      insnAt[pc] = insn;
      order.push(pc);
      pc += len;
    }
    return order;
  }

  /**
   * The constant an instruction names exists and is of a kind the instruction takes (JVMS 4.9.1;
   * the JVM's verifier refuses the class otherwise), so that nothing downstream meets index 0 or a
   * Utf8 where a Fieldref should be.
   */
  private checkConstant(op: number, index: number, pc: number): void {
    const problem = constantProblem(this.cf.cp, op, index, pc);
    if (problem !== null) throw new Bad(problem);
  }

  /**
   * A label for a 32-bit branch offset, which may be far outside the code: the jump check reports
   * those, and a label at a wild offset must not become a huge sparse array index first.
   */
  private safeLabel(t: number): Label {
    return t >= 0 && t <= this.codeLength ? this.label(t) : new Label(t);
  }

  private readLines(p: number, end: number): LineNumber[] {
    const dv = this.dv;
    if (end - p < 2) throw new Bad('LineNumberTable is truncated');
    const n = dv.getUint16(p);
    if (end - p !== 2 + 4 * n) throw new Bad(`LineNumberTable length ${end - p} does not fit its ${n} entries`);
    const out: LineNumber[] = new Array<LineNumber>(n);
    for (let i = 0, q = p + 2; i < n; i++, q += 4) {
      out[i] = { start: this.labelAt(dv.getUint16(q), `LineNumberTable[${i}] start_pc`), line: dv.getUint16(q + 2) };
    }
    return out;
  }

  private readLocals(p: number, end: number, name: string): LocalVar[] {
    const dv = this.dv;
    if (end - p < 2) throw new Bad(`${name} is truncated`);
    const n = dv.getUint16(p);
    if (end - p !== 2 + 10 * n) throw new Bad(`${name} length ${end - p} does not fit its ${n} entries`);
    const out: LocalVar[] = new Array<LocalVar>(n);
    for (let i = 0, q = p + 2; i < n; i++, q += 10) {
      const start = dv.getUint16(q);
      const length = dv.getUint16(q + 2);
      out[i] = {
        start: this.labelAt(start, `${name}[${i}] start_pc`),
        end: this.labelAt(start + length, `${name}[${i}] start_pc + length`, true),
        nameIndex: dv.getUint16(q + 4),
        descIndex: dv.getUint16(q + 6),
        index: dv.getUint16(q + 8),
      };
    }
    return out;
  }

  // ---- StackMapTable (JVMS 4.7.4) -----------------------------------------------------------

  private readFrames(p: number, end: number, kinds: Map<Label, number>): Map<Label, Frame> {
    const dv = this.dv;
    const frames = new Map<Label, Frame>();
    const need = (q: number, k: number): void => {
      if (q + k > end) throw new Bad(`StackMapTable is truncated at byte ${q - p} of ${end - p}`);
    };
    need(p, 2);
    const n = dv.getUint16(p);
    let q = p + 2;
    let locals: VType[];
    try {
      locals = initialLocalEntries(this.cf, this.method);
    } catch (e) {
      if (e instanceof KomoriumError) throw new Bad(e.message);
      throw e;
    }
    let offset = -1;
    const vt = (): VType => {
      need(q, 1);
      const tag = this.info[q++]!;
      switch (tag) {
        case 0:
          return 'T';
        case 1:
          return 'I';
        case 2:
          return 'F';
        case 3:
          return 'D';
        case 4:
          return 'J';
        case 5:
          return 'N';
        case 6:
          return 'U';
        case 7: {
          need(q, 2);
          const ci = dv.getUint16(q);
          q += 2;
          let t = this.classNames.get(ci);
          if (t === undefined) {
            t = vtypeOfClassName(this.cf.cp.className(ci));
            this.classNames.set(ci, t);
          }
          return t;
        }
        case 8: {
          need(q, 2);
          const at = dv.getUint16(q);
          q += 2;
          const insn = at < this.codeLength ? this.insnAt[at] : undefined;
          if (insn === undefined || insn.op !== OP.NEW) {
            throw new Bad(`StackMapTable: uninitialized(${at}) does not name a new instruction`);
          }
          return insn;
        }
        default:
          throw new Bad(`StackMapTable: unknown verification type tag ${tag}`);
      }
    };
    for (let i = 0; i < n; i++) {
      need(q, 1);
      const type = this.info[q++]!;
      let delta: number;
      let stack: VType[];
      if (type < 64) {
        delta = type;
        stack = [];
      } else if (type < 128) {
        delta = type - 64;
        stack = [vt()];
      } else if (type < 247) {
        throw new Bad(`StackMapTable: reserved frame type ${type}`);
      } else {
        need(q, 2);
        delta = dv.getUint16(q);
        q += 2;
        if (type === 247) {
          stack = [vt()];
        } else if (type < 251) {
          const k = 251 - type;
          if (locals.length < k) throw new Bad(`StackMapTable: chop_frame removes ${k} of ${locals.length} locals`);
          locals = locals.slice(0, locals.length - k);
          stack = [];
        } else if (type === 251) {
          stack = [];
        } else if (type < 255) {
          locals = locals.slice();
          for (let k = type - 251; k > 0; k--) locals.push(vt());
          stack = [];
        } else {
          need(q, 2);
          const nl = dv.getUint16(q);
          q += 2;
          locals = new Array<VType>(nl);
          for (let k = 0; k < nl; k++) locals[k] = vt();
          need(q, 2);
          const ns = dv.getUint16(q);
          q += 2;
          stack = new Array<VType>(ns);
          for (let k = 0; k < ns; k++) stack[k] = vt();
        }
      }
      offset = offset < 0 ? delta : offset + delta + 1;
      if (!this.isInsnStart(offset)) {
        throw new Bad(
          `StackMapTable frame ${i} at offset ${offset} is ${offset >= this.codeLength ? 'outside the code' : 'not at an instruction'}`,
        );
      }
      const label = this.label(offset);
      frames.set(label, { locals: expandLocals(locals), stack });
      kinds.set(label, type);
    }
    if (q !== end) throw new Bad(`StackMapTable has ${end - q} bytes after its ${n} frames`);
    return frames;
  }

  // ---- type annotations on code (JVMS 4.7.20) -----------------------------------------------

  private readTypeAnnotations(p: number, end: number, name: string): CodeTypeAnnotation[] {
    const dv = this.dv;
    const info = this.info;
    let q = p;
    const need = (k: number): void => {
      if (q + k > end) throw new Bad(`${name} is truncated`);
    };
    const u1 = (): number => {
      need(1);
      return info[q++]!;
    };
    const u2 = (): number => {
      need(2);
      const v = dv.getUint16(q);
      q += 2;
      return v;
    };
    const insnAtOffset = (off: number, what: string): Insn => {
      const insn = off < this.codeLength ? this.insnAt[off] : undefined;
      if (insn === undefined) throw new Bad(`${name} ${what}: offset ${off} is not at an instruction`);
      return insn;
    };
    const skipElementValue = (): void => {
      const tag = String.fromCharCode(u1());
      switch (tag) {
        case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z': case 's': case 'c':
          u2();
          break;
        case 'e':
          u2();
          u2();
          break;
        case '@':
          skipAnnotation();
          break;
        case '[': {
          for (let k = u2(); k > 0; k--) skipElementValue();
          break;
        }
        default:
          throw new Bad(`${name}: unknown element_value tag '${tag}'`);
      }
    };
    const skipAnnotation = (): void => {
      u2();
      for (let k = u2(); k > 0; k--) {
        u2();
        skipElementValue();
      }
    };

    const n = u2();
    const out: CodeTypeAnnotation[] = [];
    for (let i = 0; i < n; i++) {
      const targetType = u1();
      const a: CodeTypeAnnotation = { targetType, rest: new Uint8Array(0) };
      const what = `annotation ${i} (target_type ${hex2(targetType)})`;
      if (targetType === 0x40 || targetType === 0x41) {
        const ranges: { start: Label; end: Label; index: number }[] = [];
        for (let k = u2(); k > 0; k--) {
          const start = u2();
          const length = u2();
          const index = u2();
          ranges.push({
            start: this.labelAt(start, `${name} ${what} start_pc`),
            end: this.labelAt(start + length, `${name} ${what} start_pc + length`, true),
            index,
          });
        }
        a.ranges = ranges;
      } else if (targetType === 0x42) {
        a.index = u2();
      } else if (targetType >= 0x43 && targetType <= 0x46) {
        a.insn = insnAtOffset(u2(), what);
      } else if (targetType >= 0x47 && targetType <= 0x4b) {
        a.insn = insnAtOffset(u2(), what);
        a.index = u1();
      } else {
        throw new Bad(`${name} ${what}: target type does not belong in a Code attribute`);
      }
      const restStart = q;
      const pathLength = u1();
      need(2 * pathLength);
      q += 2 * pathLength;
      skipAnnotation();
      a.rest = info.slice(restStart, q);
      out.push(a);
    }
    if (q !== end) throw new Bad(`${name} has ${end - q} bytes after its ${n} annotations`);
    return out;
  }
}

/**
 * What is wrong with constant `index` as the operand of instruction `op` at `pc` (ldc_w as ldc), or
 * null: it must exist and be of a kind the instruction takes (JVMS 4.9.1; the JVM's verifier
 * refuses the class otherwise), so that nothing downstream meets index 0 or a Utf8 where a Fieldref
 * should be. A constant that cannot be read raises ClassFormatError.
 */
export function constantProblem(cp: ConstantPool, op: number, index: number, pc: number): string | null {
  if (op === OP.LDC_W) op = OP.LDC;
  const allowed =
    op === OP.LDC ? LDC_KINDS
    : op === OP.LDC2_W ? LDC2_KINDS
    : op === OP.GETFIELD || op === OP.PUTFIELD || op === OP.GETSTATIC || op === OP.PUTSTATIC ? FIELD_KINDS
    : op === OP.INVOKEVIRTUAL ? VIRTUAL_KINDS
    : op === OP.INVOKESPECIAL || op === OP.INVOKESTATIC ? SPECIAL_KINDS
    : op === OP.INVOKEINTERFACE ? INTERFACE_KINDS
    : op === OP.INVOKEDYNAMIC ? INDY_KINDS
    : CLASS_KINDS; // new, anewarray, checkcast, instanceof, multianewarray
  const tag = cp.tag(index); // out of range: a ClassFormatError naming the index
  if (!(allowed as number[]).includes(tag)) {
    return `${OPCODE_NAMES[op]} at ${pc} names constant ${index}, a ${tagName(tag)}, not a ${allowed.map(tagName).join(' or ')}`;
  }
  // The JVM refuses such a class at load; caught here, the class is broken input, named with
  // its method, instead of a bare descriptor error from whichever analysis reads it first.
  if (tag === T.Fieldref || tag === T.Methodref || tag === T.InterfaceMethodref || tag === T.InvokeDynamic) {
    // A constant is checked once per class, not at every instruction that names it.
    let valid = validRefs.get(cp);
    if (valid === undefined) validRefs.set(cp, (valid = new Set()));
    if (valid.has(index)) return null;
    const ref = tag === T.InvokeDynamic ? cp.dynamic(index) : cp.memberRef(index);
    if (!(tag === T.Fieldref ? isValidFieldDescriptor(ref.desc) : isValidMethodDescriptor(ref.desc))) {
      const named = 'owner' in ref ? `${javaName(ref.owner)}.${ref.name}` : ref.name;
      return `${OPCODE_NAMES[op]} at ${pc} names ${named} with an invalid descriptor '${ref.desc}' (constant ${index})`;
    }
    valid.add(index);
  }
  return null;
}
