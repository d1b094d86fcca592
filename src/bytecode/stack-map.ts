/**
 * A method's StackMapTable (JVMS 4.7.4) as ints over its CodeTable (docs/non-object-ir.md, step 3):
 * each frame's full locals and stack, at an instruction index, with the frame_type it was read with.
 * The table writer encodes it again at the code's new offsets, with new locals inserted, choosing
 * frame types as the object code writer does, so both give the same bytes.
 *
 * A verification type is one int: its JVMS tag (ITEM) in the low four bits and, above them, the
 * CONSTANT_Class index of an Object or the instruction index of an Uninitialized type's `new`. An
 * Object names the first Class entry of its class (class-refs.ts), so equal types are equal ints.
 */
import { firstClassIndex, presentClassIndex } from '../classfile/class-refs.js';
import type { ConstantPool } from '../classfile/constant-pool.js';
import { parseMethodDescriptor } from '../classfile/descriptor.js';
import { ACC } from '../classfile/model.js';
import { ClassFormatError } from '../errors.js';
import type { ByteWriter } from './byte-writer.js';
import type { CodeTable } from './code-table.js';
import { OP } from './opcodes.js';
import { fit, grownSize } from './scratch.js';

/** verification_type_info tags (JVMS 4.7.4). */
export const ITEM = { Top: 0, Integer: 1, Float: 2, Double: 3, Long: 4, Null: 5, UninitializedThis: 6, Object: 7, Uninitialized: 8 } as const;

export const vtObject = (classIndex: number): number => ITEM.Object | (classIndex << 4);
export const vtUninitialized = (insn: number): number => ITEM.Uninitialized | (insn << 4);

/** Local variable slots a type takes. */
const slots = (v: number): number => (v === ITEM.Long || v === ITEM.Double ? 2 : 1);

/**
 * New locals at slot `at`, one single-slot verification type each (edit/method-editor.ts
 * insertLocals on the table). A type may be a class name (arrays by descriptor) instead of an int:
 * its Class entry is then added only when a frame written out names it, as the object writer adds it.
 */
export interface LocalShift {
  at: number;
  types: readonly (number | string)[];
  /** The new locals are parameters of the method as written, so its implicit initial frame has them. */
  parameters: boolean;
}

/** A frame for code that was not there: at a new offset, locals as StackMapTable entries. */
export interface AddedFrame {
  offset: number;
  /** As StackMapTable entries; class names are Object types of those classes. */
  locals: readonly (number | string)[];
  stack: readonly (number | string)[];
  /** The locals already hold the new locals (else they are inserted, as in every frame read). */
  asWritten?: boolean;
}

/** What a shift cannot do: split a long or double that holds slots at - 1 and at. */
export class StraddledSlot extends Error {
  override name = 'StraddledSlot';
}

const u2 = (b: Uint8Array, p: number): number => (b[p]! << 8) | b[p + 1]!;

export class StackMap {
  /** Number of frames. */
  n = 0;
  /** Instruction index of each frame. */
  at: Int32Array = new Int32Array(16);
  /** frame_type as read. */
  kind: Uint8Array = new Uint8Array(16);
  localsAt: Int32Array = new Int32Array(16);
  nLocals: Int32Array = new Int32Array(16);
  stackAt: Int32Array = new Int32Array(16);
  nStack: Int32Array = new Int32Array(16);
  /** Every frame's locals and stack, at localsAt / stackAt. */
  types: Int32Array = new Int32Array(256);
  /** The implicit initial frame's locals (JVMS 4.10.1.6). */
  initial: number[] = [];
  /**
   * Classes of the initial frame that the pool has no CONSTANT_Class for, named by an Object type
   * with data -(k + 1): an entry is added only if a frame written out names one (as the object
   * writer adds it then).
   */
  private pending: string[] = [];
  private used = 0;
  private readonly canon = new Map<number, number>();
  private cp!: ConstantPool;
  /** The method and StackMapTable last read (see setInitial and decode). */
  private method: object | null = null;
  private decoded: ArrayBufferLike | null = null;
  private decodedAt = 0;
  private decodedLength = 0;
  private decodedTable: CodeTable | null = null;
  /** Class file, for errors. */
  private entry = '';

