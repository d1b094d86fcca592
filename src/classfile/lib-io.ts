/**
 * java-class-tools' reader and writer, narrowed to the class structure: every attribute is kept
 * as raw bytes (so unknown, odd or fuzzed attributes cannot trip the lib's decoders and pass
 * through unchanged), and byte runs (Utf8 constants, attribute bodies) are sliced or copied in
 * one go instead of the lib's per-byte loops, which dominated parse and write time. The lib still
 * reads and writes the constant pool entries (in its entry shape) and writes the member arrays;
 * the top level (read/write) is our own so that it can use a Cursor and say where a read failed.
 *
 * Failures are reported as FormatProblem with the byte offset and the part being read, so that
 * classfile.ts can turn them into a ClassFormatError naming the entry.
 */
import { JavaClassFileReader, JavaClassFileWriter } from 'java-class-tools';
import { CONSTANT } from './model.js';
import type { CpEntry } from './constant-pool.js';

/**
 * Stands in for the lib's bytebuffer ByteBuffer (it only calls readUintN/writeUintN on it). The
 * lib wraps its input with `new Buffer()`, whose deprecation check captures a stack trace per call
 * (most of the parse time of a small class), and asserts on every read; this does neither.
 */
class Cursor {
  offset = 0;
  constructor(
    public buffer: Uint8Array,
    public limit: number,
  ) {}

  private need(n: number): void {
    if (this.offset + n > this.limit) throw new RangeError(`Illegal offset: ${this.offset} (+${n}) > ${this.limit}`);
  }

  readUint8(): number {
    this.need(1);
    return this.buffer[this.offset++];
  }

  readUint16(): number {
    this.need(2);
    const b = this.buffer;
    const o = this.offset;
    this.offset = o + 2;
    return (b[o] << 8) | b[o + 1];
  }

  readUint32(): number {
    this.need(4);
    const b = this.buffer;
    const o = this.offset;
    this.offset = o + 4;
    return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
  }

  ensureCapacity(capacity: number): void {
    if (capacity <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(capacity, this.buffer.length * 2));
    grown.set(this.buffer.subarray(0, this.offset));
    this.buffer = grown;
    this.limit = grown.length;
  }

  writeUint8(v: number): void {
    this.ensureCapacity(this.offset + 1);
    this.buffer[this.offset++] = v;
  }

  writeUint16(v: number): void {
    this.ensureCapacity(this.offset + 2);
    const b = this.buffer;
    const o = this.offset;
    b[o] = v >>> 8;
    b[o + 1] = v;
    this.offset = o + 2;
  }

  writeUint32(v: number): void {
    this.ensureCapacity(this.offset + 4);
    const b = this.buffer;
    const o = this.offset;
    b[o] = v >>> 24;
    b[o + 1] = v >>> 16;
    b[o + 2] = v >>> 8;
    b[o + 3] = v;
    this.offset = o + 4;
  }
}

/** attribute_info with the body kept raw (the lib's shape for unknown attributes). */
export interface LibAttribute {
  attribute_name_index: number;
  attribute_length: number;
  info: Uint8Array;
}

export interface LibMember {
  access_flags: number;
  name_index: number;
  descriptor_index: number;
  attributes_count: number;
  attributes: LibAttribute[];
}

export interface LibClass {
  minor_version: number;
  major_version: number;
  constant_pool_count: number;
  constant_pool: (CpEntry | undefined)[];
  access_flags: number;
  this_class: number;
  super_class: number;
  interfaces_count: number;
  interfaces: number[];
  fields_count: number;
  fields: LibMember[];
  methods_count: number;
  methods: LibMember[];
  attributes_count: number;
  attributes: LibAttribute[];
}

export class FormatProblem extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

const KNOWN_TAGS = new Set<number>(Object.values(CONSTANT));

interface LibReaderInternals {
  _readConstantPoolEntry(): CpEntry;
}

interface LibWriterInternals {
  _writeConstantPool(pool: (CpEntry | undefined)[]): void;
  _writeConstantPoolEntry(e: CpEntry): void;
  _writeInterfaces(interfaces: number[]): void;
  _writeMemberInfoArray(members: LibMember[]): void;
  _writeAttributeInfoArray(attributes: LibAttribute[]): void;
}

/**
 * The lib's reader with its own top level (to read from a Cursor and track what is being read)
 * and raw attributes; constant pool entries are read by the lib.
 */
