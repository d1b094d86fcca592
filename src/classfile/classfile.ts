/**
 * A class file (JVMS 4.1) with names decoded and every attribute raw. Parsing then writing an
 * unchanged class gives the same bytes: the constant pool is kept as read (only appended to),
 * and the indices that were read are reused whenever the decoded name they stand for is unchanged.
 */
import { ClassFormatError, KomoriumError } from '../errors.js';
import { ConstantPool } from './constant-pool.js';
import { isValidFieldDescriptor, isValidMethodDescriptor } from './descriptor.js';
import { readClassStructure, writeClassStructure } from './class-io.js';
import type { AttributeStructure, ClassStructure, MemberStructure } from './class-io.js';
import { CONSTANT } from './model.js';
import type { MemberInfo, RawAttribute } from './model.js';

const MAGIC = 0xcafebabe;

/** The first attribute called `name`, or undefined. */
export function findAttribute(attrs: readonly RawAttribute[], name: string): RawAttribute | undefined {
  for (const a of attrs) if (a.name === name) return a;
  return undefined;
}

function hex(n: number, digits: number): string {
  return '0x' + n.toString(16).padStart(digits, '0');
}

/** Runs `fn`, prefixing the detail of a ClassFormatError with `where`. */
function within<T>(entry: string, where: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ClassFormatError) throw new ClassFormatError(entry, `${where}: ${e.detail}`);
    throw e;
  }
}

export class ClassFile {
  minor: number;
  major: number;
  access: number;
  thisClass: string;
  superClass: string | null;
  interfaces: string[];
  fields: MemberInfo[];
  methods: MemberInfo[];
  attributes: RawAttribute[];

  /** Indices as read, reused on write while the name they decode to is unchanged. */
  private thisIndex: number;
  private superIndex: number;
  private interfaceIndices: number[];

  readonly cp: ConstantPool;

  private constructor(
    readonly entry: string,
    c: ClassStructure,
  ) {
    const cp = c.cp;
    this.cp = cp;
    this.minor = c.minor;
    this.major = c.major;
    this.access = c.access;
    this.thisIndex = c.thisIndex;
    this.superIndex = c.superIndex;
    this.interfaceIndices = c.interfaceIndices;
    this.thisClass = within(entry, 'this_class', () => cp.className(c.thisIndex));
    this.superClass = c.superIndex === 0 ? null : within(entry, 'super_class', () => cp.className(c.superIndex));
    this.interfaces = c.interfaceIndices.map((i, n, all) => within(entry, `interface ${n + 1} of ${all.length}`, () => cp.className(i)));
    this.fields = c.fields.map((m, n, all) => this.decodeMember(m, 'field', n, all.length));
    this.methods = c.methods.map((m, n, all) => this.decodeMember(m, 'method', n, all.length));
    this.attributes = within(entry, 'class attributes', () => c.attributes.map((a) => this.decodeAttribute(a)));
  }

