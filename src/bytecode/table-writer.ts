/**
 * Writes a method's code back from its CodeTable with byte fragments inserted before instructions
 * (docs/non-object-ir.md, step 3). It alone turns instruction indices into offsets: it lays the
 * code out again (switch padding follows each switch's new position), rewrites every branch and
 * switch offset, and relocates the exception table, LineNumberTable, LocalVariable(Type)Table and
 * StackMapTable, so that nothing before it handles an offset.
 *
 * A jump to instruction i, a handler at i, an exception range or line or local variable starting
 * at i, and a stack map frame at i all land on the code inserted before i: that code runs whenever
 * i is reached, and inherits i's frame, so it must leave the operand stack and locals as it found
 * them. A range ending at i ends before it. `uninitialized(offset)` types keep naming their `new`.
 *
 * max_stack makes room for what the insertions push, from the depths TableStack finds. New locals
 * (WriteOptions.locals) move every local from their slot up: loads, stores and iincs take the form
 * the object writer would give them (a short form grows, past slot 255 it goes wide), and the frames
 * (stack-map.ts) and local variable tables follow.
 *
 * Besides code before an instruction: code at the entry (ENTRY), code that only the fall-through
 * from the instruction before runs (Insertion.fallThrough, for what follows a call), instructions
 * written as other bytes (WriteOptions.replace), and fragments whose own branches need frames
 * (Insertion.frames, simulated by TableFrames).
 *
 * Not yet here: widening a branch that outgrows 16 bits, type annotations on code that moves, and a
 * long or double straddling the new locals' slot. A method that needs one raises TableWriterLimit,
 * for the caller to rewrite it another way.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { ClassFormatError } from '../errors.js';
import { ByteWriter } from './byte-writer.js';
import { fit } from './scratch.js';
import type { TableStack } from '../analysis/table-stack.js';
import { codeAttribute, type CodeTable } from './code-table.js';
import { Fmt, OP, OPCODE_FORMATS, implicitVarBase, implicitVarIndex, implicitVarOpcode } from './opcodes.js';
import { StackMap, StraddledSlot, type AddedFrame, type LocalShift } from './stack-map.js';
import { TableFrames, type TableFrame } from '../analysis/table-frames.js';

/** What this writer does not do yet, for a method that needs it. */
export class TableWriterLimit extends Error {
  override name = 'TableWriterLimit';
}

/**
 * Code to insert before instruction `before` (0..n; n: after the last one), or with `before`
 * ENTRY, at the method's entry, where no jump to instruction 0 reaches it.
 */
export interface Insertion {
  before: number;
  bytes: Uint8Array;
  /** The most words the code has on the operand stack above what it found there (0 if omitted). */
  stack?: number;
  /**
   * Offsets in `bytes` where a branch of the fragment lands (its own labels, resolved by whoever
   * built it): each gets a stack map frame, the frame before instruction `before`, so the code must
   * have left the stack and the method's locals as it found them there. Only in class files that
   * have frames (version 50 on), and only where a frame is known: not in dead code.
   */
  frames?: readonly number[];
  /**
   * Stack map frames given outright, at offsets in `bytes`: an exception handler's, say, which no
   * instruction's frame describes. Locals as written (the new locals included), a type an int of
   * stack-map.ts or a class name.
   */
  ownFrames?: readonly { at: number; locals: readonly (number | string)[]; stack: readonly (number | string)[] }[];
  /**
   * Code that runs only when instruction `before - 1` falls through into `before` (after a call,
   * say): jumps to `before` land after it. Such insertions go first among those at `before`.
   */
  fallThrough?: boolean;
}

/** One StackMap and TableFrames for every writer: a write uses them from start to end. */
const scratchMap = new StackMap();
const scratchFrames = new TableFrames();

/** Insertion.before for code at the method's entry. */
export const ENTRY = -1;

