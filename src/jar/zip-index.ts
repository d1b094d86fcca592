/**
 * Random access to single entries of a jar, synchronously. The class hierarchy is asked about a
 * class in the middle of a (synchronous) frame computation, and it needs a handful of classes out
 * of jars that may hold thousands, so it reads the central directory once and inflates only the
 * entries asked for. (readZip reads whole jars, in order, for the classes being rewritten.)
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { KomoriumError } from '../errors.js';
import { entryData, entryDataStart, locateCentralDirectory, parseCentralDirectory, type CentralEntry } from './zip.js';

export class ZipIndex {
  private readonly fd: number;
  readonly entries = new Map<string, CentralEntry>();

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
    const start = entryDataStart(this.readAt(e.localHeaderOffset, 30), e, this.bad);
    return entryData(this.readAt(start, e.compressedSize), e, this.bad);
  }

  private readonly bad = (what: string): never => {
    throw new KomoriumError(`${this.path}: not a jar (zip) file: ${what}`);
  };

  private readAt(offset: number, length: number): Buffer {
    const b = Buffer.alloc(length);
    const n = readSync(this.fd, b, 0, length, offset);
    return n === length ? b : b.subarray(0, n);
  }

  private readCentralDirectory(): void {
    const size = fstatSync(this.fd).size;
    const tailLen = Math.min(size, 22 + 0xffff);
    const cd = locateCentralDirectory(this.readAt(size - tailLen, tailLen), size - tailLen, (o, l) => this.readAt(o, l), this.bad);
    // The first of a repeated name is the one a JVM's class path resolves.
    for (const e of parseCentralDirectory(this.readAt(cd.offset, cd.size), cd.count, this.bad)) {
      if (!this.entries.has(e.name)) this.entries.set(e.name, e);
    }
  }
}