  /**
   * Parses a class file. Anything malformed raises ClassFormatError naming `entry`, never another
   * error. Attribute bodies and the constant pool are views of `bytes`: do not modify `bytes` while
   * the ClassFile is in use.
   */
  static parse(bytes: Uint8Array, entry: string): ClassFile {
    if (bytes.length < 4) throw new ClassFormatError(entry, `truncated at byte ${bytes.length} while reading the magic number`);
    const magic = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
    if (magic !== MAGIC) throw new ClassFormatError(entry, `bad magic ${hex(magic, 8)} (not a class file)`);
    // Attributes are views of the input; a Buffer's views would be Buffers, whose slice() does not copy.
    const plain = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    try {
      return new ClassFile(entry, readClassStructure(plain, entry));
    } catch (e) {
      if (e instanceof ClassFormatError) throw e;
      throw new ClassFormatError(entry, `unreadable class: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private decodeMember(m: MemberStructure, kind: 'field' | 'method', n: number, total: number): MemberInfo {
    let where: string | null = null; // the member's position names it until its name is known
    try {
      const name = this.cp.utf8(m.nameIndex);
      where = `${kind} ${name}`;
      const desc = this.cp.utf8(m.descIndex);
      const valid = kind === 'field' ? isValidFieldDescriptor(desc) : isValidMethodDescriptor(desc);
      if (!valid) throw new ClassFormatError(this.entry, `invalid descriptor '${desc}'`);
      where = `${kind} ${name}${desc}`;
      const attributes = new Array<RawAttribute>(m.attributes.length);
      for (let i = 0; i < attributes.length; i++) attributes[i] = this.decodeAttribute(m.attributes[i]);
      return { access: m.access, nameIndex: m.nameIndex, descIndex: m.descIndex, name, desc, attributes };
    } catch (e) {
      if (e instanceof ClassFormatError) throw new ClassFormatError(this.entry, `${where ?? `${kind} ${n + 1} of ${total}`}: ${e.detail}`);
      throw e;
    }
  }

  private decodeAttribute(a: AttributeStructure): RawAttribute {
    return { nameIndex: a.nameIndex, name: this.cp.utf8(a.nameIndex), info: a.info };
  }

  // ---- writing -----------------------------------------------------------------------------

  /** True when `i` is a Utf8 constant that decodes to `s`. */
  private utf8Is(i: number, s: string): boolean {
    if (!this.cp.has(i) || this.cp.tag(i) !== CONSTANT.Utf8) return false;
    try {
      return this.cp.utf8(i) === s;
    } catch {
      return false;
    }
  }

  private classIs(i: number, name: string): boolean {
    if (!this.cp.has(i) || this.cp.tag(i) !== CONSTANT.Class) return false;
    try {
      return this.cp.className(i) === name;
    } catch {
      return false;
    }
  }

  private classRef(index: number, name: string): number {
    return this.classIs(index, name) ? index : this.cp.classIndex(name);
  }

  /** Brings each attribute's nameIndex in step with its name. */
  private syncAttributes(list: RawAttribute[], where: string): void {
    u2(list.length, `${this.entry}: ${where} has ${list.length} attributes`);
    for (const a of list) {
      if (a.info.length > 0xffffffff) throw new KomoriumError(`${this.entry}: ${where}: attribute ${a.name} is too long`);
      if (!this.utf8Is(a.nameIndex, a.name)) a.nameIndex = this.cp.utf8Index(a.name);
    }
  }

  private syncMember(m: MemberInfo, kind: string): void {
    if (!this.utf8Is(m.nameIndex, m.name)) m.nameIndex = this.cp.utf8Index(m.name);
    if (!this.utf8Is(m.descIndex, m.desc)) m.descIndex = this.cp.utf8Index(m.desc);
    u2(m.access, `${this.entry}: ${kind} ${m.name}: access flags ${m.access}`);
    this.syncAttributes(m.attributes, `${kind} ${m.name}${m.desc}`);
  }

  /** A new field or method (not added): its name and descriptor entered in this class's constant pool. */
  newMember(access: number, name: string, desc: string, attributes: RawAttribute[] = []): MemberInfo {
    return { access, name, desc, nameIndex: this.cp.utf8Index(name), descIndex: this.cp.utf8Index(desc), attributes };
  }

  /** The class file bytes. Adds constants for names that changed; otherwise byte-identical to the input. */
  toBytes(): Uint8Array {
    this.thisIndex = this.classRef(this.thisIndex, this.thisClass);
    this.superIndex = this.superClass === null ? 0 : this.classRef(this.superIndex, this.superClass);
    this.interfaceIndices = this.interfaces.map((name, n) => this.classRef(this.interfaceIndices[n] ?? 0, name));
    u2(this.interfaces.length, `${this.entry}: ${this.interfaces.length} interfaces`);
    u2(this.fields.length, `${this.entry}: ${this.fields.length} fields`);
    u2(this.methods.length, `${this.entry}: ${this.methods.length} methods`);
    u2(this.access, `${this.entry}: class access flags ${this.access}`);
    for (const m of this.fields) this.syncMember(m, 'field');
    for (const m of this.methods) this.syncMember(m, 'method');
    this.syncAttributes(this.attributes, 'class');
    // Constants are added above, so the pool is written last.
    return writeClassStructure({
      minor: this.minor,
      major: this.major,
      cp: this.cp,
      access: this.access,
      thisIndex: this.thisIndex,
      superIndex: this.superIndex,
      interfaceIndices: this.interfaceIndices,
      fields: this.fields,
      methods: this.methods,
      attributes: this.attributes,
    });
  }

  // ---- editing helpers ---------------------------------------------------------------------

  /** A new attribute whose name is in this class's constant pool. */
  makeAttribute(name: string, info: Uint8Array): RawAttribute {
    return { nameIndex: this.cp.utf8Index(name), name, info };
  }

  /** Replaces the first attribute called `name` in `list`, or appends one; returns it. */
  setAttribute(list: RawAttribute[], name: string, info: Uint8Array): RawAttribute {
    const existing = findAttribute(list, name);
    if (existing) {
      existing.info = info;
      return existing;
    }
    const a = this.makeAttribute(name, info);
    list.push(a);
    return a;
  }

  /** Removes every attribute called `name` from `list`; returns how many there were. */
  removeAttributes(list: RawAttribute[], name: string): number {
    let kept = 0;
    for (const a of list) if (a.name !== name) list[kept++] = a;
    const removed = list.length - kept;
    list.length = kept;
    return removed;
  }

  findField(name: string, desc: string): MemberInfo | undefined {
    return this.fields.find((m) => m.name === name && m.desc === desc);
  }

  findMethod(name: string, desc: string): MemberInfo | undefined {
    return this.methods.find((m) => m.name === name && m.desc === desc);
  }

  /** Appends a field; throws KomoriumError when one with that name and descriptor exists (the JVM would reject the class). */
  addField(access: number, name: string, desc: string, attributes: RawAttribute[] = []): MemberInfo {
    if (!isValidFieldDescriptor(desc)) throw new KomoriumError(`${this.entry}: invalid field descriptor '${desc}'`);
    if (this.findField(name, desc)) throw new KomoriumError(`${this.entry}: field ${name} ${desc} already exists`);
    const m = this.member(access, name, desc, attributes);
    this.fields.push(m);
    return m;
  }

  /** Appends a method; throws KomoriumError when one with that name and descriptor exists. */
  addMethod(access: number, name: string, desc: string, attributes: RawAttribute[] = []): MemberInfo {
    if (!isValidMethodDescriptor(desc)) throw new KomoriumError(`${this.entry}: invalid method descriptor '${desc}'`);
    if (this.findMethod(name, desc)) throw new KomoriumError(`${this.entry}: method ${name}${desc} already exists`);
    const m = this.member(access, name, desc, attributes);
    this.methods.push(m);
    return m;
  }

  private member(access: number, name: string, desc: string, attributes: RawAttribute[]): MemberInfo {
    return { access, nameIndex: this.cp.utf8Index(name), descIndex: this.cp.utf8Index(desc), name, desc, attributes };
  }
}

function u2(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new KomoriumError(`${what}: does not fit the class file's 16-bit field`);
}
