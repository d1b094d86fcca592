/**
 * The constant pool of one class (JVMS 4.4), kept as bytes. The pool read from a class file stays
 * where it is in the class bytes and is scanned once for the offset of each entry; entries added
 * here are appended as bytes to a buffer of their own. Writing the class copies both, so an
 * unchanged pool is written back byte for byte and nothing is built per entry that is not asked for.
 *
 * Find-or-add compares entries as bytes: the tag and the operands, or for a Utf8 the tag and the
 * modified UTF-8. A string is encoded the way javac encodes it, so an entry javac wrote is found; an
 * entry with an overlong or otherwise odd encoding of the same text is not, and a new one is added.
 */
import { ClassFormatError, KomoriumError } from '../errors.js';
import { fit, fitBytes } from '../bytecode/scratch.js';
import { CONSTANT } from './model.js';
import { decodeMutf8, encodeMutf8Into, Mutf8Error } from './mutf8.js';

export interface MemberRef {
  tag: number;
  owner: string;
  name: string;
  desc: string;
  /** True for InterfaceMethodref. */
  isInterface: boolean;
}

export interface MethodHandleRef {
  /** reference_kind, 1 (REF_getField) … 9 (REF_invokeInterface). */
  kind: number;
  refIndex: number;
  ref: MemberRef;
}

export interface DynamicRef {
  /** bootstrap_method_attr_index into the BootstrapMethods attribute. */
  bsm: number;
  name: string;
  desc: string;
}

const TAG_NAMES: Record<number, string> = Object.fromEntries(Object.entries(CONSTANT).map(([k, v]) => [v, k]));

export function tagName(tag: number): string {
  return TAG_NAMES[tag] ?? `unknown tag ${tag}`;
}

/** constant_pool_count is a u2, so the highest usable index is 65,534. */
const MAX_COUNT = 0xffff;

/** Bytes after the tag of each fixed-size entry, by tag (0: not a fixed-size tag). */
const OPERAND_SIZE = new Uint8Array(21);
for (const t of [CONSTANT.Class, CONSTANT.String, CONSTANT.MethodType, CONSTANT.Module, CONSTANT.Package]) OPERAND_SIZE[t] = 2;
OPERAND_SIZE[CONSTANT.MethodHandle] = 3;
for (const t of [CONSTANT.Integer, CONSTANT.Float, CONSTANT.Fieldref, CONSTANT.Methodref, CONSTANT.InterfaceMethodref]) OPERAND_SIZE[t] = 4;
for (const t of [CONSTANT.NameAndType, CONSTANT.Dynamic, CONSTANT.InvokeDynamic]) OPERAND_SIZE[t] = 4;
OPERAND_SIZE[CONSTANT.Long] = 8;
OPERAND_SIZE[CONSTANT.Double] = 8;

/**
 * The operand bytes of a Utf8, Long or Double looked for. One buffer for every pool, since a lookup
 * never outlives its call; grown to 3 bytes per UTF-16 unit of the longest string asked for.
 */
let key = new Uint8Array(256);

/** FNV-1a over bytes[from, to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h;
}

/**
 * The slot a key of `tag` starts probing at, before masking: MurmurHash3's finalizer, since the
 * table indexes by low bits, which neither operand indices nor FNV spread well.
 */