  /**
   * Starts a method: `initial` becomes the implicit initial frame of `method` in class `thisClass`,
   * whose pool is `cp` (`entry` names the class file in errors).
   */
  setInitial(cp: ConstantPool, entry: string, thisClass: string, method: { access: number; name: string; desc: string }): this {
    // framesKnown and then write read the same method: the second reading is the first.
    if (cp === this.cp && method === this.method) return this;
    this.method = method;
    this.decoded = null;
    if (cp !== this.cp) this.canon.clear();
    this.cp = cp;
    this.entry = entry;
    const out = this.initial;
    out.length = 0;
    this.pending.length = 0;
    if ((method.access & ACC.STATIC) === 0) {
      out.push(method.name === '<init>' && thisClass !== 'java/lang/Object' ? ITEM.UninitializedThis : this.objectNamed(thisClass));
    }
    // parseMethodDescriptor has checked every argument's descriptor.
    for (const a of parseMethodDescriptor(method.desc).args) out.push(this.fieldType(a)!);
    return this;
  }

  /**
   * The verification type of a value of field type `desc` (boolean, byte, char, short: int), or
   * undefined for a malformed one (not -1: a class without a Class entry yet is a negative int).
   */
  fieldType(desc: string): number | undefined {
    switch (desc.charCodeAt(0)) {
      case 0x4c /* L */:
        return this.objectNamed(desc.slice(1, -1));
      case 0x5b /* [ */:
        return this.objectNamed(desc);
      case 0x46 /* F */:
        return ITEM.Float;
      case 0x4a /* J */:
        return ITEM.Long;
      case 0x44 /* D */:
        return ITEM.Double;
      case 0x5a /* Z */:
      case 0x42 /* B */:
      case 0x43 /* C */:
      case 0x53 /* S */:
      case 0x49 /* I */:
        return ITEM.Integer;
      default:
        return undefined;
    }
  }

  /** A type given as an int, or as a class name (LocalShift, AddedFrame) for its Object type. */
  private resolved(v: number | string): number {
    return typeof v === 'string' ? this.objectNamed(v) : v;
  }

  /**
   * The Object type of class `name` (a CONSTANT_Class name: arrays by descriptor) in this method:
   * its first Class entry, or while the pool has none, a name of its own until a frame written out
   * needs the entry.
   */
  objectNamed(name: string): number {
    const i = presentClassIndex(this.cp, name);
    if (i >= 0) return vtObject(i);
    let k = this.pending.indexOf(name);
    if (k < 0) k = this.pending.push(name) - 1;
    return vtObject(-(k + 1));
  }

  /** The class an Object type names. */
  nameOf(v: number): string {
    const data = v >> 4;
    return data >= 0 ? this.cp.className(data) : this.pending[-data - 1]!;
  }

  /** Reads the StackMapTable attribute's body `body` of the method of `t` (after setInitial). */
  decode(t: CodeTable, body: Uint8Array, method: string): this {
    if (this.decoded === body.buffer && this.decodedAt === body.byteOffset && this.decodedLength === body.length && this.decodedTable === t) return this;
    this.decoded = body.buffer;
    this.decodedAt = body.byteOffset;
    this.decodedLength = body.length;
    this.decodedTable = t;
    this.n = 0;
    this.used = 0;
    const bad = (what: string): never => {
      throw new ClassFormatError(this.entry, `method ${method}: StackMapTable ${what}`);
    };
    if (body.length < 2) bad('is truncated');
    const count = u2(body, 0);
    let p = 2;
    const need = (k: number): void => {
      if (p + k > body.length) bad(`is truncated at byte ${p} of ${body.length}`);
    };
    const type = (): number => {
      need(1);
      const tag = body[p++]!;
      if (tag < ITEM.Object) return tag;
      if (tag > ITEM.Uninitialized) bad(`has unknown verification type tag ${tag}`);
      need(2);
      const data = u2(body, p);
      p += 2;
      if (tag === ITEM.Object) return vtObject(this.canonical(data));
      const i = data < t.codeLength ? t.indexOf(data) : -1;
      if (i < 0 || t.op[i] !== OP.NEW) bad(`uninitialized(${data}) does not name a new instruction`);
      return vtUninitialized(i);
    };
    let locals = this.initial.length;
    let localsFrom = -1; // -1: the initial frame
    let offset = -1;
    for (let f = 0; f < count; f++) {
      need(1);
      const kind = body[p++]!;
      if (kind >= 128 && kind < 247) bad(`frame type ${kind} is reserved`);
      let delta = kind < 64 ? kind : kind - 64;
      if (kind >= 247) {
        need(2);
        delta = u2(body, p);
        p += 2;
      }
      offset = offset < 0 ? delta : offset + delta + 1;
      const at = t.indexOf(offset);
      if (at < 0 || at >= t.n) bad(`frame ${f} at offset ${offset} is ${offset >= t.codeLength ? 'outside the code' : 'not at an instruction'}`);
      this.grow(f + 1);
      this.at[f] = at;
      this.kind[f] = kind;
      const start = this.used;
      // The locals: the previous frame's, changed as the frame type says.
      let keep = locals;
      if (kind >= 248 && kind <= 250) {
        if (locals < 251 - kind) bad(`chop_frame removes ${251 - kind} of ${locals} locals`);
        keep = locals - (251 - kind);
      }
      if (kind !== 255) this.copyLocals(localsFrom, keep);
      if (kind >= 252 && kind <= 254) for (let k = kind - 251; k > 0; k--) this.push(type());
      if (kind === 255) {
        need(2);
        const nl = u2(body, p);
        p += 2;
        for (let k = 0; k < nl; k++) this.push(type());
      }
      this.localsAt[f] = start;
      this.nLocals[f] = this.used - start;
      this.stackAt[f] = this.used;
      if ((kind >= 64 && kind < 128) || kind === 247) this.push(type());
      else if (kind === 255) {
        need(2);
        const ns = u2(body, p);
        p += 2;
        for (let k = 0; k < ns; k++) this.push(type());
      }
      this.nStack[f] = this.used - this.stackAt[f]!;
      locals = this.nLocals[f]!;
      localsFrom = f;
      this.n = f + 1;
    }
    if (p !== body.length) bad(`has ${body.length - p} bytes after its ${count} frames`);
    return this;
  }