export interface WriteOptions {
  /**
   * The depths of the table (TableStack): max_stack makes room for what the insertions push.
   * Without it, only code at the entry or after the last instruction may push.
   */
  stack?: TableStack;
  /** New locals; `member` must then be given. */
  locals?: LocalShift;
  /** The method as read, for its implicit initial frame. */
  member?: { access: number; name: string; desc: string };
  /**
   * Instructions written as other bytes (an invoke of another method, say): what reached the
   * instruction reaches them. Not for branches, switches, or loads and stores (which a shift renumbers).
   */
  replace?: ReadonlyMap<number, Uint8Array>;
  /**
   * Exception table entries after the method's own: the code from what is inserted before
   * instruction `start` up to what is inserted before `end` (n: the end of the original code),
   * handled at the start of insertion `handler` (an index in the insertions).
   */
  handlers?: readonly { start: number; end: number; handler: number; catchType: number }[];
}

const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;
const s4 = (b: Uint8Array, p: number): number => (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;

export class TableWriter {
  /** New offset of each instruction; [n] is the new code_length. */
  private newPc = new Int32Array(0);
  /** New offset of the code inserted before each instruction (its own offset when there is none). */
  private landing = new Int32Array(0);
  /** New offset of each insertion. */
  private insStart: Int32Array = new Int32Array(0);

  constructor(
    readonly cp: ConstantPool,
    /** Class file, for errors. */
    private readonly entry: string,
    /** The class's name, for the implicit initial frame of its methods. */
    private readonly thisClass: string,
  ) {}

  /**
   * The Code attribute's body (max_stack onward) for `t`, read from `info`, with `insertions`
   * (ordered by `before`; several before one instruction go in their order). `method` (name and
   * descriptor) is for messages.
   */
  write(t: CodeTable, info: Uint8Array, insertions: readonly Insertion[], method: string, options: WriteOptions = {}): Uint8Array {
    const { stack, locals, replace } = options;
    if (locals !== undefined) this.checkStraddle(t, locals, method);
    if (replace !== undefined) checkReplacements(t, replace, method);
    const codeLength = this.layout(t, insertions, locals, replace);
    const w = new ByteWriter(info.length + codeLength - t.codeLength + 64);
    w.u2(maxStack(t, insertions, stack, method));
    const maxLocals = t.maxLocals + (locals?.types.length ?? 0);
    if (maxLocals > 0xffff) throw new TableWriterLimit(`method ${method}: max_locals would be ${maxLocals}`);
    w.u2(maxLocals);
    w.u4(codeLength);
    const codeAt = w.reserve(codeLength);
    this.code(t, insertions, w.buffer.subarray(codeAt, codeAt + codeLength), method, locals, replace);
    const countAt = w.reserve(2);
    let count = t.nHandlers;
    const h = t.handlers;
    for (let k = 0; k < t.nHandlers; k++) {
      w.u2(this.landing[h[4 * k]!]!);
      w.u2(this.landing[h[4 * k + 1]!]!);
      w.u2(this.landing[h[4 * k + 2]!]!);
      w.u2(h[4 * k + 3]!);
    }
    for (const x of options.handlers ?? []) {
      const from = this.landing[x.start]!;
      const to = this.landing[x.end]!;
      if (x.handler < 0 || x.handler >= insertions.length) throw new Error(`method ${method}: a handler at insertion ${x.handler}, which is not one`);
      // A range with nothing in it is left out, as the object writer leaves it (HotSpot rejects it).
      if (from >= to) continue;
      w.u2(from);
      w.u2(to);
      w.u2(this.insStart[x.handler]!);
      w.u2(x.catchType);
      count++;
    }
    if (count > 0xffff) throw new TableWriterLimit(`method ${method}: ${count} exception table entries`);
    put2(w.buffer, countAt, count);
    this.attributes(t, info, insertions, method, w, options);
    return w.finish();
  }

  /**
   * Where a frame is known before each instruction of `t` (1) and where not (0: dead code after an
   * unconditional transfer): a fragment before instruction i may ask for frames only where it is 1.
   * Valid until the next call.
   */
  framesKnown(t: CodeTable, info: Uint8Array, member: { access: number; name: string; desc: string }, method: string): Uint8Array {
    return scratchFrames.known(t, this.decodeFrames(t, codeAttribute(t, info, this.cp, 'StackMapTable') ?? NO_FRAMES, member, method));
  }

  /**
   * The frame before each of the instructions `wanted` (ascending), simulated from the nearest
   * recorded one (TableFrames), or null in dead code. Valid until the next call of this or framesKnown.
   */
  framesBefore(t: CodeTable, info: Uint8Array, member: { access: number; name: string; desc: string }, method: string, wanted: readonly number[]): readonly (TableFrame | null)[] {
    const map = this.decodeFrames(t, codeAttribute(t, info, this.cp, 'StackMapTable') ?? NO_FRAMES, member, method);
    return scratchFrames.compute(t, map, this.cp, this.thisClass, wanted, this.entry, method).before;
  }

  /** StackMapTable `body` (NO_FRAMES: only the implicit initial frame) decoded into the scratch map. */
  private decodeFrames(t: CodeTable, body: Uint8Array, member: { access: number; name: string; desc: string }, method: string): StackMap {
    return scratchMap.setInitial(this.cp, this.entry, this.thisClass, member).decode(t, body, method);
  }

  /** The frames `framesKnown` read. Valid until the next call. */
  get framesRead(): StackMap {
    return scratchMap;
  }

  /** Whether a long or double holds slots at - 1 and at: renumbering cannot split it (shiftLocals moves it; not here yet). */
  straddles(t: CodeTable, at: number): boolean {
    if (at === 0) return false;
    for (let i = 0; i < t.n; i++) {
      const f = OPCODE_FORMATS[t.op[i]!];
      const o = f === Fmt.VAR_IMPLICIT ? implicitVarBase(t.op[i]!) : t.baseOp(i);
      const wideType = o === OP.LLOAD || o === OP.DLOAD || o === OP.LSTORE || o === OP.DSTORE;
      if (wideType && isLocalFormat(f) && localOf(t, i) === at - 1) return true;
    }
    return false;
  }

  private checkStraddle(t: CodeTable, locals: LocalShift, method: string): void {
    if (this.straddles(t, locals.at)) throw new TableWriterLimit(`method ${method}: a long or double holds slots ${locals.at - 1} and ${locals.at}`);
  }

  private layout(t: CodeTable, insertions: readonly Insertion[], locals: LocalShift | undefined, replace: WriteOptions['replace']): number {
    const n = t.n;
    if (this.newPc.length < n + 1) {
      this.newPc = new Int32Array(n + 1);
      this.landing = new Int32Array(n + 1);
    }
    this.insStart = fit(this.insStart, insertions.length);
    let off = 0;
    let k = 0;
    while (k < insertions.length && insertions[k]!.before === ENTRY) {
      this.insStart[k] = off;
      off += insertions[k++]!.bytes.length;
    }
    for (let i = 0; i <= n; i++) {
      while (k < insertions.length && insertions[k]!.before === i && insertions[k]!.fallThrough === true) {
        this.insStart[k] = off;
        off += insertions[k++]!.bytes.length;
      }
      this.landing[i] = off;
      while (k < insertions.length && insertions[k]!.before === i) {
        if (insertions[k]!.fallThrough === true) throw new Error(`a fall-through insertion at ${i} after others there`);
        this.insStart[k] = off;
        off += insertions[k++]!.bytes.length;
      }
      this.newPc[i] = off;
      if (i === n) break;
      const f = OPCODE_FORMATS[t.op[i]!];
      const replaced = replace?.get(i);
      if (replaced !== undefined) off += replaced.length;
      else if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
        const oldQ = (t.pc[i]! + 4) & ~3;
        off += ((off + 4) & ~3) - off + (t.pc[i + 1]! - oldQ);
      } else if (locals !== undefined && isLocalFormat(f)) {
        off += putLocal(t, i, locals, null, 0);
      } else off += t.pc[i + 1]! - t.pc[i]!;
    }
    if (k < insertions.length) throw new Error(`insertions out of order or past the code: ${insertions[k]!.before}`);
    if (off > 65535) throw new TableWriterLimit(`the code would be ${off} bytes`);
    return off;
  }

  /** The code into `out`, which is code_length bytes. */
  private code(t: CodeTable, insertions: readonly Insertion[], out: Uint8Array, method: string, locals: LocalShift | undefined, replace: WriteOptions['replace']): void {
    const { code, pc, op, target } = t;
    for (let k = 0; k < insertions.length; k++) out.set(insertions[k]!.bytes, this.insStart[k]!);
    for (let i = 0; i < t.n; i++) {
      const p = pc[i]!;
      const q = this.newPc[i]!;
      const f = OPCODE_FORMATS[op[i]!];
      const replaced = replace?.get(i);
      if (replaced !== undefined) out.set(replaced, q);
      else if (f === Fmt.BRANCH) {
        const d = this.landing[target[i]!]! - q;
        if (d < -32768 || d > 32767) throw new TableWriterLimit(`method ${method}: the branch at ${p} would need widening`);
        out[q] = op[i]!;
        out[q + 1] = d >> 8;
        out[q + 2] = d;
      } else if (f === Fmt.BRANCH_W) {
        out[q] = op[i]!;
        put4(out, q + 1, this.landing[target[i]!]! - q);
      } else if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
        this.switch(t, i, out);
      } else if (locals !== undefined && isLocalFormat(f)) {
        putLocal(t, i, locals, out, q);
      } else {
        out.set(code.subarray(p, pc[i + 1]), q);
      }
    }
  }

  private switch(t: CodeTable, i: number, out: Uint8Array): void {
    const { code, pc, switchTargets } = t;
    const p = pc[i]!;
    const q = this.newPc[i]!;
    const oldQ = (p + 4) & ~3;
    const newQ = (q + 4) & ~3;
    out[q] = t.op[i]!;
    for (let z = q + 1; z < newQ; z++) out[z] = 0; // padding
    const first = t.switchAt[i]!;
    const count = t.switchCount[i]!;
    const to = (k: number): number => this.landing[switchTargets[first + k]!]! - q;
    put4(out, newQ, to(0));
    if (OPCODE_FORMATS[t.op[i]!] === Fmt.TABLESWITCH) {
      out.set(code.subarray(oldQ + 4, oldQ + 12), newQ + 4); // low, high
      for (let k = 1; k < count; k++) put4(out, newQ + 8 + 4 * k, to(k));
    } else {
      out.set(code.subarray(oldQ + 4, oldQ + 8), newQ + 4); // npairs
      for (let k = 1; k < count; k++) {
        out.set(code.subarray(oldQ + 8 * k, oldQ + 8 * k + 4), newQ + 8 * k); // match
        put4(out, newQ + 8 * k + 4, to(k));
      }
    }
  }

  private attributes(t: CodeTable, info: Uint8Array, insertions: readonly Insertion[], method: string, w: ByteWriter, options: WriteOptions): void {
    const shift = options.locals;
    const inserted = insertions.length > 0;
    const framed = insertions.some((ins) => (ins.frames !== undefined && ins.frames.length > 0) || (ins.ownFrames !== undefined && ins.ownFrames.length > 0));
    let sawFrames = false;
    let p = t.attributesAt;
    const count = u2(info, p);
    p += 2;
    const countAt = w.length;
    w.u2(count);
    for (let a = 0; a < count; a++) {
      const nameIndex = u2(info, p);
      const length = s4(info, p + 2) >>> 0;
      const body = info.subarray(p + 6, p + 6 + length);
      p += 6 + length;
      const name = this.cp.utf8(nameIndex);
      w.u2(nameIndex);
      const lengthAt = w.reserve(4);
      switch (name) {
        case 'LineNumberTable':
          this.lines(t, body, method, w);
          break;
        case 'LocalVariableTable':
        case 'LocalVariableTypeTable':
          this.locals(t, body, name, method, shift, w);
          break;
        case 'StackMapTable':
          if (sawFrames) throw new TableWriterLimit(`method ${method}: two StackMapTable attributes`);
          sawFrames = true;
          if (shift === undefined && !framed) this.frames(t, body, method, w);
          else this.encodedFrames(t, body, method, insertions, options, w);
          break;
        case 'RuntimeVisibleTypeAnnotations':
        case 'RuntimeInvisibleTypeAnnotations':
          if (inserted || shift !== undefined) throw new TableWriterLimit(`method ${method}: ${name} on code`);
          w.bytes(body);
          break;
        default:
          w.bytes(body);
      }
      w.patchU4(lengthAt, w.length - lengthAt - 4);
    }
    if (framed && !sawFrames) {
      // As the object writer does: the attribute's name is added before the frames' classes.
      w.u2(this.cp.utf8Index('StackMapTable'));
      const lengthAt = w.reserve(4);
      this.encodedFrames(t, NO_FRAMES, method, insertions, options, w);
      w.patchU4(lengthAt, w.length - lengthAt - 4);
      put2(w.buffer, countAt, count + 1);
    }
  }

  /**
   * The landing of the instruction at old offset `pc`. An offset inside an instruction is left to
   * the object pipeline, whose handling of such tables (written by obfuscators, not javac) is tested.
   */
  private moved(t: CodeTable, pc: number, what: string, method: string): number {
    const i = t.indexOf(pc);
    if (i < 0) throw new TableWriterLimit(`method ${method}: ${what} ${pc} is not at the start of an instruction`);
    return this.landing[i]!;
  }

  private lines(t: CodeTable, body: Uint8Array, method: string, w: ByteWriter): void {
    const at = w.length;
    w.bytes(body);
    const out = w.buffer;
    const n = u2(body, 0);
    for (let k = 0; k < n; k++) put2(out, at + 2 + 4 * k, this.moved(t, u2(body, 2 + 4 * k), 'LineNumberTable start_pc', method));
  }

  private locals(t: CodeTable, body: Uint8Array, name: string, method: string, shift: LocalShift | undefined, w: ByteWriter): void {
    const at = w.length;
    w.bytes(body);
    const out = w.buffer;
    const n = u2(body, 0);
    for (let k = 0; k < n; k++) {
      const o = 2 + 10 * k;
      const start = u2(body, o);
      const end = start + u2(body, o + 2);
      const s = this.moved(t, start, `${name} start_pc`, method);
      put2(out, at + o, s);
      put2(out, at + o + 2, this.moved(t, end, `${name} end`, method) - s);
      const index = u2(body, o + 8);
      if (shift !== undefined && index >= shift.at) put2(out, at + o + 8, index + shift.types.length);
    }
  }

  /**
   * The StackMapTable decoded and encoded again (stack-map.ts): the new locals in every frame, and a
   * frame at each fragment offset that asks for one.
   */
  private encodedFrames(t: CodeTable, body: Uint8Array, method: string, insertions: readonly Insertion[], options: WriteOptions, w: ByteWriter): void {
    const { member, locals } = options;
    if (member === undefined) throw new Error('TableWriter.write: new locals or fragment frames need WriteOptions.member');
    const map = this.decodeFrames(t, body, member, method);
    const added = this.addedFrames(t, map, insertions, method);
    try {
      map.encode(w, this.landing, this.newPc, locals, added);
    } catch (e) {
      if (e instanceof StraddledSlot) throw new TableWriterLimit(`method ${method}: ${e.message}`);
      throw e;
    }
  }

  /** The frames that fragments ask for, each the frame before the instruction it goes before. */
  private addedFrames(t: CodeTable, map: StackMap, insertions: readonly Insertion[], method: string): AddedFrame[] {
    const wanted: number[] = [];
    for (const ins of insertions) {
      if (ins.frames === undefined || ins.frames.length === 0) continue;
      if (ins.before < 0 || ins.before >= t.n) throw new Error(`method ${method}: a fragment at ${ins.before} asks for frames; only one before an instruction can`);
      if (wanted[wanted.length - 1] !== ins.before) wanted.push(ins.before);
    }
    const frames = wanted.length === 0 ? [] : scratchFrames.compute(t, map, this.cp, this.thisClass, wanted, this.entry, method).before;
    const added: AddedFrame[] = [];
    let w = 0;
    insertions.forEach((ins, k) => {
      const start = added.length;
      if (ins.frames !== undefined && ins.frames.length > 0) {
        while (wanted[w] !== ins.before) w++;
        const f = frames[w];
        if (!f) throw new Error(`method ${method}: no frame is known before instruction ${ins.before} (dead code), where a fragment branches`);
        for (const at of ins.frames) added.push({ offset: this.insStart[k]! + at, locals: f.locals, stack: f.stack });
      }
      for (const f of ins.ownFrames ?? []) added.push({ offset: this.insStart[k]! + f.at, locals: f.locals, stack: f.stack, asWritten: true });
      if (ins.ownFrames?.length && ins.frames?.length) sortFrom(added, start);
    });
    return added;
  }

  /** StackMapTable (JVMS 4.7.4) with its offsets moved; frame types widened where a delta outgrows them. */
  private frames(t: CodeTable, body: Uint8Array, method: string, w: ByteWriter): void {
    const n = u2(body, 0);
    w.u2(n);
    let p = 2;
    let oldOffset = -1;
    let newOffset = -1;
    const types = (count: number): void => {
      for (let k = 0; k < count; k++) {
        const tag = body[p++]!;
        w.u1(tag);
        if (tag === 7) {
          w.u2(u2(body, p)); // Object: a constant pool index
          p += 2;
        } else if (tag === 8) {
          // Uninitialized: the offset of its `new`, which moves with the instruction itself.
          const i = t.indexOf(u2(body, p));
          if (i < 0 || i >= t.n) throw new TableWriterLimit(`method ${method}: StackMapTable names a new at ${u2(body, p)}, not an instruction`);
          w.u2(this.newPc[i]!);
          p += 2;
        }
      }
    };
    for (let f = 0; f < n; f++) {
      const type = body[p++]!;
      let delta: number;
      if (type < 64) delta = type;
      else if (type < 128) delta = type - 64;
      else if (type < 247) throw new ClassFormatError(this.entry, `method ${method}: StackMapTable frame type ${type} is reserved`);
      else {
        delta = u2(body, p);
        p += 2;
      }
      oldOffset += delta + 1;
      const to = this.moved(t, oldOffset, 'StackMapTable frame at', method);
      const d = to - newOffset - 1;
      newOffset = to;
      if (type < 64) {
        if (d < 64) w.u1(d);
        else (w.u1(251), w.u2(d));
      } else if (type < 128) {
        if (d < 64) w.u1(64 + d);
        else (w.u1(247), w.u2(d));
        types(1);
      } else {
        w.u1(type);
        w.u2(d);
        if (type === 247) types(1);
        else if (type >= 252 && type <= 254) types(type - 251);
        else if (type === 255) {
          const locals = u2(body, p);
          w.u2(locals);
          p += 2;
          types(locals);
          const stack = u2(body, p);
          w.u2(stack);
          p += 2;
          types(stack);
        }
      }
    }
  }
}

