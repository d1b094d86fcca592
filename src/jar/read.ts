/** Reading the input: a jar (any zip) or a folder of class files, as entries in their original order. */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import JSZip from 'jszip';
import { KomoriumError } from '../errors.js';
import { isArrayIndex, isClassName } from './entry.js';
import type { Entry, Input } from './entry.js';
import { readError } from './fs-errors.js';

export async function readInput(path: string): Promise<Input> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw readError(path, e);
  }
  if (st.isDirectory()) return { kind: 'dir', entries: await readFolder(path) };
  if (!st.isFile()) throw new KomoriumError(`${path}: not a jar (zip) file or a folder`);
  let data: Uint8Array;
  try {
    data = await readFile(path);
  } catch (e) {
    throw readError(path, e);
  }
  return { kind: 'jar', entries: await readJar(path, data) };
}

export async function readJar(path: string, data: Uint8Array): Promise<Entry[]> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(data, { createFolders: false });
  } catch (e) {
    throw new KomoriumError(`${path}: not a jar (zip) file: ${e instanceof Error ? e.message : String(e)}`);
  }
  let names = Object.keys(zip.files);
  if (names.some(isArrayIndex)) names = centralDirectoryOrder(data, names);
  const entries: Entry[] = [];
  for (const name of names) {
    const f = zip.files[name];
    let bytes: Uint8Array;
    try {
      bytes = f.dir ? new Uint8Array(0) : await f.async('uint8array');
    } catch (e) {
      throw new KomoriumError(`${path}: cannot read entry ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const entry: Entry = {
      name,
      data: bytes,
      isClass: !f.dir && isClassName(name),
      isDirectory: f.dir,
      date: f.date,
    };
    if (typeof f.unixPermissions === 'number') entry.unixPermissions = f.unixPermissions;
    if (f.comment) entry.comment = f.comment;
    entries.push(entry);
  }
  return entries;
}

/**
 * `names` (jszip's, whose object keys put array-index names like "42" first) in central directory
 * order. Names the scan cannot match keep jszip's order, after the others.
 */
function centralDirectoryOrder(data: Uint8Array, names: string[]): string[] {
  const known = new Set(names);
  const ordered: string[] = [];
  const seen = new Set<string>();
  try {
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let eocd = -1;
    for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
      if (dv.getUint32(i, true) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd >= 0) {
      let count = dv.getUint16(eocd + 10, true);
      let offset = dv.getUint32(eocd + 16, true);
      if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && dv.getUint32(eocd - 20, true) === 0x07064b50) {
        const z64 = Number(dv.getBigUint64(eocd - 20 + 8, true));
        count = Number(dv.getBigUint64(z64 + 32, true));
        offset = Number(dv.getBigUint64(z64 + 48, true));
      }
      const utf8 = new TextDecoder();
      for (let n = 0, p = offset; n < count && dv.getUint32(p, true) === 0x02014b50; n++) {
        const nameLen = dv.getUint16(p + 28, true);
        const extraLen = dv.getUint16(p + 30, true);
        const commentLen = dv.getUint16(p + 32, true);
        const name = utf8.decode(data.subarray(p + 46, p + 46 + nameLen));
        if (known.has(name) && !seen.has(name)) {
          seen.add(name);
          ordered.push(name);
        }
        p += 46 + nameLen + extraLen + commentLen;
      }
    }
  } catch {
    // A directory the scan cannot follow: keep what it found, then jszip's order.
  }
  for (const name of names) if (!seen.has(name)) ordered.push(name);
  return ordered;
}

/** A class folder, walked depth-first with names in code-unit order, so the order does not depend on the file system. */
export async function readFolder(root: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  const visited = new Set<string>();

  async function walk(dir: string, prefix: string): Promise<void> {
    let real: string;
    let names: string[];
    try {
      real = await realpath(dir);
      names = await readdir(dir);
    } catch (e) {
      throw readError(dir, e);
    }
    if (visited.has(real)) return; // a symbolic link back up the tree
    visited.add(real);
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      const full = join(dir, name);
      const rel = prefix + name;
      let st;
      try {
        st = await stat(full);
      } catch (e) {
        throw readError(full, e);
      }
      if (st.isDirectory()) {
        entries.push({ name: rel + '/', data: new Uint8Array(0), isClass: false, isDirectory: true, date: st.mtime });
        await walk(full, rel + '/');
      } else if (st.isFile()) {
        let data: Uint8Array;
        try {
          data = await readFile(full);
        } catch (e) {
          throw readError(full, e);
        }
        entries.push({
          name: rel,
          data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
          isClass: isClassName(rel),
          isDirectory: false,
          date: st.mtime,
          unixPermissions: st.mode & 0o7777,
        });
      }
      // Sockets, FIFOs and devices are not part of a class folder (and reading a FIFO would block).
    }
  }

  await walk(root, '');
  return entries;
}