  private canonical(index: number): number {
    let c = this.canon.get(index);
    if (c === undefined) {
      c = firstClassIndex(this.cp, this.cp.className(index));
      this.canon.set(index, c);
    }
    return c;
  }

  private copyLocals(from: number, count: number): void {
    if (from < 0) for (let k = 0; k < count; k++) this.push(this.initial[k]!);
    else {
      const s = this.localsAt[from]!;
      this.types = fit(this.types, this.used + count);
      this.types.copyWithin(this.used, s, s + count);
      this.used += count;
    }
  }

  private push(v: number): void {
    if (this.used === this.types.length) this.types = fit(this.types, this.used + 1);
    this.types[this.used++] = v;
  }

  private grow(frames: number): void {
    if (frames <= this.at.length) return;
    const size = grownSize(this.at.length, frames);
    const copy = <T extends Int32Array | Uint8Array>(a: T, b: T): T => (b.set(a), b);
    this.at = copy(this.at, new Int32Array(size));
    this.kind = copy(this.kind, new Uint8Array(size));
    this.localsAt = copy(this.localsAt, new Int32Array(size));
    this.nLocals = copy(this.nLocals, new Int32Array(size));
    this.stackAt = copy(this.stackAt, new Int32Array(size));
    this.nStack = copy(this.nStack, new Int32Array(size));
  }

  /** Frame f's locals, with `shift` applied. */
  localsOf(f: number, shift: (LocalShift & { types: readonly number[] }) | undefined): number[] {
    const s = this.localsAt[f]!;
    const list = Array.from(this.types.subarray(s, s + this.nLocals[f]!));
    return shift ? shifted(list, shift) : list;
  }

  /**
   * The StackMapTable's body again: frame f at `landing[at[f]]`, an Uninitialized type's `new` at
   * `newPc`, `shift`'s locals inserted, and the `added` frames (in offset order) among them. A frame
   * read keeps the type it was read with while that type still describes it exactly; else, and for
   * an added frame, it gets the most compact one, as the object writer chooses. Where an added frame
   * falls on a frame read, the one read is written, as the object writer keeps the first.
   */
  encode(w: ByteWriter, landing: Int32Array, newPc: Int32Array, named: LocalShift | undefined, added: readonly AddedFrame[] = []): void {
    const shift = named && { ...named, types: named.types.map((v) => this.resolved(v)) };
    const countAt = w.reserve(2);
    let count = 0;
    let prev = shift?.parameters ? shifted(this.initial.slice(), shift) : this.initial.slice();
    let prevOffset = -1;
    let a = 0;
    for (let f = 0; f <= this.n; f++) {
      const offset = f < this.n ? landing[this.at[f]!]! : 0x10000;
      for (; a < added.length && added[a]!.offset <= offset; a++) {
        const x = added[a]!;
        if (x.offset === offset || x.offset === prevOffset) continue;
        const own = x.locals.map((v) => this.resolved(v));
        const locals = shift && !x.asWritten ? shifted(own, shift) : own;
        const stack = x.stack.map((v) => this.resolved(v));
        prev = this.frame(w, prevOffset < 0 ? x.offset : x.offset - prevOffset - 1, -1, locals, stack, 0, stack.length, prev, newPc);
        prevOffset = x.offset;
        count++;
      }
      if (f === this.n) break;
      const delta = prevOffset < 0 ? offset : offset - prevOffset - 1;
      prevOffset = offset;
      prev = this.frame(w, delta, this.kind[f]!, this.localsOf(f, shift), this.types, this.stackAt[f]!, this.nStack[f]!, prev, newPc);
      count++;
    }
    w.buffer[countAt] = count >> 8;
    w.buffer[countAt + 1] = count;
  }

