/**
 * Zip (jar) reading and writing with Node's native zlib. jszip inflates and deflates in
 * JavaScript: on guava.jar it took 0.4 s to read and 0.9 s to write, the largest single cost of
 * `instrument` (README, "Why not jszip"). Only what jars use is supported: stored and deflated
 * entries, no encryption; ZIP64 is read, not written.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { KomoriumError } from '../errors.js';

export interface ZipEntry {
  name: string;
  data: Uint8Array;
  isDirectory: boolean;
  date: Date;
  comment: string;
  /** Unix mode bits, when the entry was made on Unix. */
  unixPermissions?: number;
  /** Kept without compression (method 0): Spring Boot's loader reads nested jars in place and requires it. */
  stored?: boolean;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const UTF8_FLAG = 0x0800;

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 of a zip entry; Node >= 20.15 has it natively. */
export function crc32(data: Uint8Array): number {
  const native = (zlib as { crc32?: (d: Uint8Array) => number }).crc32;
  if (native) return native(data) >>> 0;
  let c = -1;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function dosDateTime(d: Date): { date: number; time: number } {
  const y = Math.max(1980, d.getUTCFullYear());
  return {
    date: ((y - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

function fromDos(date: number, time: number): Date {
  return new Date(
    Date.UTC(1980 + (date >> 9), ((date >> 5) & 0xf) - 1, date & 0x1f, time >> 11, (time >> 5) & 0x3f, (time & 0x1f) * 2),
  );
}

/** One central directory record (PKWARE APPNOTE 4.3.12), sizes and offset resolved through a ZIP64 extra field. */
export interface CentralEntry {
  name: string;
  madeBy: number;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  external: number;
  localHeaderOffset: number;
  comment: string;
}

/** Reports a malformed archive; never returns. */
export type ZipProblem = (what: string) => never;

/**
 * Where the central directory is: found from the end of central directory record in `tail`, the
 * file's last bytes (which start at file offset `tailStart`), or from the ZIP64 record that
 * `readAt(offset, length)` reads when the plain record says it overflowed.
 */
export function locateCentralDirectory(
  tail: Buffer,
  tailStart: number,
  readAt: (offset: number, length: number) => Buffer,
  bad: ZipProblem,
): { count: number; size: number; offset: number } {
  let eocd = -1;
  // The record is 22 bytes plus a comment of at most 65,535.
  for (let i = tail.length - 22; i >= Math.max(0, tail.length - 22 - 0xffff); i--) {
    if (tail.readUInt32LE(i) === END) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) bad('no end of central directory record');
  let count = tail.readUInt16LE(eocd + 10);
  let size = tail.readUInt32LE(eocd + 12);
  let offset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || tail.readUInt32LE(locator) !== ZIP64_LOCATOR) bad('bad ZIP64 end of central directory locator');
    const record = readAt(Number(tail.readBigUInt64LE(locator + 8)), 56);
    if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_END) bad('bad ZIP64 end of central directory record');
    count = Number(record.readBigUInt64LE(32));
    size = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (offset + size > tailStart + eocd) bad('central directory out of bounds');
  return { count, size, offset };
}

/** The `count` records of a central directory. */
export function parseCentralDirectory(cd: Buffer, count: number, bad: ZipProblem): CentralEntry[] {
  const entries: CentralEntry[] = [];
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) bad(`bad central directory entry ${n}`);
    const flags = cd.readUInt16LE(p + 8);
    const nameLen = cd.readUInt16LE(p + 28);
    const extraLen = cd.readUInt16LE(p + 30);
    const commentLen = cd.readUInt16LE(p + 32);
    const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
    const entry: CentralEntry = {
      name,
      madeBy: cd.readUInt16LE(p + 4),
      flags,
      method: cd.readUInt16LE(p + 10),
      time: cd.readUInt16LE(p + 12),
      date: cd.readUInt16LE(p + 14),
      crc: cd.readUInt32LE(p + 16),
      compressedSize: cd.readUInt32LE(p + 20),
      uncompressedSize: cd.readUInt32LE(p + 24),
      external: cd.readUInt32LE(p + 38),
      localHeaderOffset: cd.readUInt32LE(p + 42),
      comment: cd.toString(flags & UTF8_FLAG ? 'utf8' : 'latin1', p + 46 + nameLen + extraLen, p + 46 + nameLen + extraLen + commentLen),
    };
    readZip64Extra(cd, p + 46 + nameLen, p + 46 + nameLen + extraLen, entry);
    entries.push(entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** The 64-bit values of a ZIP64 extended information field, for the 32-bit fields that overflowed. */
function readZip64Extra(cd: Buffer, from: number, to: number, e: CentralEntry): void {
  if (e.compressedSize !== 0xffffffff && e.uncompressedSize !== 0xffffffff && e.localHeaderOffset !== 0xffffffff) return;
  for (let q = from; q + 4 <= to; q += 4 + cd.readUInt16LE(q + 2)) {
    if (cd.readUInt16LE(q) !== 0x0001) continue;
    let r = q + 4;
    const next = (): number => {
      const v = Number(cd.readBigUInt64LE(r));
      r += 8;
      return v;
    };
    if (e.uncompressedSize === 0xffffffff) e.uncompressedSize = next();
    if (e.compressedSize === 0xffffffff) e.compressedSize = next();
    if (e.localHeaderOffset === 0xffffffff) e.localHeaderOffset = next();
  }
}

/** Offset of an entry's data, from its 30-byte local header (read at e.localHeaderOffset). */
export function entryDataStart(local: Buffer, e: CentralEntry, bad: ZipProblem): number {
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) bad(`bad local header of entry ${e.name}`);
  return e.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
}

/** An entry's bytes from its stored data, checked against the sizes and CRC of its record. */
export function entryData(raw: Uint8Array, e: CentralEntry, bad: ZipProblem): Uint8Array {
  if (e.flags & 1) bad(`entry ${e.name} is encrypted`);
  let data: Uint8Array;
  if (e.method === 0) data = raw;
  else if (e.method === 8) {
    try {
      // Output sized to the entry (zlib's default 16 KiB chunks left most of each class's buffer unused).
      data = inflateRawSync(raw, { chunkSize: Math.min(Math.max(e.uncompressedSize, 64), 1 << 24) });
    } catch (err) {
      return bad(`entry ${e.name} does not inflate: ${(err as Error).message}`);
    }
  } else return bad(`entry ${e.name} uses compression method ${e.method}`);
  if (data.length !== e.uncompressedSize || crc32(data) !== e.crc) bad(`entry ${e.name} is corrupt (size or CRC mismatch)`);
  return data;
}

/** Reads every entry, in central directory order. Throws KomoriumError naming `path` for anything malformed. */
export function readZip(path: string, bytes: Uint8Array): ZipEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bad = (what: string): never => {
    throw new KomoriumError(`${path}: not a jar (zip) file: ${what}`);
  };
  const cd = locateCentralDirectory(buf, 0, (offset, length) => buf.subarray(offset, offset + length), bad);
  return parseCentralDirectory(buf.subarray(cd.offset, cd.offset + cd.size), cd.count, bad).map((e) => {
    const start = entryDataStart(buf.subarray(e.localHeaderOffset, e.localHeaderOffset + 30), e, bad);
    if (start + e.compressedSize > buf.length) bad(`entry ${e.name} is truncated`);
    const entry: ZipEntry = {
      name: e.name,
      data: entryData(buf.subarray(start, start + e.compressedSize), e, bad),
      isDirectory: e.name.endsWith('/') || (e.external & 0x10) !== 0,
      date: fromDos(e.date, e.time),
      comment: e.comment,
    };
    if (e.method === 0 && entry.data.length > 0) entry.stored = true;
    if (e.madeBy >> 8 === 3 && e.external >>> 16 !== 0) entry.unixPermissions = e.external >>> 16;
    return entry;
  });
}

/**
 * `data` deflated, in a buffer of its own size: zlib returns a small output as a view of its 16 KiB
 * chunk, and a jar's thousands of such views kept every chunk alive until the zip was joined.
 */
function deflated(data: Uint8Array): Uint8Array {
  const out = deflateRawSync(data, { level: 6 });
  return out.byteLength * 2 < out.buffer.byteLength ? new Uint8Array(out) : out;
}

/**
 * A zip of `entries` in the given order, each with its own timestamp or else `date`: the same
 * entries give the same bytes (for the same Node version, whose bundled zlib does the deflating).
 */
export function writeZip(
  entries: readonly { name: string; data: Uint8Array; isDirectory: boolean; comment?: string; stored?: boolean; date?: Date }[],
  date: Date,
): Uint8Array {
  const fallback = dosDateTime(date);
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const { date: dosDate, time: dosTime } = e.date ? dosDateTime(e.date) : fallback;
    const name = Buffer.from(e.isDirectory && !e.name.endsWith('/') ? e.name + '/' : e.name, 'utf8');
    const comment = Buffer.from(e.comment ?? '', 'utf8');
    const flags = /[^\x00-\x7f]/.test(e.name) || /[^\x00-\x7f]/.test(e.comment ?? '') ? UTF8_FLAG : 0;
    const data = e.isDirectory ? new Uint8Array(0) : e.data;
    const method = data.length === 0 || e.stored ? 0 : 8;
    const stored = method === 8 ? deflated(data) : data;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(method === 8 ? 20 : 10, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(CENTRAL, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(method === 8 ? 20 : 10, 6);
    cd.writeUInt16LE(flags, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt16LE(dosTime, 12);
    cd.writeUInt16LE(dosDate, 14);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(stored.length, 20);
    cd.writeUInt32LE(data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt16LE(comment.length, 32);
    cd.writeUInt32LE(e.isDirectory ? 0x10 : 0, 38);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, name, stored);
    central.push(cd, name, comment);
    offset += 30 + name.length + stored.length;
    if (offset > 0xffffffff || entries.length > 0xfffe) throw new KomoriumError('the output jar would need ZIP64, which is not supported');
  }
  const cdSize = central.reduce((s, b) => s + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}
