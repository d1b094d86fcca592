/** Reading the input: a jar (any zip) or a folder of class files, as entries in their original order. */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KomoriumError } from '../errors.js';
import { isClassName } from './entry.js';
import { readZip } from './zip.js';
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
  const entries = readZip(path, data).map((z) => {
    const entry: Entry = {
      name: z.name,
      data: z.data,
      isClass: !z.isDirectory && isClassName(z.name),
      isDirectory: z.isDirectory,
      date: z.date,
    };
    if (z.unixPermissions !== undefined) entry.unixPermissions = z.unixPermissions;
    if (z.comment) entry.comment = z.comment;
    if (z.stored) entry.stored = true;
    return entry;
  });
  return withoutRepeats(path, entries);
}

/**
 * A zip may hold two entries of one name (Debian's kotlin-compiler jar has `com/` twice, from jars
 * merged by concatenation). A repeated folder, or a repeated file with the same bytes, is dropped
 * where it repeats. A repeated file with other bytes is refused: which of the two a JVM loads depends
 * on its zip reader, so there is no one program to profile.
 */
function withoutRepeats(path: string, entries: Entry[]): Entry[] {
  const first = new Map<string, Entry>();
  const out: Entry[] = [];
  for (const e of entries) {
    const seen = first.get(e.name);
    if (!seen) {
      first.set(e.name, e);
      out.push(e);
    } else if (!(seen.isDirectory && e.isDirectory) && !Buffer.from(seen.data).equals(e.data)) {
      throw new KomoriumError(`${path}: two entries named ${e.name} with different contents; which one a JVM loads depends on its zip reader`);
    }
  }
  return out;
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
        // No date: a file's mtime is when it was checked out or built, and would make the output vary.
        entries.push({ name: rel + '/', data: new Uint8Array(0), isClass: false, isDirectory: true });
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
          unixPermissions: st.mode & 0o7777,
        });
      }
      // Sockets, FIFOs and devices are not part of a class folder (and reading a FIFO would block).
    }
  }

  await walk(root, '');
  return entries;
}