  /** One frame: `kind` as read (-1 for none), its locals, and `ns` stack types at `stack[st]`. Its locals as written. */
  private frame(w: ByteWriter, delta: number, read: number, cur: number[], stack: ArrayLike<number>, st: number, ns: number, prev: number[], newPc: Int32Array): number[] {
    let kind = read < 0 ? -1 : reusedKind(read, delta, ns, cur, prev);
    if (kind < 0) {
      // Trailing Tops are the same as absent locals to the verifier; dropped, the frame may compress.
      let len = cur.length;
      while (len > 0 && cur[len - 1] === ITEM.Top) len--;
      if (len < cur.length) cur = cur.slice(0, len);
      kind = compactKind(delta, ns, cur, prev);
    }
    w.u1(kind);
    if (kind >= 247) w.u2(delta);
    if ((kind >= 64 && kind < 128) || kind === 247) this.write(w, stack[st]!, newPc);
    else if (kind > 251 && kind < 255) for (let k = prev.length; k < cur.length; k++) this.write(w, cur[k]!, newPc);
    else if (kind === 255) {
      w.u2(cur.length);
      for (const v of cur) this.write(w, v, newPc);
      w.u2(ns);
      for (let k = 0; k < ns; k++) this.write(w, stack[st + k]!, newPc);
    }
    return cur;
  }

  private write(w: ByteWriter, v: number, newPc: Int32Array): void {
    const tag = v & 15;
    w.u1(tag);
    if (tag === ITEM.Object) {
      const data = v >> 4;
      w.u2(data >= 0 ? data : firstClassIndex(this.cp, this.pending[-data - 1]!));
    } else if (tag === ITEM.Uninitialized) w.u2(newPc[v >> 4]!);
  }
}

/** `list` (locals as entries: a long or double is one) with shift's types at slot shift.at. */
export function shifted(list: number[], shift: LocalShift & { types: readonly number[] }): number[] {
  const out: number[] = [];
  let slot = 0;
  let k = 0;
  while (k < list.length && slot < shift.at) {
    const v = list[k++]!;
    slot += slots(v);
    if (slot > shift.at) throw new StraddledSlot(`a long or double holds slots ${shift.at - 1} and ${shift.at}`);
    out.push(v);
  }
  while (slot++ < shift.at) out.push(ITEM.Top);
  for (const v of shift.types) out.push(v);
  while (k < list.length) out.push(list[k++]!);
  return out;
}

function same(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `a` begins with `b`. */
function startsWith(a: readonly number[], b: readonly number[]): boolean {
  if (b.length > a.length) return false;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The frame type read (`kind`) when it still describes the frame exactly, else -1. */
function reusedKind(kind: number, delta: number, ns: number, cur: number[], prev: number[]): number {
  if (kind < 128) {
    const base = kind < 64 ? 0 : 64;
    return delta < 64 && ns === base / 64 && same(cur, prev) ? base + delta : -1;
  }
  if (kind === 247) return ns === 1 && same(cur, prev) ? 247 : -1;
  if (kind < 251) return ns === 0 && prev.length - cur.length === 251 - kind && startsWith(prev, cur) ? kind : -1;
  if (kind === 251) return ns === 0 && same(cur, prev) ? 251 : -1;
  if (kind < 255) return ns === 0 && cur.length - prev.length === kind - 251 && startsWith(cur, prev) ? kind : -1;
  return 255;
}

/** The most compact frame type for the frame. */
function compactKind(delta: number, ns: number, cur: number[], prev: number[]): number {
  const unchanged = same(cur, prev);
  if (ns === 0 && unchanged) return delta < 64 ? delta : 251;
  if (ns === 1 && unchanged) return delta < 64 ? 64 + delta : 247;
  if (ns === 0 && cur.length < prev.length && prev.length - cur.length <= 3 && startsWith(prev, cur)) return 251 - (prev.length - cur.length);
  if (ns === 0 && cur.length > prev.length && cur.length - prev.length <= 3 && startsWith(cur, prev)) return 251 + (cur.length - prev.length);
  return 255;
}