/**
 * max_stack with room for each insertion's words above the depth where it runs. Without depths
 * (`stack`), only code at the entry and after the last instruction, which starts from an empty
 * stack, may push.
 */
function maxStack(t: CodeTable, insertions: readonly Insertion[], stack: TableStack | undefined, method: string): number {
  let max = Math.max(t.maxStack, stack?.max ?? 0);
  for (const ins of insertions) {
    const inside = ins.before >= 0 && ins.before < t.n;
    if (inside && stack === undefined) {
      if ((ins.stack ?? 0) > 0) throw new Error(`method ${method}: code that pushes before instruction ${ins.before} needs WriteOptions.stack`);
      continue;
    }
    const at = inside ? stack!.depth[ins.before]! : 0;
    // Code nothing reaches keeps the depth of the verifier's view of it: none, so count from 0.
    const top = Math.max(at, 0) + (ins.stack ?? 0);
    if (top > max) max = top;
  }
  if (max > 0xffff) throw new TableWriterLimit(`method ${method}: max_stack would be ${max}`);
  return max;
}

const NO_FRAMES = Uint8Array.of(0, 0);

/** Sorts added[start..] by offset (one insertion's frames of both kinds). */
function sortFrom(added: AddedFrame[], start: number): void {
  const tail = added.splice(start).sort((a, b) => a.offset - b.offset);
  added.push(...tail);
}

