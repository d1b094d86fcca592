/**
 * The class file structure (JVMS 4.1) read from and written to bytes, around a ConstantPool that
 * stays bytes. Every attribute is kept raw, its body a view of the input, so unknown, odd or fuzzed
 * attributes pass through unchanged and nothing decodes what no pass asks for.
 *
 * A malformed or truncated structure raises ClassFormatError naming the entry, the part being read
 * and the byte offset.
 */
import { ClassFormatError, KomoriumError } from '../errors.js';
import { ConstantPool } from './constant-pool.js';

/** attribute_info: the name's index and the bytes after attribute_length. */
export interface AttributeStructure {
  nameIndex: number;
  info: Uint8Array;
}

/** field_info / method_info. */
export interface MemberStructure {
  access: number;
  nameIndex: number;
  descIndex: number;
  attributes: AttributeStructure[];
}

/** ClassFile (JVMS 4.1) with constant_pool as a ConstantPool and every attribute raw. */
export interface ClassStructure {
  minor: number;
  major: number;
  cp: ConstantPool;
  access: number;
  thisIndex: number;
  /** 0 for java/lang/Object and module-info. */
  superIndex: number;
  interfaceIndices: number[];
  fields: MemberStructure[];
  methods: MemberStructure[];
  attributes: AttributeStructure[];
}

/** Reads the structure after the constant pool, saying what it was reading when the bytes run out. */
class StructureReader {
  private at: number;
  /** What is being read, for truncation messages. */
  private section = 'the class header (access_flags, this_class, super_class)';

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly entry: string,
  ) {
    this.at = start;
  }

  get offset(): number {
    return this.at;
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) {
      throw new ClassFormatError(this.entry, `truncated at byte ${this.bytes.length} while reading ${this.section}`);
    }
  }

  u2(): number {
    this.need(2);
    const b = this.bytes;
    const o = this.at;
    this.at = o + 2;
    return (b[o] << 8) | b[o + 1];
  }

  read(cp: ConstantPool, minor: number, major: number): ClassStructure {
    const access = this.u2();
    const thisIndex = this.u2();
    const superIndex = this.u2();
    this.section = 'the interfaces';
    const interfaceIndices = new Array<number>(this.u2());
    for (let i = 0; i < interfaceIndices.length; i++) interfaceIndices[i] = this.u2();
    this.section = 'the fields count';
    const fields = this.members('field');
    this.section = 'the methods count';
    const methods = this.members('method');
    this.section = 'the class attributes';
    const attributes = this.attributes();
    return { minor, major, cp, access, thisIndex, superIndex, interfaceIndices, fields, methods, attributes };
  }

  private members(kind: string): MemberStructure[] {
    const count = this.u2();
    const out = new Array<MemberStructure>(count);
    for (let i = 0; i < count; i++) {
      this.section = `${kind} ${i + 1} of ${count}`;
      const access = this.u2();
      const nameIndex = this.u2();
      const descIndex = this.u2();
      out[i] = { access, nameIndex, descIndex, attributes: this.attributes() };
    }
    return out;
  }

  private attributes(): AttributeStructure[] {
    const count = this.u2();
    const out = new Array<AttributeStructure>(count);
    for (let i = 0; i < count; i++) {
      const nameIndex = this.u2();
      const hi = this.u2();
      const length = hi * 0x10000 + this.u2();
      const start = this.at;
      if (start + length > this.bytes.length) {
        throw new ClassFormatError(
          this.entry,
          `truncated at byte ${this.bytes.length} while reading ${this.section}: an attribute of ${length} bytes at byte ${start} runs past the end`,
        );
      }
      // A view, not a copy: attributes are mostly passed through untouched.
      out[i] = { nameIndex, info: this.bytes.subarray(start, start + length) };
      this.at = start + length;
    }
    return out;
  }
}

/**
 * Reads the class file `bytes`, whose magic the caller has checked, to its last byte. Attribute
 * bodies and the constant pool are views of `bytes`.
 */
export function readClassStructure(bytes: Uint8Array, entry: string): ClassStructure {
  const cp = ConstantPool.read(bytes, entry);
  const reader = new StructureReader(bytes, cp.end, entry);
  const c = reader.read(cp, (bytes[4] << 8) | bytes[5], (bytes[6] << 8) | bytes[7]);
  if (reader.offset !== bytes.length) {
    throw new ClassFormatError(entry, `${bytes.length - reader.offset} trailing bytes after the end of the class (at byte ${reader.offset})`);
  }
  return c;
}

function attributesSize(list: readonly AttributeStructure[]): number {
  let n = 2;
  for (const a of list) n += 6 + a.info.length;
  return n;
}

function membersSize(list: readonly MemberStructure[]): number {
  let n = 2;
  for (const m of list) n += 6 + attributesSize(m.attributes);
  return n;
}

/** Writes big-endian values into a buffer sized beforehand. */
class StructureWriter {
  at = 0;
  constructor(readonly out: Uint8Array) {}

  u2(v: number): void {
    this.out[this.at++] = v >>> 8;
    this.out[this.at++] = v;
  }

  u4(v: number): void {
    this.u2(v >>> 16);
    this.u2(v & 0xffff);
  }

  attributes(list: readonly AttributeStructure[]): void {
    this.u2(list.length);
    for (const a of list) {
      this.u2(a.nameIndex);
      this.u4(a.info.length);
      this.out.set(a.info, this.at);
      this.at += a.info.length;
    }
  }

  members(list: readonly MemberStructure[]): void {
    this.u2(list.length);
    for (const m of list) {
      this.u2(m.access);
      this.u2(m.nameIndex);
      this.u2(m.descIndex);
      this.attributes(m.attributes);
    }
  }
}

/** The class file bytes of `c`. Counts and lengths must fit their fields (the caller checks). */
export function writeClassStructure(c: ClassStructure): Uint8Array {
  const size =
    10 + c.cp.byteLength + 8 + 2 * c.interfaceIndices.length + membersSize(c.fields) + membersSize(c.methods) + attributesSize(c.attributes);
  if (size > 0x7fffffff) throw new KomoriumError(`${c.cp.entry}: the class would be ${size} bytes`);
  const w = new StructureWriter(new Uint8Array(size));
  w.u4(0xcafebabe);
  w.u2(c.minor);
  w.u2(c.major);
  w.u2(c.cp.size);
  w.at = c.cp.writeTo(w.out, w.at);
  w.u2(c.access);
  w.u2(c.thisIndex);
  w.u2(c.superIndex);
  w.u2(c.interfaceIndices.length);
  for (const i of c.interfaceIndices) w.u2(i);
  w.members(c.fields);
  w.members(c.methods);
  w.attributes(c.attributes);
  return w.out;
}