export class RawClassReader extends JavaClassFileReader {
  buf!: Cursor;
  /** What was being read, for truncation messages. */
  section = 'the class header';

  /** Offset reached, valid after read() and after a failure. */
  get offset(): number {
    return this.buf ? this.buf.offset : 0;
  }

  /** Reads one class from bytes[0..]; the caller checks that it ends at bytes.length. */
  readClass(bytes: Uint8Array): LibClass {
    this.buf = new Cursor(bytes, bytes.length);
    const b = this.buf;
    b.readUint32(); // magic, checked by the caller
    const minor = b.readUint16();
    const major = b.readUint16();
    const cpCount = b.readUint16();
    const pool = this._readConstantPool(cpCount - 1);
    this.section = 'the class header (access_flags, this_class, super_class)';
    const access = b.readUint16();
    const thisClass = b.readUint16();
    const superClass = b.readUint16();
    this.section = 'the interfaces';
    const interfacesCount = b.readUint16();
    const interfaces = this._readInterfaces(interfacesCount);
    this.section = 'the fields count';
    const fieldsCount = b.readUint16();
    const fields = this._readMemberInfoArray(fieldsCount, 'field');
    this.section = 'the methods count';
    const methodsCount = b.readUint16();
    const methods = this._readMemberInfoArray(methodsCount, 'method');
    this.section = 'the class attributes';
    const attributesCount = b.readUint16();
    const attributes = this._readAttributeInfoArray(attributesCount);
    return {
      minor_version: minor,
      major_version: major,
      constant_pool_count: cpCount,
      constant_pool: pool,
      access_flags: access,
      this_class: thisClass,
      super_class: superClass,
      interfaces_count: interfacesCount,
      interfaces,
      fields_count: fieldsCount,
      fields,
      methods_count: methodsCount,
      methods,
      attributes_count: attributesCount,
      attributes,
    };
  }

  /** A u2/u4-prefixed run as a view, failing with a clear message when it runs past the end. */
  private take(length: number, what: string): Uint8Array {
    const b = this.buf;
    if (b.offset + length > b.limit) {
      throw new FormatProblem(
        `truncated at byte ${b.limit} while reading ${this.section}: ${what} of ${length} bytes at byte ${b.offset} runs past the end`,
      );
    }
    // A view, not a copy: attributes are mostly passed through untouched.
    const v = b.buffer.subarray(b.offset, b.offset + length);
    b.offset += length;
    return v;
  }

  _readConstantPool(poolCount: number): (CpEntry | undefined)[] {
    const count = poolCount + 1;
    if (count < 1) throw new FormatProblem('constant_pool_count is 0 (must be at least 1)');
    const pool: (CpEntry | undefined)[] = new Array(count);
    const lib = this as unknown as LibReaderInternals;
    const b = this.buf;
    this.section = 'the constant pool';
    let i = 1;
    try {
      for (; i < count; i++) {
        const at = b.offset;
        const tag = b.buffer[at];
        if (at < b.limit && !KNOWN_TAGS.has(tag)) {
          throw new FormatProblem(`bad constant pool tag ${tag} at index ${i} (byte ${at})`);
        }
        const e = lib._readConstantPoolEntry();
        pool[i] = e;
        if (e.tag === CONSTANT.Long || e.tag === CONSTANT.Double) {
          if (i + 1 >= count) {
            const kind = e.tag === CONSTANT.Long ? 'Long' : 'Double';
            throw new FormatProblem(`constant pool index ${i} is a ${kind} without room for its second slot`);
          }
          pool[++i] = undefined;
        }
      }
    } catch (e) {
      if (e instanceof RangeError) {
        throw new FormatProblem(`truncated at byte ${b.limit} while reading the constant pool (entry ${i} of ${count - 1})`);
      }
      throw e;
    }
    return pool;
  }

  _readUtf8PoolEntry(tag: number): CpEntry {
    const length = this.buf.readUint16();
    return { tag, length, bytes: this.take(length, 'a Utf8 constant') };
  }

  _readInterfaces(count: number): number[] {
    const out = new Array<number>(count);
    for (let i = 0; i < count; i++) out[i] = this.buf.readUint16();
    return out;
  }

