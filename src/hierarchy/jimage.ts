/**
 * A reader for the JDK's run-time image file `$JAVA_HOME/lib/modules` (the "jimage" format of
 * JDK 9+, jdk.internal.jimage), so that the class hierarchy can read a JDK class in well under a
 * millisecond without starting a JVM. Only the index is read up front (about 1.5 MB for JDK 17);
 * each resource is read with one positioned read when it is asked for.
 *
 * Layout (header and tables in the platform's byte order, which the magic tells us):
 *   header   u4 magic 0xCAFEDADA, u4 version (major << 16 | minor), u4 flags, u4 resourceCount,
 *            u4 tableLength, u4 locationsSize, u4 stringsSize
 *   redirect s4[tableLength]   perfect-hash redirection
 *   offsets  u4[tableLength]   offset of each location in the locations blob
 *   locations                  attribute streams: byte (kind << 3 | (length - 1)), then `length`
 *                              big-endian value bytes; kind 0 ends the stream
 *   strings                    NUL-terminated (modified) UTF-8 strings
 *   resources                  start at the end of the index; OFFSET is relative to there
 * Compressed resources (jlink --compress) start with a 29-byte header (magic 0xCAFEFAFA). The "zip"
 * decompressor is zlib and is handled here; the "compact-cp" one (string sharing) is not, and such
 * resources raise JImageUnsupportedError so that the caller can fall back to `jimage extract`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { javaName } from '../classfile/names.js';

const IMAGE_MAGIC = 0xcafedada;
const COMPRESSED_MAGIC = 0xcafefafa;
const HEADER_SIZE = 7 * 4;
const HASH_MULTIPLIER = 0x01000193;

const ATTR_END = 0;
const ATTR_MODULE = 1;
const ATTR_PARENT = 2;
const ATTR_BASE = 3;
const ATTR_EXTENSION = 4;
const ATTR_OFFSET = 5;
const ATTR_COMPRESSED = 6;
const ATTR_UNCOMPRESSED = 7;

/** The image cannot be read by this reader (unknown version, compression plugin, ...). */
export class JImageUnsupportedError extends Error {
  override name = 'JImageUnsupportedError';
}

interface Location {
  module: string;
  parent: string;
  base: string;
  extension: string;
  offset: number;
  compressed: number;
  uncompressed: number;
}

