/**
 * Random access to single entries of a jar, synchronously. The class hierarchy is asked about a
 * class in the middle of a (synchronous) frame computation, and it needs a handful of classes out
 * of jars that may hold thousands, so it reads the central directory once and inflates only the
 * entries asked for. (src/jar reads whole jars, in order, for the classes being rewritten.)
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { KomoriumError } from '../errors.js';

interface ZipEntryRef {
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export class ZipIndex {
  private readonly fd: number;
  readonly entries = new Map<string, ZipEntryRef>();

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
    try {
      this.readCentralDirectory();
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  read(name: string): Uint8Array | null {
    const e = this.entries.get(name);
    if (e === undefined) return null;
    const local = Buffer.alloc(30);
    readSync(this.fd, local, 0, 30, e.localHeaderOffset);
    if (local.readUInt32LE(0) !== 0x04034b50) throw new KomoriumError(`${this.path}: bad local header for ${name}`);
    const dataStart = e.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const data = Buffer.alloc(e.compressedSize);
    readSync(this.fd, data, 0, data.length, dataStart);
    if (e.method === 0) return data;
    if (e.method === 8) return inflateRawSync(data);
    throw new KomoriumError(`${this.path}: entry ${name} uses unsupported compression method ${e.method}`);
  }

  private readCentralDirectory(): void {
    const size = fstatSync(this.fd).size;
    // The end-of-central-directory record is in the last 22 + 65,535 (comment) bytes.
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLen);
    readSync(this.fd, tail, 0, tailLen, size - tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new KomoriumError(`${this.path}: not a zip/jar file (no end of central directory)`);
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || cdOffset === 0xffffffff) {
      // Zip64: the locator sits just before the EOCD record.
      const loc = eocd - 20;
      if (loc < 0 || tail.readUInt32LE(loc) !== 0x07064b50) throw new KomoriumError(`${this.path}: bad zip64 locator`);
      const rec = Buffer.alloc(56);
      readSync(this.fd, rec, 0, 56, Number(tail.readBigUInt64LE(loc + 8)));
      count = Number(rec.readBigUInt64LE(32));
      cdSize = Number(rec.readBigUInt64LE(40));
      cdOffset = Number(rec.readBigUInt64LE(48));
    }
    const cd = Buffer.alloc(cdSize);
    readSync(this.fd, cd, 0, cdSize, cdOffset);
    let p = 0;
    for (let n = 0; n < count && p + 46 <= cd.length; n++) {
      if (cd.readUInt32LE(p) !== 0x02014b50) throw new KomoriumError(`${this.path}: bad central directory entry`);
      const method = cd.readUInt16LE(p + 10);
      let compressedSize = cd.readUInt32LE(p + 20);
      let uncompressedSize = cd.readUInt32LE(p + 24);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      let localHeaderOffset = cd.readUInt32LE(p + 42);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
      if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
        let q = p + 46 + nameLen;
        const end = q + extraLen;
        while (q + 4 <= end) {
          const id = cd.readUInt16LE(q);
          const len = cd.readUInt16LE(q + 2);
          if (id === 0x0001) {
            let r = q + 4;
            if (uncompressedSize === 0xffffffff) { uncompressedSize = Number(cd.readBigUInt64LE(r)); r += 8; }
            if (compressedSize === 0xffffffff) { compressedSize = Number(cd.readBigUInt64LE(r)); r += 8; }
            if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(cd.readBigUInt64LE(r));
          }
          q += 4 + len;
        }
      }
      if (!this.entries.has(name)) this.entries.set(name, { method, compressedSize, uncompressedSize, localHeaderOffset });
      p += 46 + nameLen + extraLen + commentLen;
    }
  }
}