  _readMemberInfoArray(count: number, kind: string): LibMember[] {
    const members = new Array<LibMember>(count);
    const b = this.buf;
    for (let i = 0; i < count; i++) {
      this.section = `${kind} ${i + 1} of ${count}`;
      const access = b.readUint16();
      const name = b.readUint16();
      const desc = b.readUint16();
      const attributesCount = b.readUint16();
      members[i] = {
        access_flags: access,
        name_index: name,
        descriptor_index: desc,
        attributes_count: attributesCount,
        attributes: this._readAttributeInfoArray(attributesCount),
      };
    }
    return members;
  }

  _readAttributeInfoArray(count: number): LibAttribute[] {
    const out = new Array<LibAttribute>(count);
    for (let i = 0; i < count; i++) out[i] = this._readAttributeInfo();
    return out;
  }

  _readAttributeInfo(): LibAttribute {
    const nameIndex = this.buf.readUint16();
    const length = this.buf.readUint32();
    return { attribute_name_index: nameIndex, attribute_length: length, info: this.take(length, 'an attribute') };
  }
}

/** Exact size of the class file `c` will be written as, so the output buffer never grows. */
function classSize(c: LibClass): number {
  let n = 10 + 8 + 2 * c.interfaces.length + 6;
  for (let i = 1; i < c.constant_pool.length; i++) {
    const e = c.constant_pool[i];
    if (e === undefined) continue;
    switch (e.tag) {
      case CONSTANT.Utf8:
        n += 3 + (e.bytes as ArrayLike<number>).length;
        break;
      case CONSTANT.Long:
      case CONSTANT.Double:
        n += 9;
        break;
      case CONSTANT.Class:
      case CONSTANT.String:
      case CONSTANT.MethodType:
      case CONSTANT.Module:
      case CONSTANT.Package:
        n += 3;
        break;
      case CONSTANT.MethodHandle:
        n += 4;
        break;
      default:
        n += 5;
    }
  }
  const attrs = (list: LibAttribute[]): number => list.reduce((s, a) => s + 6 + a.info.length, 0);
  for (const m of c.fields) n += 8 + attrs(m.attributes);
  for (const m of c.methods) n += 8 + attrs(m.attributes);
  return n + attrs(c.attributes);
}

/** The lib's writer with its own top level (writing into a Cursor) and raw attributes. */
export class RawClassWriter extends JavaClassFileWriter {
  buf!: Cursor;

  private putBytes(bytes: ArrayLike<number>): void {
    const b = this.buf;
    const n = bytes.length;
    b.ensureCapacity(b.offset + n);
    if (bytes instanceof Uint8Array) {
      b.buffer.set(bytes, b.offset);
    } else {
      for (let i = 0; i < n; i++) b.buffer[b.offset + i] = bytes[i];
    }
    b.offset += n;
  }

  _writeAttributeInfo(a: LibAttribute): void {
    this.buf.writeUint16(a.attribute_name_index);
    this.buf.writeUint32(a.info.length);
    this.putBytes(a.info);
  }

  _writeConstantPoolEntry(e: CpEntry): void {
    if (e.tag === CONSTANT.Utf8) {
      const bytes = e.bytes as ArrayLike<number>;
      this.buf.writeUint8(e.tag);
      this.buf.writeUint16(bytes.length);
      this.putBytes(bytes);
      return;
    }
    (JavaClassFileWriter.prototype as unknown as LibWriterInternals)._writeConstantPoolEntry.call(this, e);
  }

  writeClass(c: LibClass): Uint8Array {
    const size = classSize(c);
    this.buf = new Cursor(new Uint8Array(size), size);
    const b = this.buf;
    const lib = this as unknown as LibWriterInternals;
    b.writeUint32(0xcafebabe);
    b.writeUint16(c.minor_version);
    b.writeUint16(c.major_version);
    b.writeUint16(c.constant_pool_count);
    lib._writeConstantPool(c.constant_pool);
    b.writeUint16(c.access_flags);
    b.writeUint16(c.this_class);
    b.writeUint16(c.super_class);
    b.writeUint16(c.interfaces_count);
    lib._writeInterfaces(c.interfaces);
    b.writeUint16(c.fields_count);
    lib._writeMemberInfoArray(c.fields);
    b.writeUint16(c.methods_count);
    lib._writeMemberInfoArray(c.methods);
    b.writeUint16(c.attributes_count);
    lib._writeAttributeInfoArray(c.attributes);
    return b.offset === b.buffer.length ? b.buffer : b.buffer.slice(0, b.offset);
  }
}