export class JImage {
  private readonly fd: number;
  private readonly littleEndian: boolean;
  private readonly tableLength: number;
  private readonly redirect: Int32Array;
  private readonly offsets: Uint32Array;
  private readonly locations: Uint8Array;
  private readonly strings: Uint8Array;
  private readonly indexSize: number;
  private readonly stringCache = new Map<number, string>();
  /** package (with '/') → module name, or null when no module has it. */
  private readonly packageModule = new Map<string, string | null>();
  readonly version: string;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    try {
      const header = Buffer.alloc(HEADER_SIZE);
      readSync(this.fd, header, 0, HEADER_SIZE, 0);
      if (header.readUInt32LE(0) === IMAGE_MAGIC) this.littleEndian = true;
      else if (header.readUInt32BE(0) === IMAGE_MAGIC) this.littleEndian = false;
      else throw new JImageUnsupportedError(`${path}: not a jimage file (bad magic)`);
      const u4 = (o: number) => (this.littleEndian ? header.readUInt32LE(o) : header.readUInt32BE(o));
      const version = u4(4);
      const major = version >>> 16;
      const minor = version & 0xffff;
      this.version = `${major}.${minor}`;
      if (major !== 1) throw new JImageUnsupportedError(`${path}: jimage version ${this.version} is not supported`);
      this.tableLength = u4(16);
      const locationsSize = u4(20);
      const stringsSize = u4(24);
      const tablesSize = this.tableLength * 8;
      this.indexSize = HEADER_SIZE + tablesSize + locationsSize + stringsSize;
      const index = Buffer.alloc(this.indexSize - HEADER_SIZE);
      readSync(this.fd, index, 0, index.length, HEADER_SIZE);
      // Copy the tables into typed arrays in host order once; lookups then cost no byte swapping.
      this.redirect = new Int32Array(this.tableLength);
      this.offsets = new Uint32Array(this.tableLength);
      for (let i = 0; i < this.tableLength; i++) {
        this.redirect[i] = this.littleEndian ? index.readInt32LE(i * 4) : index.readInt32BE(i * 4);
        const o = this.tableLength * 4 + i * 4;
        this.offsets[i] = this.littleEndian ? index.readUInt32LE(o) : index.readUInt32BE(o);
      }
      this.locations = index.subarray(tablesSize, tablesSize + locationsSize);
      this.strings = index.subarray(tablesSize + locationsSize, tablesSize + locationsSize + stringsSize);
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The bytes of a class, by internal name (java/lang/String), or null when no module has it. */
  readClass(internalName: string): Uint8Array | null {
    const slash = internalName.lastIndexOf('/');
    const pkg = slash < 0 ? '' : internalName.substring(0, slash);
    const module = this.moduleOf(pkg);
    if (module === null) return null;
    return this.read(`/${module}/${internalName}.class`);
  }

  /** The module that holds a package, from the image's /packages/<pkg> resources. */
  moduleOf(pkg: string): string | null {
    let m = this.packageModule.get(pkg);
    if (m !== undefined) return m;
    m = null;
    // /packages/java.lang holds pairs (u4 isEmpty, u4 module name offset) in image byte order;
    // a package can be split only in the sense that empty entries exist for modules that merely
    // declare the directory, so the first non-empty module wins.
    const data = pkg === '' ? null : this.read(`/packages/${javaName(pkg)}`);
    if (data !== null) {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      let fallback: string | null = null;
      for (let i = 0; i + 8 <= data.length; i += 8) {
        const isEmpty = view.getUint32(i, this.littleEndian);
        const name = this.string(view.getUint32(i + 4, this.littleEndian));
        if (isEmpty === 0) {
          m = name;
          break;
        }
        fallback ??= name;
      }
      m ??= fallback;
    }
    this.packageModule.set(pkg, m);
    return m;
  }

  /** The file's first bytes (header and the start of its index): with its size, they tell one build of an image from another. */
  headerBytes(): Uint8Array {
    const b = Buffer.alloc(4096);
    const n = readSync(this.fd, b, 0, b.length, 0);
    return b.subarray(0, n);
  }

  /** The names of a module's classes (java/lang/String), in the image's order. */
  classNames(module: string): string[] {
    const names: string[] = [];
    for (let i = 0; i < this.tableLength; i++) {
      const loc = this.decodeLocation(this.offsets[i]!);
      if (loc.module !== module || loc.extension !== 'class' || loc.base === 'module-info') continue;
      names.push(loc.parent === '' ? loc.base : `${loc.parent}/${loc.base}`);
    }
    return names;
  }

  /** The bytes of a resource by its full image name (/java.base/java/lang/String.class), or null. */
  read(name: string): Uint8Array | null {
    const loc = this.find(name);
    if (loc === null) return null;
    const pos = this.indexSize + loc.offset;
    if (loc.compressed === 0) {
      const buf = Buffer.alloc(loc.uncompressed);
      readSync(this.fd, buf, 0, buf.length, pos);
      return buf;
    }
    const buf = Buffer.alloc(loc.compressed);
    readSync(this.fd, buf, 0, buf.length, pos);
    return this.decompress(name, buf, loc.uncompressed);
  }

  private decompress(name: string, data: Buffer, expected: number): Uint8Array {
    // Resources may be compressed more than once (plugins stack); each layer has its own header.
    let bytes: Buffer = data;
    for (;;) {
      if (bytes.length < 29) return bytes;
      const magic = this.littleEndian ? bytes.readUInt32LE(0) : bytes.readUInt32BE(0);
      if (magic !== COMPRESSED_MAGIC) return bytes;
      const rd8 = (o: number) => Number(this.littleEndian ? bytes.readBigUInt64LE(o) : bytes.readBigUInt64BE(o));
      const compressedSize = rd8(4);
      const uncompressedSize = rd8(12);
      const decompressor = this.string(this.littleEndian ? bytes.readUInt32LE(20) : bytes.readUInt32BE(20));
      const payload = bytes.subarray(29, 29 + compressedSize);
      if (decompressor !== 'zip') {
        throw new JImageUnsupportedError(`${this.path}: ${name} uses the '${decompressor}' compression, which this reader does not decode`);
      }
      bytes = inflateSync(payload);
      if (bytes.length !== uncompressedSize) {
        throw new JImageUnsupportedError(`${this.path}: ${name} inflated to ${bytes.length} bytes, expected ${uncompressedSize}`);
      }
      if (bytes.length === expected) return bytes;
    }
  }

  private find(name: string): Location | null {
    const utf8 = Buffer.from(name, 'utf8');
    let index = hash(utf8, HASH_MULTIPLIER) % this.tableLength;
    const value = this.redirect[index]!;
    if (value < 0) index = -1 - value;
    else if (value > 0) index = hash(utf8, value) % this.tableLength;
    else return null;
    const loc = this.decodeLocation(this.offsets[index]!);
    // The perfect hash maps every name somewhere; only the stored name proves a hit.
    return fullName(loc) === name ? loc : null;
  }

  private decodeLocation(offset: number): Location {
    const loc: Location = { module: '', parent: '', base: '', extension: '', offset: 0, compressed: 0, uncompressed: 0 };
    const b = this.locations;
    let i = offset;
    while (i < b.length) {
      const byte = b[i++]!;
      const kind = byte >>> 3;
      if (kind === ATTR_END) break;
      const length = (byte & 7) + 1;
      let value = 0;
      for (let k = 0; k < length; k++) value = value * 256 + b[i++]!;
      switch (kind) {
        case ATTR_MODULE: loc.module = this.string(value); break;
        case ATTR_PARENT: loc.parent = this.string(value); break;
        case ATTR_BASE: loc.base = this.string(value); break;
        case ATTR_EXTENSION: loc.extension = this.string(value); break;
        case ATTR_OFFSET: loc.offset = value; break;
        case ATTR_COMPRESSED: loc.compressed = value; break;
        case ATTR_UNCOMPRESSED: loc.uncompressed = value; break;
        default: break;
      }
    }
    return loc;
  }

  private string(offset: number): string {
    let s = this.stringCache.get(offset);
    if (s === undefined) {
      let end = offset;
      while (end < this.strings.length && this.strings[end] !== 0) end++;
      s = Buffer.from(this.strings.buffer, this.strings.byteOffset + offset, end - offset).toString('utf8');
      this.stringCache.set(offset, s);
    }
    return s;
  }
}

function fullName(loc: Location): string {
  let s = '';
  if (loc.module !== '') s += `/${loc.module}/`;
  if (loc.parent !== '') s += `${loc.parent}/`;
  s += loc.base;
  if (loc.extension !== '') s += `.${loc.extension}`;
  return s;
}

/** jdk.internal.jimage.ImageStringsReader.hashCode: FNV-1a-like over the UTF-8 bytes, 31 bits. */
function hash(bytes: Uint8Array, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h, HASH_MULTIPLIER) ^ bytes[i]!;
  return h & 0x7fffffff;
}