function mix(tag: number, k: number): number {
  let h = k ^ Math.imul(tag, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class ConstantPool {
  /** Where each entry's tag is: in `src` below `readCount`, in `added` from it on; -1 at index 0 and after a Long/Double. */
  private offsets: Int32Array;
  private count: number;
  private added: Uint8Array = new Uint8Array(0);
  private addedLength = 0;
  /** Decoded Utf8 entries and member descriptors by index (arrays: indices are dense and small). */
  private readonly utf8Cache: (string | undefined)[] = [];
  private readonly descCache: (string | undefined)[] = [];
  /**
   * Find-or-add's hash table, built on the first builder call: open addressing over entry indices
   * (0 is empty), with each slot's tag and key (keyOf) beside it, so that a probe compares bytes
   * only when a Utf8's hash matches.
   * Entries are inserted in index order and never removed, so of two equal entries a lookup meets
   * the first, the one javac would have used.
   */
  private slots: Int32Array | null = null;
  private slotKeys = new Int32Array(0);
  /** keyOf(i) by index, so that growing the table does not hash every Utf8 again. */
  private entryKeys: Int32Array = new Int32Array(0);
  private slotTags = new Uint8Array(0);
  private used = 0;
  /** Strings utf8Index has found or added, so that asking again skips encoding and hashing. */
  private utf8Found: Map<string, number> | null = null;

  private constructor(
    /** The class bytes holding the pool that was read, from `srcStart` to `end`. */
    private readonly src: Uint8Array,
    private readonly srcStart: number,
    /** The byte after the pool in `src`, where access_flags begins. */
    readonly end: number,
    offsets: Int32Array,
    /** constant_pool_count as read. */
    private readonly readCount: number,
    public entry: string,
  ) {
    this.offsets = offsets;
    this.count = readCount;
  }

  /**
   * Scans the pool of the class file `bytes` (its constant_pool_count is at byte 8). Raises
   * ClassFormatError naming `entry` on a bad tag or a truncated entry.
   */
  static read(bytes: Uint8Array, entry: string): ConstantPool {
    const fail = (detail: string): never => {
      throw new ClassFormatError(entry, detail);
    };
    const limit = bytes.length;
    if (limit < 10) fail(`truncated at byte ${limit} while reading the version and constant_pool_count`);
    const count = (bytes[8] << 8) | bytes[9];
    if (count < 1) fail('constant_pool_count is 0 (must be at least 1)');
    const truncated = (i: number): never => fail(`truncated at byte ${limit} while reading the constant pool (entry ${i} of ${count - 1})`);
    const offsets = new Int32Array(count);
    offsets[0] = -1;
    let o = 10;
    for (let i = 1; i < count; i++) {
      if (o >= limit) truncated(i);
      const tag = bytes[o];
      offsets[i] = o;
      if (tag === CONSTANT.Utf8) {
        if (o + 3 > limit) truncated(i);
        const length = (bytes[o + 1] << 8) | bytes[o + 2];
        if (o + 3 + length > limit) {
          fail(`truncated at byte ${limit} while reading the constant pool: a Utf8 constant of ${length} bytes at byte ${o + 3} runs past the end`);
        }
        o += 3 + length;
        continue;
      }
      const size = tag < OPERAND_SIZE.length ? OPERAND_SIZE[tag] : 0;
      if (size === 0) fail(`bad constant pool tag ${tag} at index ${i} (byte ${o})`);
      if (o + 1 + size > limit) truncated(i);
      o += 1 + size;
      if (tag === CONSTANT.Long || tag === CONSTANT.Double) {
        if (i + 1 >= count) {
          fail(`constant pool index ${i} is a ${tag === CONSTANT.Long ? 'Long' : 'Double'} without room for its second slot`);
        }
        offsets[++i] = -1;
      }
    }
    return new ConstantPool(bytes, 10, o, offsets, count, entry);
  }

  /** An empty pool (for building a class from scratch). */
  static empty(entry: string): ConstantPool {
    return new ConstantPool(new Uint8Array(0), 0, 0, Int32Array.of(-1), 1, entry);
  }

  /** constant_pool_count: one more than the highest index. */
  get size(): number {
    return this.count;
  }

  /** The bytes of the constant_pool table (without its count), as writeTo writes them. */
  get byteLength(): number {
    return this.end - this.srcStart + this.addedLength;
  }

  /** Writes the constant_pool table (without its count) at out[at..]; returns the offset after it. */
  writeTo(out: Uint8Array, at: number): number {
    out.set(this.src.subarray(this.srcStart, this.end), at);
    at += this.end - this.srcStart;
    out.set(this.added.subarray(0, this.addedLength), at);
    return at + this.addedLength;
  }

  private fail(detail: string): never {
    throw new ClassFormatError(this.entry, detail);
  }

  /** True when `i` names a usable entry (in range and not the slot after a Long/Double). */
  has(i: number): boolean {
    return Number.isInteger(i) && i >= 1 && i < this.count && this.offsets[i] >= 0;
  }

  /** The bytes that hold entry i (check it first). */
  private bytesOf(i: number): Uint8Array {
    return i < this.readCount ? this.src : this.added;
  }

  /** Entry i's offset in bytesOf(i), after checking that it is usable. */
  private at(i: number): number {
    if (!Number.isInteger(i) || i < 1 || i >= this.count) {
      this.fail(`constant pool index ${i} is out of range (1..${this.count - 1})`);
    }
    const o = this.offsets[i];
    if (o < 0) this.fail(`constant pool index ${i} is the unusable slot after a Long or Double`);
    return o;
  }

  /** Entry i's offset, after checking that its tag is `tag`. */
  private expect(i: number, tag: number, what: string = tagName(tag)): number {
    const o = this.at(i);
    const t = this.bytesOf(i)[o];
    if (t !== tag) this.fail(`constant pool index ${i} is not a ${what} (it is a ${tagName(t)})`);
    return o;
  }

  /** The u2 at byte `rel` after entry i's tag. */
  private u2(i: number, o: number, rel: number): number {
    const b = this.bytesOf(i);
    return (b[o + rel] << 8) | b[o + rel + 1];
  }

  private u4(i: number, o: number, rel: number): number {
    const b = this.bytesOf(i);
    const p = o + rel;
    return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
  }

  tag(i: number): number {
    return this.bytesOf(i)[this.at(i)];
  }

  utf8(i: number): string {
    const cached = this.utf8Cache[i];
    if (cached !== undefined) return cached;
    const o = this.expect(i, CONSTANT.Utf8);
    const b = this.bytesOf(i);
    let s: string;
    try {
      s = decodeMutf8(b.subarray(o + 3, o + 3 + ((b[o + 1] << 8) | b[o + 2])));
    } catch (err) {
      if (err instanceof Mutf8Error) this.fail(`constant pool index ${i}: ${err.message}`);
      throw err;
    }
    this.utf8Cache[i] = s;
    return s;
  }

  /** Class → internal name (or array descriptor, for array classes). */
  className(i: number): string {
    return this.utf8(this.u2(i, this.expect(i, CONSTANT.Class), 1));
  }

  string(i: number): string {
    return this.utf8(this.u2(i, this.expect(i, CONSTANT.String), 1));
  }

  integer(i: number): number {
    return this.u4(i, this.expect(i, CONSTANT.Integer), 1) | 0;
  }

  /** The raw IEEE 754 bits; use these to copy a float exactly (NaN payloads). */
  floatBits(i: number): number {
    return this.u4(i, this.expect(i, CONSTANT.Float), 1);
  }

  float(i: number): number {
    const view = new DataView(new ArrayBuffer(4));
    view.setUint32(0, this.floatBits(i));
    return view.getFloat32(0);
  }

  private wide(i: number, tag: number): bigint {
    const o = this.expect(i, tag);
    return (BigInt(this.u4(i, o, 1)) << 32n) | BigInt(this.u4(i, o, 5));
  }

  long(i: number): bigint {
    return BigInt.asIntN(64, this.wide(i, CONSTANT.Long));
  }

  doubleBits(i: number): bigint {
    return this.wide(i, CONSTANT.Double);
  }

  double(i: number): number {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, this.doubleBits(i));
    return view.getFloat64(0);
  }

  nameAndType(i: number): { name: string; desc: string } {
    const o = this.expect(i, CONSTANT.NameAndType);
    return { name: this.utf8(this.u2(i, o, 1)), desc: this.utf8(this.u2(i, o, 3)) };
  }

  /** Fieldref, Methodref or InterfaceMethodref. */
  memberRef(i: number): MemberRef {
    const o = this.at(i);
    const tag = this.bytesOf(i)[o];
    if (tag !== CONSTANT.Fieldref && tag !== CONSTANT.Methodref && tag !== CONSTANT.InterfaceMethodref) {
      this.fail(`constant pool index ${i} is not a Fieldref, Methodref or InterfaceMethodref (it is a ${tagName(tag)})`);
    }
    const nt = this.nameAndType(this.u2(i, o, 3));
    return {
      tag,
      owner: this.className(this.u2(i, o, 1)),
      name: nt.name,
      desc: nt.desc,
      isInterface: tag === CONSTANT.InterfaceMethodref,
    };
  }

  /**
   * The descriptor of a Fieldref, Methodref or InterfaceMethodref, remembered per index (entries
   * never change once read or added): max_stack asks it for every field access and call.
   */
  memberDesc(i: number): string {
    let d = this.descCache[i];
    if (d === undefined) {
      d = this.memberRef(i).desc;
      this.descCache[i] = d;
    }
    return d;
  }

  methodHandle(i: number): MethodHandleRef {
    const o = this.expect(i, CONSTANT.MethodHandle);
    const kind = this.bytesOf(i)[o + 1];
    if (kind < 1 || kind > 9) this.fail(`constant pool index ${i}: bad MethodHandle reference_kind ${kind}`);
    const refIndex = this.u2(i, o, 2);
    return { kind, refIndex, ref: this.memberRef(refIndex) };
  }

  methodType(i: number): string {
    return this.utf8(this.u2(i, this.expect(i, CONSTANT.MethodType), 1));
  }

  /** Dynamic (condy) or InvokeDynamic. */
  dynamic(i: number): DynamicRef {
    const o = this.at(i);
    const tag = this.bytesOf(i)[o];
    if (tag !== CONSTANT.Dynamic && tag !== CONSTANT.InvokeDynamic) {
      this.fail(`constant pool index ${i} is not a Dynamic or InvokeDynamic (it is a ${tagName(tag)})`);
    }
    const nt = this.nameAndType(this.u2(i, o, 3));
    return { bsm: this.u2(i, o, 1), name: nt.name, desc: nt.desc };
  }

  moduleName(i: number): string {
    return this.utf8(this.u2(i, this.expect(i, CONSTANT.Module), 1));
  }

  packageName(i: number): string {
    return this.utf8(this.u2(i, this.expect(i, CONSTANT.Package), 1));
  }

  // ---- find-or-add -------------------------------------------------------------------------

  /**
   * Entry i's key: its operands as one u4 for the fixed-size tags of at most 4 operand bytes (so
   * that comparing two is comparing two numbers), else a hash of its bytes (Utf8, Long, Double).
   */
  private keyOf(i: number): number {
    const b = this.bytesOf(i);
    const o = this.offsets[i];
    const tag = b[o];
    switch (tag) {
      case CONSTANT.Utf8:
        return hashBytes(b, o + 3, o + 3 + ((b[o + 1] << 8) | b[o + 2]));
      case CONSTANT.Long:
      case CONSTANT.Double:
        return hashBytes(b, o + 1, o + 9);
      case CONSTANT.MethodHandle:
        return (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
      default:
        return OPERAND_SIZE[tag] === 2 ? (b[o + 1] << 8) | b[o + 2] : (b[o + 1] << 24) | (b[o + 2] << 16) | (b[o + 3] << 8) | b[o + 4];
    }
  }

  private buildIndex(): Int32Array {
    if (this.slots === null) {
      this.entryKeys = new Int32Array(this.offsets.length);
      for (let i = 1; i < this.count; i++) if (this.offsets[i] >= 0) this.entryKeys[i] = this.keyOf(i);
      // Room for what instrumenting a class adds (hundreds of entries) without growing.
      this.rehash(this.count + 512);
    }
    return this.slots!;
  }

  /** A table for `entries` at most half full, holding every entry so far in index order. */
  private rehash(entries: number): void {
    let capacity = 64;
    while (capacity < entries * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.slotKeys = new Int32Array(capacity);
    this.slotTags = new Uint8Array(capacity);
    this.used = 0;
    for (let i = 1; i < this.count; i++) {
      const o = this.offsets[i];
      if (o >= 0) this.insert(i, this.bytesOf(i)[o], this.entryKeys[i]);
    }
  }

  private insert(i: number, tag: number, k: number): void {
    const slots = this.slots!;
    const mask = slots.length - 1;
    let s = mix(tag, k) & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = i;
    this.slotKeys[s] = k;
    this.slotTags[s] = tag;
    this.used++;
  }

  /**
   * The first entry of `tag` keyed `k`, or 0. For a tag keyed by a hash, `length` bytes of `key`
   * are its operands, compared on a match of the hash.
   */
  private find(tag: number, k: number, length: number): number {
    const slots = this.slots ?? this.buildIndex();
    const keys = this.slotKeys;
    const tags = this.slotTags;
    const mask = slots.length - 1;
    const hashed = tag === CONSTANT.Utf8 || tag === CONSTANT.Long || tag === CONSTANT.Double;
    for (let s = mix(tag, k) & mask; ; s = (s + 1) & mask) {
      const i = slots[s];
      if (i === 0) return 0;
      if (keys[s] === k && tags[s] === tag && (!hashed || this.operandsEqual(i, length))) return i;
    }
  }

  /** True when entry i's operands (or modified UTF-8) are key[0, length). */
  private operandsEqual(i: number, length: number): boolean {
    const b = this.bytesOf(i);
    const o = this.offsets[i];
    let from = o + 1;
    if (b[o] === CONSTANT.Utf8) {
      if (((b[o + 1] << 8) | b[o + 2]) !== length) return false;
      from = o + 3;
    }
    for (let j = 0; j < length; j++) if (b[from + j] !== key[j]) return false;
    return true;
  }

  /**
   * The entry of `tag` keyed `k`, found or appended. A fixed-size entry's `length` operand bytes are
   * k's low bytes; a Utf8's, Long's or Double's are key[0, length).
   */
  private findOrAdd(tag: number, k: number, length: number): number {
    const found = this.find(tag, k, length);
    if (found !== 0) return found;
    const wide = tag === CONSTANT.Long || tag === CONSTANT.Double;
    const i = this.count;
    if (i + (wide ? 2 : 1) > MAX_COUNT) {
      throw new KomoriumError(`${this.entry}: constant pool is full (65535 entries); cannot add a ${tagName(tag)}`);
    }
    const head = tag === CONSTANT.Utf8 ? 3 : 1;
    const o = this.addedLength;
    // Instrumenting a class appends a few kilobytes: start there rather than doubling up to it.
    this.added = fitBytes(this.added, Math.max(o + head + length, this.added.length === 0 ? 4096 : 0));
    const a = this.added;
    a[o] = tag;
    if (tag === CONSTANT.Utf8) {
      a[o + 1] = length >>> 8;
      a[o + 2] = length;
    }
    if (tag === CONSTANT.Utf8 || wide) a.set(key.subarray(0, length), o + head);
    else for (let j = 0; j < length; j++) a[o + 1 + j] = k >>> (8 * (length - 1 - j));
    this.addedLength = o + head + length;
    this.offsets = fit(this.offsets, i + 2);
    this.offsets[i] = o;
    if (wide) this.offsets[i + 1] = -1;
    this.entryKeys = fit(this.entryKeys, i + 1);
    this.entryKeys[i] = k;
    this.count = i + (wide ? 2 : 1);
    if ((this.used + 1) * 2 > this.slots!.length) this.rehash(this.count * 2);
    else this.insert(i, tag, k);
    return i;
  }

  /** Finds or adds the entry `tag` with one u2 operand. */
  private entry1(tag: number, a: number): number {
    return this.findOrAdd(tag, a, 2);
  }

  /** Finds or adds the entry `tag` with two u2 operands. */
  private entry2(tag: number, a: number, b: number): number {
    return this.findOrAdd(tag, (a << 16) | b, 4);
  }

  utf8Index(s: string): number {
    // The same few names (the runtime's, Code, StackMapTable) are asked for again and again: a
    // string's hash is kept in the string, so this costs less than encoding and hashing its bytes.
    const known = (this.utf8Found ??= new Map()).get(s);
    if (known !== undefined) return known;
    if (key.length < s.length * 3) key = new Uint8Array(s.length * 3);
    const length = encodeMutf8Into(s, key, 0);
    if (length > 0xffff) {
      throw new KomoriumError(`${this.entry}: string constant of ${length} bytes exceeds the 65535-byte limit`);
    }
    const before = this.count;
    const i = this.findOrAdd(CONSTANT.Utf8, hashBytes(key, 0, length), length);
    // Known already; saves decoding the bytes just encoded when the entry is read back.
    if (i >= before) this.utf8Cache[i] = s;
    this.utf8Found.set(s, i);
    return i;
  }

  classIndex(name: string): number {
    return this.entry1(CONSTANT.Class, this.utf8Index(name));
  }

  moduleIndex(name: string): number {
    return this.entry1(CONSTANT.Module, this.utf8Index(name));
  }

  packageIndex(name: string): number {
    return this.entry1(CONSTANT.Package, this.utf8Index(name));
  }

  stringIndex(s: string): number {
    return this.entry1(CONSTANT.String, this.utf8Index(s));
  }

  integerIndex(v: number): number {
    return this.findOrAdd(CONSTANT.Integer, v | 0, 4);
  }

  /** `bits` is the IEEE 754 single-precision bit pattern (see Math.fround and DataView). */
  floatIndex(bits: number): number {
    return this.findOrAdd(CONSTANT.Float, bits | 0, 4);
  }

  private wideIndex(tag: number, v: bigint): number {
    const u = BigInt.asUintN(64, v);
    const high = Number(u >> 32n);
    const low = Number(u & 0xffffffffn);
    for (let k = 0; k < 4; k++) {
      key[k] = high >>> (24 - 8 * k);
      key[4 + k] = low >>> (24 - 8 * k);
    }
    return this.findOrAdd(tag, hashBytes(key, 0, 8), 8);
  }

  longIndex(v: bigint): number {
    return this.wideIndex(CONSTANT.Long, v);
  }

  /** `bits` is the IEEE 754 double-precision bit pattern. */
  doubleIndex(bits: bigint): number {
    return this.wideIndex(CONSTANT.Double, bits);
  }

  nameAndTypeIndex(name: string, desc: string): number {
    const n = this.utf8Index(name);
    return this.entry2(CONSTANT.NameAndType, n, this.utf8Index(desc));
  }

  private refIndex(tag: number, owner: string, name: string, desc: string): number {
    const c = this.classIndex(owner);
    return this.entry2(tag, c, this.nameAndTypeIndex(name, desc));
  }

  fieldrefIndex(owner: string, name: string, desc: string): number {
    return this.refIndex(CONSTANT.Fieldref, owner, name, desc);
  }

  methodrefIndex(owner: string, name: string, desc: string): number {
    return this.refIndex(CONSTANT.Methodref, owner, name, desc);
  }

  interfaceMethodrefIndex(owner: string, name: string, desc: string): number {
    return this.refIndex(CONSTANT.InterfaceMethodref, owner, name, desc);
  }

  /** An InterfaceMethodref when `isInterface` (the owner is an interface, JVMS 4.4.2), else a Methodref. */
  methodIndex(owner: string, name: string, desc: string, isInterface: boolean): number {
    return this.refIndex(isInterface ? CONSTANT.InterfaceMethodref : CONSTANT.Methodref, owner, name, desc);
  }

  /** `refIndex` is a Fieldref/Methodref/InterfaceMethodref index (see JVMS 4.4.8 for which kind takes which). */
  methodHandleIndex(kind: number, refIndex: number): number {
    if (!Number.isInteger(kind) || kind < 1 || kind > 9) {
      throw new KomoriumError(`${this.entry}: bad MethodHandle reference kind ${kind}`);
    }
    this.memberRef(refIndex);
    return this.findOrAdd(CONSTANT.MethodHandle, (kind << 16) | refIndex, 3);
  }

  methodTypeIndex(desc: string): number {
    return this.entry1(CONSTANT.MethodType, this.utf8Index(desc));
  }

  dynamicIndex(bsm: number, name: string, desc: string): number {
    return this.entry2(CONSTANT.Dynamic, bsm, this.nameAndTypeIndex(name, desc));
  }

  invokeDynamicIndex(bsm: number, name: string, desc: string): number {
    return this.entry2(CONSTANT.InvokeDynamic, bsm, this.nameAndTypeIndex(name, desc));
  }
}
