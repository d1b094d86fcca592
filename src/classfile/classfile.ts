/**
 * A class file (JVMS 4.1) with names decoded and every attribute raw. Parsing then writing an
 * unchanged class gives the same bytes: the constant pool is kept as read (only appended to),
 * and the indices that were read are reused whenever the decoded name they stand for is unchanged.
 */
import { ClassFormatError, KomoriumError } from '../errors.js';
import { ConstantPool } from './constant-pool.js';
import { isValidFieldDescriptor, isValidMethodDescriptor } from './descriptor.js';
import { FormatProblem, RawClassReader, RawClassWriter } from './lib-io.js';
import type { LibAttribute, LibClass, LibMember } from './lib-io.js';
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

  private constructor(
    readonly entry: string,
    readonly cp: ConstantPool,
    lib: LibClass,
  ) {
    this.minor = lib.minor_version;
    this.major = lib.major_version;
    this.access = lib.access_flags;
    this.thisIndex = lib.this_class;
    this.superIndex = lib.super_class;
    this.interfaceIndices = lib.interfaces;
    this.thisClass = within(entry, 'this_class', () => cp.className(lib.this_class));
    this.superClass = lib.super_class === 0 ? null : within(entry, 'super_class', () => cp.className(lib.super_class));
    this.interfaces = lib.interfaces.map((i, n) => within(entry, `interface ${n + 1} of ${lib.interfaces.length}`, () => cp.className(i)));
    this.fields = lib.fields.map((m, n, all) => this.decodeMember(m, 'field', n, all.length));
    this.methods = lib.methods.map((m, n, all) => this.decodeMember(m, 'method', n, all.length));
    this.attributes = within(entry, 'class attributes', () => lib.attributes.map((a) => this.decodeAttribute(a)));
  }

  /**
   * Parses a class file. Anything malformed raises ClassFormatError naming `entry`, never another
   * error. Attribute bodies are views of `bytes`: do not modify `bytes` while the ClassFile is in use.
   */
  static parse(bytes: Uint8Array, entry: string): ClassFile {
    if (bytes.length < 4) throw new ClassFormatError(entry, `truncated at byte ${bytes.length} while reading the magic number`);
    const magic = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
    if (magic !== MAGIC) throw new ClassFormatError(entry, `bad magic ${hex(magic, 8)} (not a class file)`);
    if (bytes.length < 10) {
      throw new ClassFormatError(entry, `truncated at byte ${bytes.length} while reading the version and constant_pool_count`);
    }
    // Attributes and constants are views of the input; a Buffer's views would be Buffers, whose slice() does not copy.
    const plain = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    const reader = new RawClassReader();
    let lib: LibClass;
    try {
      lib = reader.readClass(plain);
    } catch (e) {
      throw readFailure(entry, reader, bytes.length, e);
    }
    const end = reader.offset;
    if (end !== bytes.length) {
      throw new ClassFormatError(entry, `${bytes.length - end} trailing bytes after the end of the class (at byte ${end})`);
    }
    try {
      return new ClassFile(entry, new ConstantPool(lib.constant_pool, entry), lib);
    } catch (e) {
      if (e instanceof ClassFormatError) throw e;
      throw new ClassFormatError(entry, `unreadable class: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private decodeMember(m: LibMember, kind: 'field' | 'method', n: number, total: number): MemberInfo {
    let where: string | null = null; // the member's position names it until its name is known
    try {
      const name = this.cp.utf8(m.name_index);
      where = `${kind} ${name}`;
      const desc = this.cp.utf8(m.descriptor_index);
      const valid = kind === 'field' ? isValidFieldDescriptor(desc) : isValidMethodDescriptor(desc);
      if (!valid) throw new ClassFormatError(this.entry, `invalid descriptor '${desc}'`);
      where = `${kind} ${name}${desc}`;
      const attributes = new Array<RawAttribute>(m.attributes.length);
      for (let i = 0; i < attributes.length; i++) attributes[i] = this.decodeAttribute(m.attributes[i]);
      return { access: m.access_flags, nameIndex: m.name_index, descIndex: m.descriptor_index, name, desc, attributes };
    } catch (e) {
      if (e instanceof ClassFormatError) throw new ClassFormatError(this.entry, `${where ?? `${kind} ${n + 1} of ${total}`}: ${e.detail}`);
      throw e;
    }
  }

  private decodeAttribute(a: LibAttribute): RawAttribute {
    return { nameIndex: a.attribute_name_index, name: this.cp.utf8(a.attribute_name_index), info: a.info };
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

  /** Brings an attribute's nameIndex in step with its name. */
  private syncAttribute(a: RawAttribute): LibAttribute {
    if (!this.utf8Is(a.nameIndex, a.name)) a.nameIndex = this.cp.utf8Index(a.name);
    return { attribute_name_index: a.nameIndex, attribute_length: a.info.length, info: a.info };
  }

  private syncAttributes(list: RawAttribute[], where: string): LibAttribute[] {
    u2(list.length, `${this.entry}: ${where} has ${list.length} attributes`);
    return list.map((a) => {
      if (a.info.length > 0xffffffff) throw new KomoriumError(`${this.entry}: ${where}: attribute ${a.name} is too long`);
      return this.syncAttribute(a);
    });
  }

  private syncMember(m: MemberInfo, kind: string): LibMember {
    if (!this.utf8Is(m.nameIndex, m.name)) m.nameIndex = this.cp.utf8Index(m.name);
    if (!this.utf8Is(m.descIndex, m.desc)) m.descIndex = this.cp.utf8Index(m.desc);
    u2(m.access, `${this.entry}: ${kind} ${m.name}: access flags ${m.access}`);
    return {
      access_flags: m.access,
      name_index: m.nameIndex,
      descriptor_index: m.descIndex,
      attributes_count: m.attributes.length,
      attributes: this.syncAttributes(m.attributes, `${kind} ${m.name}${m.desc}`),
    };
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
    const fields = this.fields.map((m) => this.syncMember(m, 'field'));
    const methods = this.methods.map((m) => this.syncMember(m, 'method'));
    const attributes = this.syncAttributes(this.attributes, 'class');
    // Constants are added above, so the count is taken last.
    const lib: LibClass = {
      minor_version: this.minor,
      major_version: this.major,
      constant_pool_count: this.cp.size,
      constant_pool: this.cp.entries,
      access_flags: this.access,
      this_class: this.thisIndex,
      super_class: this.superIndex,
      interfaces_count: this.interfaceIndices.length,
      interfaces: this.interfaceIndices,
      fields_count: fields.length,
      fields,
      methods_count: methods.length,
      methods,
      attributes_count: attributes.length,
      attributes,
    };
    return new RawClassWriter().writeClass(lib);
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

function readFailure(entry: string, reader: RawClassReader, length: number, e: unknown): ClassFormatError {
  if (e instanceof ClassFormatError) return e;
  if (e instanceof FormatProblem) return new ClassFormatError(entry, e.detail);
  // bytebuffer raises RangeError("Illegal offset ...") on a read past the end.
  if (e instanceof RangeError || (e instanceof Error && /Illegal offset/.test(e.message))) {
    return new ClassFormatError(entry, `truncated at byte ${length} while reading ${reader.section}`);
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new ClassFormatError(entry, `unreadable class (${msg}) while reading ${reader.section}`);
}
