/**
 * The constant pool of one class, over java-class-tools' `constant_pool` array, so that the lib's
 * writer can write it back: index 0 and the slot after each Long/Double are `undefined`, and
 * entries appended here use the lib's field names.
 */
import { ClassFormatError, KomoriumError } from '../errors.js';
import { CONSTANT } from './model.js';
import { decodeMutf8, encodeMutf8, Mutf8Error } from './mutf8.js';

/** One constant_pool entry in java-class-tools' shape (its fields are named after JVMS 4.4). */
export interface CpEntry {
  tag: number;
  /** Utf8 */
  length?: number;
  /** Utf8: the modified UTF-8 bytes (a view into the class bytes when read, number[] when appended). Integer/Float: the u4. */
  bytes?: ArrayLike<number> | number;
  /** Long/Double */
  high_bytes?: number;
  low_bytes?: number;
  /** Class, Module, Package, NameAndType */
  name_index?: number;
  /** String */
  string_index?: number;
  /** Fieldref, Methodref, InterfaceMethodref */
  class_index?: number;
  /** Fieldref, Methodref, InterfaceMethodref, Dynamic, InvokeDynamic */
  name_and_type_index?: number;
  /** NameAndType, MethodType */
  descriptor_index?: number;
  /** MethodHandle */
  reference_kind?: number;
  reference_index?: number;
  /** Dynamic, InvokeDynamic */
  bootstrap_method_attr_index?: number;
}

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

export class ConstantPool {
  /** Decoded Utf8 entries and member descriptors by index (arrays: indices are dense and small). */
  private readonly utf8Cache: (string | undefined)[] = [];
  private readonly descCache: (string | undefined)[] = [];

  /**
   * @param entries java-class-tools' constant_pool array (entries[0] is undefined); used, not copied.
   * @param entry   jar entry or file name, for error messages.
   */
  constructor(
    readonly entries: (CpEntry | undefined)[],
    public entry: string,
  ) {}

  /** An empty pool (for building a class from scratch). */
  static empty(entry: string): ConstantPool {
    return new ConstantPool([undefined], entry);
  }

  /** constant_pool_count: one more than the highest index. */
  get size(): number {
    return this.entries.length;
  }

  private fail(detail: string): never {
    throw new ClassFormatError(this.entry, detail);
  }

  /** True when `i` names a usable entry (in range and not the slot after a Long/Double). */
  has(i: number): boolean {
    return Number.isInteger(i) && i >= 1 && i < this.entries.length && this.entries[i] !== undefined;
  }

  private get(i: number): CpEntry {
    if (!Number.isInteger(i) || i < 1 || i >= this.entries.length) {
      this.fail(`constant pool index ${i} is out of range (1..${this.entries.length - 1})`);
    }
    const e = this.entries[i];
    if (e === undefined) this.fail(`constant pool index ${i} is the unusable slot after a Long or Double`);
    return e;
  }

  private expect(i: number, tag: number, what: string = tagName(tag)): CpEntry {
    const e = this.get(i);
    if (e.tag !== tag) this.fail(`constant pool index ${i} is not a ${what} (it is a ${tagName(e.tag)})`);
    return e;
  }

  tag(i: number): number {
    return this.get(i).tag;
  }

  utf8(i: number): string {
    const cached = this.utf8Cache[i];
    if (cached !== undefined) return cached;
    const e = this.expect(i, CONSTANT.Utf8);
    const s = this.decodeUtf8Entry(i, e);
    this.utf8Cache[i] = s;
    return s;
  }

  private decodeUtf8Entry(i: number, e: CpEntry): string {
    const raw = e.bytes as ArrayLike<number>;
    const bytes = raw instanceof Uint8Array ? raw : Uint8Array.from(raw);
    try {
      return decodeMutf8(bytes);
    } catch (err) {
      if (err instanceof Mutf8Error) this.fail(`constant pool index ${i}: ${err.message}`);
      throw err;
    }
  }

