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
  private readonly utf8Cache = new Map<number, string>();
  /** key → index for find-or-add; built on the first builder call. */
  private index: Map<string, number> | null = null;

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
    const cached = this.utf8Cache.get(i);
    if (cached !== undefined) return cached;
    const e = this.expect(i, CONSTANT.Utf8);
    const s = this.decodeUtf8Entry(i, e);
    this.utf8Cache.set(i, s);
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
   * The find-or-add key of entry i, from its raw fields (so that building the index never
   * decodes or validates anything), or null for entries that cannot be keyed.
   */
  private keyOf(i: number, e: CpEntry): string | null {
    switch (e.tag) {
      case CONSTANT.Utf8:
        try {
          return 'u' + this.utf8(i);
        } catch {
          return null; // an undecodable Utf8 is never equal to a string we add
        }
      case CONSTANT.Integer:
      case CONSTANT.Float:
        return `${e.tag}:${(e.bytes as number) >>> 0}`;
      case CONSTANT.Long:
      case CONSTANT.Double:
        return `${e.tag}:${e.high_bytes! >>> 0}:${e.low_bytes! >>> 0}`;
      case CONSTANT.Class:
      case CONSTANT.Module:
      case CONSTANT.Package:
        return `${e.tag}:${e.name_index}`;
      case CONSTANT.String:
        return `${e.tag}:${e.string_index}`;
      case CONSTANT.Fieldref:
      case CONSTANT.Methodref:
      case CONSTANT.InterfaceMethodref:
        return `${e.tag}:${e.class_index}:${e.name_and_type_index}`;
      case CONSTANT.NameAndType:
        return `${e.tag}:${e.name_index}:${e.descriptor_index}`;
      case CONSTANT.MethodHandle:
        return `${e.tag}:${e.reference_kind}:${e.reference_index}`;
      case CONSTANT.MethodType:
        return `${e.tag}:${e.descriptor_index}`;
      case CONSTANT.Dynamic:
      case CONSTANT.InvokeDynamic:
        return `${e.tag}:${e.bootstrap_method_attr_index}:${e.name_and_type_index}`;
      default:
        return null;
    }
  }

  private lookup(): Map<string, number> {
    if (this.index === null) {
      const map = new Map<string, number>();
      for (let i = 1; i < this.entries.length; i++) {
        const e = this.entries[i];
        if (e === undefined) continue;
        const key = this.keyOf(i, e);
        // The first of several equal entries wins, as javac would have used that one.
        if (key !== null && !map.has(key)) map.set(key, i);
      }
      this.index = map;
    }
    return this.index;
  }

  private findOrAdd(key: string, make: () => CpEntry): number {
    const map = this.lookup();
    const found = map.get(key);
    if (found !== undefined) return found;
    const e = make();
    const wide = e.tag === CONSTANT.Long || e.tag === CONSTANT.Double;
    const i = this.entries.length;
    if (i + (wide ? 2 : 1) > MAX_COUNT) {
      throw new KomoriumError(`${this.entry}: constant pool is full (65535 entries); cannot add a ${tagName(e.tag)}`);
    }
    this.entries.push(e);
    if (wide) this.entries.push(undefined);
    map.set(key, i);
    return i;
  }

  utf8Index(s: string): number {
    return this.findOrAdd('u' + s, () => {
      const bytes = encodeMutf8(s);
      if (bytes.length > 0xffff) {
        throw new KomoriumError(`${this.entry}: string constant of ${bytes.length} bytes exceeds the 65535-byte limit`);
      }
      return { tag: CONSTANT.Utf8, length: bytes.length, bytes: Array.from(bytes) };
    });
  }

  private nameRef(tag: number, name: string): number {
    const n = this.utf8Index(name);
    return this.findOrAdd(`${tag}:${n}`, () => ({ tag, name_index: n }));
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
    return this.findOrAdd(`${CONSTANT.String}:${n}`, () => ({ tag: CONSTANT.String, string_index: n }));
  }

  integerIndex(v: number): number {
    const u = v >>> 0;
    return this.findOrAdd(`${CONSTANT.Integer}:${u}`, () => ({ tag: CONSTANT.Integer, bytes: u }));
  }

  /** `bits` is the IEEE 754 single-precision bit pattern (see Math.fround and DataView). */
  floatIndex(bits: number): number {
    const u = bits >>> 0;
    return this.findOrAdd(`${CONSTANT.Float}:${u}`, () => ({ tag: CONSTANT.Float, bytes: u }));
  }

  private wideIndex(tag: number, v: bigint): number {
    const u = BigInt.asUintN(64, v);
    const high = Number(u >> 32n);
    const low = Number(u & 0xffffffffn);
    return this.findOrAdd(`${tag}:${high}:${low}`, () => ({ tag, high_bytes: high, low_bytes: low }));
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
    return this.findOrAdd(`${CONSTANT.NameAndType}:${n}:${d}`, () => ({
      tag: CONSTANT.NameAndType,
      name_index: n,
      descriptor_index: d,
    }));
  }

  private refIndex(tag: number, owner: string, name: string, desc: string): number {
    const c = this.classIndex(owner);
    const nt = this.nameAndTypeIndex(name, desc);
    return this.findOrAdd(`${tag}:${c}:${nt}`, () => ({ tag, class_index: c, name_and_type_index: nt }));
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
    return this.findOrAdd(`${CONSTANT.MethodHandle}:${kind}:${refIndex}`, () => ({
      tag: CONSTANT.MethodHandle,
      reference_kind: kind,
      reference_index: refIndex,
    }));
  }

  methodTypeIndex(desc: string): number {
    const d = this.utf8Index(desc);
    return this.findOrAdd(`${CONSTANT.MethodType}:${d}`, () => ({ tag: CONSTANT.MethodType, descriptor_index: d }));
  }

  private bootstrapRef(tag: number, bsm: number, name: string, desc: string): number {
    const nt = this.nameAndTypeIndex(name, desc);
    return this.findOrAdd(`${tag}:${bsm}:${nt}`, () => ({
      tag,
      bootstrap_method_attr_index: bsm,
      name_and_type_index: nt,
    }));
  }

  dynamicIndex(bsm: number, name: string, desc: string): number {
    return this.bootstrapRef(CONSTANT.Dynamic, bsm, name, desc);
  }

  invokeDynamicIndex(bsm: number, name: string, desc: string): number {
    return this.bootstrapRef(CONSTANT.InvokeDynamic, bsm, name, desc);
  }
}