function checkReplacements(t: CodeTable, replace: ReadonlyMap<number, Uint8Array>, method: string): void {
  for (const i of replace.keys()) {
    const f = i >= 0 && i < t.n ? OPCODE_FORMATS[t.op[i]!] : -1;
    if (f === -1 || f === Fmt.BRANCH || f === Fmt.BRANCH_W || f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH || isLocalFormat(f!)) {
      throw new Error(`method ${method}: instruction ${i} cannot be replaced (not one, or a branch, switch or local access)`);
    }
  }
}

const isLocalFormat = (f: number): boolean => f === Fmt.VAR || f === Fmt.VAR_IMPLICIT || f === Fmt.IINC || f === Fmt.WIDE;

/** The local that load, store, ret or iinc i names. */
function localOf(t: CodeTable, i: number): number {
  const p = t.pc[i]!;
  const o = t.op[i]!;
  if (o === OP.WIDE) return u2(t.code, p + 2);
  if (OPCODE_FORMATS[o] === Fmt.VAR_IMPLICIT) return implicitVarIndex(o);
  return t.code[p + 1]!;
}

/**
 * Load, store, ret or iinc i with `locals` inserted, written at `q` of `out` (when given): the form
 * code-writer.ts varForm and iincForm give it, as read while it still encodes the local. Its size.
 */