  /** Class → internal name (or array descriptor, for array classes). */
  className(i: number): string {
    return this.utf8(this.expect(i, CONSTANT.Class).name_index!);
  }

  string(i: number): string {
    return this.utf8(this.expect(i, CONSTANT.String).string_index!);
  }

  integer(i: number): number {
    return (this.expect(i, CONSTANT.Integer).bytes as number) | 0;
  }

  /** The raw IEEE 754 bits; use these to copy a float exactly (NaN payloads). */
  floatBits(i: number): number {
    return (this.expect(i, CONSTANT.Float).bytes as number) >>> 0;
  }

  float(i: number): number {
    const view = new DataView(new ArrayBuffer(4));
    view.setUint32(0, this.floatBits(i));
    return view.getFloat32(0);
  }

  private wide(i: number, tag: number): bigint {
    const e = this.expect(i, tag);
    return (BigInt(e.high_bytes! >>> 0) << 32n) | BigInt(e.low_bytes! >>> 0);
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
    const e = this.expect(i, CONSTANT.NameAndType);
    return { name: this.utf8(e.name_index!), desc: this.utf8(e.descriptor_index!) };
  }

  /** Fieldref, Methodref or InterfaceMethodref. */
  memberRef(i: number): MemberRef {
    const e = this.get(i);
    if (e.tag !== CONSTANT.Fieldref && e.tag !== CONSTANT.Methodref && e.tag !== CONSTANT.InterfaceMethodref) {
      this.fail(`constant pool index ${i} is not a Fieldref, Methodref or InterfaceMethodref (it is a ${tagName(e.tag)})`);
    }
    const nt = this.nameAndType(e.name_and_type_index!);
    return {
      tag: e.tag,
      owner: this.className(e.class_index!),
      name: nt.name,
      desc: nt.desc,
      isInterface: e.tag === CONSTANT.InterfaceMethodref,
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
    const e = this.expect(i, CONSTANT.MethodHandle);
    const kind = e.reference_kind!;
    if (kind < 1 || kind > 9) this.fail(`constant pool index ${i}: bad MethodHandle reference_kind ${kind}`);
    return { kind, refIndex: e.reference_index!, ref: this.memberRef(e.reference_index!) };
  }

  methodType(i: number): string {
    return this.utf8(this.expect(i, CONSTANT.MethodType).descriptor_index!);
  }

  /** Dynamic (condy) or InvokeDynamic. */
  dynamic(i: number): DynamicRef {
    const e = this.get(i);
    if (e.tag !== CONSTANT.Dynamic && e.tag !== CONSTANT.InvokeDynamic) {
      this.fail(`constant pool index ${i} is not a Dynamic or InvokeDynamic (it is a ${tagName(e.tag)})`);
    }
    const nt = this.nameAndType(e.name_and_type_index!);
    return { bsm: e.bootstrap_method_attr_index!, name: nt.name, desc: nt.desc };
  }

  moduleName(i: number): string {
    return this.utf8(this.expect(i, CONSTANT.Module).name_index!);
  }

  packageName(i: number): string {
    return this.utf8(this.expect(i, CONSTANT.Package).name_index!);
  }

  // ---- builders ----------------------------------------------------------------------------

  /**
   * Find-or-add indexes, built on the first builder call from the raw fields (so that building
   * them never decodes or validates anything but Utf8). Keys are numbers where the entry is made of
   * indices: building a string key per lookup was most of the cost of find-or-add.
   */
  private utf8Map: Map<string, number> | null = null;
  /** Per tag: the entry's operands packed into a number (see refKey). */
  private numMaps: Map<number, number>[] = [];
  /** Long and Double: "high:low". */
  private wideMaps: Map<string, number>[] = [];

  private numMap(tag: number): Map<number, number> {
    return (this.numMaps[tag] ??= new Map());
  }

  private wideMap(tag: number): Map<string, number> {
    return (this.wideMaps[tag] ??= new Map());
  }

  /** Registers entry i under its key unless an equal entry came first (javac would have used that one). */
  private indexEntry(i: number, e: CpEntry): void {
    switch (e.tag) {
      case CONSTANT.Utf8: {
        let s: string;
        try {
          s = this.utf8(i);
        } catch {
          return; // an undecodable Utf8 is never equal to a string we add
        }
        if (!this.utf8Map!.has(s)) this.utf8Map!.set(s, i);
        return;
      }
      case CONSTANT.Integer:
      case CONSTANT.Float:
        return this.keep(this.numMap(e.tag), (e.bytes as number) >>> 0, i);
      case CONSTANT.Long:
      case CONSTANT.Double: {
        const m = this.wideMap(e.tag);
        const key = `${e.high_bytes! >>> 0}:${e.low_bytes! >>> 0}`;
        if (!m.has(key)) m.set(key, i);
        return;
      }
      case CONSTANT.Class:
      case CONSTANT.Module:
      case CONSTANT.Package:
        return this.keep(this.numMap(e.tag), e.name_index!, i);
      case CONSTANT.String:
        return this.keep(this.numMap(e.tag), e.string_index!, i);
      case CONSTANT.Fieldref:
      case CONSTANT.Methodref:
      case CONSTANT.InterfaceMethodref:
        return this.keep(this.numMap(e.tag), refKey(e.class_index!, e.name_and_type_index!), i);
      case CONSTANT.NameAndType:
        return this.keep(this.numMap(e.tag), refKey(e.name_index!, e.descriptor_index!), i);
      case CONSTANT.MethodHandle:
        return this.keep(this.numMap(e.tag), refKey(e.reference_kind!, e.reference_index!), i);
      case CONSTANT.MethodType:
        return this.keep(this.numMap(e.tag), e.descriptor_index!, i);
      case CONSTANT.Dynamic:
      case CONSTANT.InvokeDynamic:
        return this.keep(this.numMap(e.tag), refKey(e.bootstrap_method_attr_index!, e.name_and_type_index!), i);
    }
  }

  private keep(m: Map<number, number>, key: number, i: number): void {
    if (!m.has(key)) m.set(key, i);
  }

  private buildIndex(): void {
    if (this.utf8Map !== null) return;
    this.utf8Map = new Map();
    for (let i = 1; i < this.entries.length; i++) {
      const e = this.entries[i];
      if (e !== undefined) this.indexEntry(i, e);
    }
  }

  private append(e: CpEntry): number {
    const wide = e.tag === CONSTANT.Long || e.tag === CONSTANT.Double;
    const i = this.entries.length;
    if (i + (wide ? 2 : 1) > MAX_COUNT) {
      throw new KomoriumError(`${this.entry}: constant pool is full (65535 entries); cannot add a ${tagName(e.tag)}`);
    }
    this.entries.push(e);
    if (wide) this.entries.push(undefined);
    return i;
  }

  /**
   * The entry of `tag` keyed `key` in numMaps, or undefined. The builders look up first and make
   * the entry only when it is missing: passing a maker closure cost an allocation per call (a
   * tenth of all allocation on guava, where nearly every lookup finds its entry).
   */
  private findNum(tag: number, key: number): number | undefined {
    this.buildIndex();
    return this.numMap(tag).get(key);
  }

  /** Appends `e` (of a tag with a numMaps key) and registers it under `key`. */
  private addNum(e: CpEntry, key: number): number {
    const i = this.append(e);
    this.numMap(e.tag).set(key, i);
    return i;
  }

  utf8Index(s: string): number {
    this.buildIndex();
    const m = this.utf8Map!;
    let i = m.get(s);
    if (i === undefined) {
      const bytes = encodeMutf8(s);
      if (bytes.length > 0xffff) {
        throw new KomoriumError(`${this.entry}: string constant of ${bytes.length} bytes exceeds the 65535-byte limit`);
      }
      i = this.append({ tag: CONSTANT.Utf8, length: bytes.length, bytes });
      m.set(s, i);
      // Known already; saves decoding the bytes just encoded when the entry is read back.
      this.utf8Cache[i] = s;
    }
    return i;
  }

  private nameRef(tag: number, name: string): number {
    const n = this.utf8Index(name);
    return this.findNum(tag, n) ?? this.addNum({ tag, name_index: n }, n);
  }

  classIndex(name: string): number {
    return this.nameRef(CONSTANT.Class, name);
  }

  moduleIndex(name: string): number {
    return this.nameRef(CONSTANT.Module, name);
  }

  packageIndex(name: string): number {
    return this.nameRef(CONSTANT.Package, name);
  }

  stringIndex(s: string): number {
    const n = this.utf8Index(s);
    return this.findNum(CONSTANT.String, n) ?? this.addNum({ tag: CONSTANT.String, string_index: n }, n);
  }

  integerIndex(v: number): number {
    const u = v >>> 0;
    return this.findNum(CONSTANT.Integer, u) ?? this.addNum({ tag: CONSTANT.Integer, bytes: u }, u);
  }

  /** `bits` is the IEEE 754 single-precision bit pattern (see Math.fround and DataView). */
  floatIndex(bits: number): number {
    const u = bits >>> 0;
    return this.findNum(CONSTANT.Float, u) ?? this.addNum({ tag: CONSTANT.Float, bytes: u }, u);
  }

  private wideIndex(tag: number, v: bigint): number {
    const u = BigInt.asUintN(64, v);
    const high = Number(u >> 32n);
    const low = Number(u & 0xffffffffn);
    this.buildIndex();
    const m = this.wideMap(tag);
    const key = `${high}:${low}`;
    let i = m.get(key);
    if (i === undefined) {
      i = this.append({ tag, high_bytes: high, low_bytes: low });
      m.set(key, i);
    }
    return i;
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
    const d = this.utf8Index(desc);
    const key = refKey(n, d);
    return this.findNum(CONSTANT.NameAndType, key) ?? this.addNum({ tag: CONSTANT.NameAndType, name_index: n, descriptor_index: d }, key);
  }

  private refIndex(tag: number, owner: string, name: string, desc: string): number {
    const c = this.classIndex(owner);
    const nt = this.nameAndTypeIndex(name, desc);
    const key = refKey(c, nt);
    return this.findNum(tag, key) ?? this.addNum({ tag, class_index: c, name_and_type_index: nt }, key);
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

  /** `refIndex` is a Fieldref/Methodref/InterfaceMethodref index (see JVMS 4.4.8 for which kind takes which). */
  methodHandleIndex(kind: number, refIndex: number): number {
    if (!Number.isInteger(kind) || kind < 1 || kind > 9) {
      throw new KomoriumError(`${this.entry}: bad MethodHandle reference kind ${kind}`);
    }
    this.memberRef(refIndex);
    const key = refKey(kind, refIndex);
    return this.findNum(CONSTANT.MethodHandle, key) ?? this.addNum({ tag: CONSTANT.MethodHandle, reference_kind: kind, reference_index: refIndex }, key);
  }

  methodTypeIndex(desc: string): number {
    const d = this.utf8Index(desc);
    return this.findNum(CONSTANT.MethodType, d) ?? this.addNum({ tag: CONSTANT.MethodType, descriptor_index: d }, d);
  }

  private bootstrapRef(tag: number, bsm: number, name: string, desc: string): number {
    const nt = this.nameAndTypeIndex(name, desc);
    const key = refKey(bsm, nt);
    return this.findNum(tag, key) ?? this.addNum({ tag, bootstrap_method_attr_index: bsm, name_and_type_index: nt }, key);
  }

  dynamicIndex(bsm: number, name: string, desc: string): number {
    return this.bootstrapRef(CONSTANT.Dynamic, bsm, name, desc);
  }

  invokeDynamicIndex(bsm: number, name: string, desc: string): number {
    return this.bootstrapRef(CONSTANT.InvokeDynamic, bsm, name, desc);
  }
}

/** Two u2 operands as one key (below 2^32, exact as a number). */
function refKey(a: number, b: number): number {
  return a * 0x10000 + b;
}
