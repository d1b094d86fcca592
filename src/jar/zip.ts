/**
 * Zip (jar) reading and writing with Node's native zlib. jszip inflates and deflates in
 * JavaScript: on guava.jar it took 0.4 s to read and 0.9 s to write, the largest single cost of
 * `instrument` (README, "Why not jszip"). Only what jars use is supported: stored and deflated
 * entries, no encryption, no ZIP64.
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

/** Reads every entry, in central directory order. Throws KomoriumError naming `path` for anything malformed. */
export function readZip(path: string, bytes: Uint8Array): ZipEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bad = (what: string): never => {
    throw new KomoriumError(`${path}: not a jar (zip) file: ${what}`);
  };
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === END) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) bad('no end of central directory record');
  const count = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) bad('ZIP64 archives are not supported');
  if (cdOffset + cdSize > eocd) bad('central directory out of bounds');
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > eocd || buf.readUInt32LE(p) !== CENTRAL) bad(`bad central directory entry ${n}`);
    const madeBy = buf.readUInt16LE(p + 4);
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const time = buf.readUInt16LE(p + 12);
    const date = buf.readUInt16LE(p + 14);
    const crc = buf.readUInt32LE(p + 16);
    const csize = buf.readUInt32LE(p + 20);
    const usize = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const external = buf.readUInt32LE(p + 38);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    const comment = buf.toString(flags & UTF8_FLAG ? 'utf8' : 'latin1', p + 46 + nameLen + extraLen, p + 46 + nameLen + extraLen + commentLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (flags & 1) bad(`entry ${name} is encrypted`);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== LOCAL) bad(`bad local header of entry ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    if (start + csize > buf.length) bad(`entry ${name} is truncated`);
    const raw = buf.subarray(start, start + csize);
    let data: Uint8Array;
    if (method === 0) data = raw;
    else if (method === 8) {
      try {
        // Output sized to the entry (zlib's default 16 KiB chunks left most of each class's buffer unused).
        data = inflateRawSync(raw, { chunkSize: Math.min(Math.max(usize, 64), 1 << 24) });
      } catch (e) {
        return bad(`entry ${name} does not inflate: ${(e as Error).message}`);
      }
    } else return bad(`entry ${name} uses compression method ${method}`);
    if (data.length !== usize || crc32(data) !== crc) bad(`entry ${name} is corrupt (size or CRC mismatch)`);
    const entry: ZipEntry = {
      name,
      data,
      isDirectory: name.endsWith('/') || (external & 0x10) !== 0,
      date: fromDos(date, time),
      comment,
    };
    if (method === 0 && data.length > 0) entry.stored = true;
    if (madeBy >> 8 === 3 && external >>> 16 !== 0) entry.unixPermissions = external >>> 16;
    entries.push(entry);
  }
  return entries;
}

/**
 * A zip of `entries` in the given order, with one fixed timestamp: the same entries give the same
 * bytes (for the same Node version, whose bundled zlib does the deflating).
 */
export function writeZip(
  entries: readonly { name: string; data: Uint8Array; isDirectory: boolean; comment?: string; stored?: boolean }[],
  date: Date,
): Uint8Array {
  const { date: dosDate, time: dosTime } = dosDateTime(date);
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.isDirectory && !e.name.endsWith('/') ? e.name + '/' : e.name, 'utf8');
    const comment = Buffer.from(e.comment ?? '', 'utf8');
    const flags = /[^\x00-\x7f]/.test(e.name) || /[^\x00-\x7f]/.test(e.comment ?? '') ? UTF8_FLAG : 0;
    const data = e.isDirectory ? new Uint8Array(0) : e.data;
    const method = data.length === 0 || e.stored ? 0 : 8;
    const stored = method === 8 ? deflateRawSync(data, { level: 6 }) : data;
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