function putLocal(t: CodeTable, i: number, locals: LocalShift, out: Uint8Array | null, q: number): number {
  const { code, pc } = t;
  const p = pc[i]!;
  const o = t.op[i]!;
  const size = pc[i + 1]! - p;
  let v = localOf(t, i);
  if (v < locals.at) {
    if (out !== null) out.set(code.subarray(p, p + size), q);
    return size;
  }
  v += locals.types.length;
  if (o === OP.WIDE) {
    if (out !== null) {
      out.set(code.subarray(p, p + size), q);
      put2(out, q + 2, v);
    }
    return size;
  }
  if (o === OP.IINC) {
    if (v <= 255) {
      if (out !== null) out.set([OP.IINC, v, code[p + 2]!], q);
      return 3;
    }
    if (out !== null) out.set([OP.WIDE, OP.IINC, v >> 8, v & 255, (code[p + 2]! << 24) >> 31, code[p + 2]!], q);
    return 6;
  }
  const base = OPCODE_FORMATS[o] === Fmt.VAR_IMPLICIT ? implicitVarBase(o) : o;
  const implicit = implicitVarOpcode(base, v);
  if (implicit >= 0) {
    if (out !== null) out[q] = implicit;
    return 1;
  }
  if (v <= 255) {
    if (out !== null) out.set([base, v], q);
    return 2;
  }
  if (out !== null) out.set([OP.WIDE, base, v >> 8, v & 255], q);
  return 4;
}

function put2(b: Uint8Array, p: number, v: number): void {
  b[p] = v >> 8;
  b[p + 1] = v;
}

function put4(b: Uint8Array, p: number, v: number): void {
  b[p] = v >> 24;
  b[p + 1] = v >> 16;
  b[p + 2] = v >> 8;
  b[p + 3] = v;
}
