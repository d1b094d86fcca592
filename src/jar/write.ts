/**
 * Writing the output. A jar is written to a temporary file next to it and renamed into place, so
 * that a failed run never leaves a half-written jar (or destroys the previous one). Entries keep
 * their order and the time the input jar recorded for them, and entries without one (added, or read
 * from a folder) get one fixed timestamp, so the same input always gives the same bytes. The recorded
 * times matter: Clojure loads a namespace's AOT class only when it is newer than its .clj source in
 * the same jar, and compiles the source otherwise, so with one time for all a rewritten Clojure jar
 * ran its namespaces compiled from source, uninstrumented.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { KomoriumError } from '../errors.js';
import { isDirectoryEntry } from './entry.js';
import { writeZip } from './zip.js';
import type { Entry } from './entry.js';
import { writeError } from './fs-errors.js';

/**
 * The timestamp of every output entry that has none of its own, encoded with the UTC getters, so that it gives the same DOS
 * date/time bytes in every time zone. 1980-02-01
 * rather than 1980-01-01: some zip tools turn the very first DOS date into a date before 1980.
 */
export const FIXED_DATE = new Date(Date.UTC(1980, 1, 1, 0, 0, 0));

function tempPath(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** Writes `bytes` to a new temporary file beside `path` and returns its name; removes it on failure. */
async function writeTemp(path: string, bytes: Uint8Array, durable: boolean): Promise<string> {
  const tmp = tempPath(path);
  try {
    const fh = await open(tmp, 'wx');
    try {
      await fh.writeFile(bytes);
      // Without this, a crash shortly after the rename can leave an empty file under the final name.
      if (durable) await fh.sync();
    } finally {
      await fh.close();
    }
    return tmp;
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw writeError(path, e);
  }
}

/** Writes `bytes` to `path` through a temporary file in the same folder and a rename. */
export async function atomicWrite(path: string, bytes: Uint8Array, durable = true): Promise<void> {
  const tmp = await writeTemp(path, bytes, durable);
  try {
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw writeError(path, e);
  }
}

function checkNames(entries: readonly Entry[]): void {
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) throw new KomoriumError(`duplicate entry ${e.name} in the output`);
    seen.add(e.name);
  }
}

/** The jar's bytes: DEFLATE, entries in the given order with their recorded times, contents untouched. */
export async function jarBytes(entries: readonly Entry[]): Promise<Uint8Array> {
  checkNames(entries);
  return writeZip(
    entries.map((e) => ({ name: e.name, data: e.data, isDirectory: isDirectoryEntry(e), comment: e.comment, stored: e.stored, date: e.date })),
    FIXED_DATE,
  );
}

export async function writeJar(path: string, entries: readonly Entry[]): Promise<void> {
  await checkFolder(dirname(resolve(path)), path);
  await atomicWrite(path, await jarBytes(entries));
}

async function checkFolder(dir: string, path: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (e) {
    throw writeError(path, e);
  }
  if (!st.isDirectory()) throw new KomoriumError(`cannot write ${path}: ${dir} is not a folder`);
}

/** `name` under `root`, refusing names that would land outside it ("../x", absolute paths). */
function targetOf(root: string, name: string): string {
  const clean = name.replace(/\/+$/, '');
  const target = resolve(root, clean);
  if (clean === '' || name.startsWith('/') || name.includes('\\') || !target.startsWith(root + sep)) {
    throw new KomoriumError(`refusing to write entry ${JSON.stringify(name)}: it points outside the output folder ${root}`);
  }
  return target;
}

/**
 * Writes the entries as files under `path` (created if its parent exists); files already in the
 * folder that are not entries stay. Every file is written to a temporary file first and only when
 * all of them are written are they renamed into place, so that a failure (a full disk) leaves the
 * folder as it was: the temporary files and the folders this call created are removed.
 */
export async function writeDir(path: string, entries: readonly Entry[]): Promise<void> {
  await writeOutputs([{ path, kind: 'dir', entries }]);
}

/** One output of `instrument`: a jar, or a folder of files. */
export interface Output {
  path: string;
  kind: 'jar' | 'dir';
  entries: readonly Entry[];
  /**
   * The folder that holds several outputs (`instrument a.jar lib/b.jar -d out`): it and the
   * folders between it and `path` are created when missing; its own parent must exist.
   */
  under?: string;
}

/**
 * Writes several outputs as one: every file goes to a temporary file first, and only when all are
 * written are they renamed into place. A failure removes the temporary files and the folders this
 * call created, so no output is half written (the renames themselves are not one atomic step).
 */
export async function writeOutputs(outputs: readonly Output[]): Promise<void> {
  /** The outermost folders this call created (mkdir -p's first created folder). */
  const created: string[] = [];
  const temps: { tmp: string; target: string }[] = [];
  try {
    for (const o of outputs) {
      checkNames(o.entries);
      const root = resolve(o.path);
      if (o.under === undefined) {
        await checkFolder(dirname(root), o.path);
      } else {
        await checkFolder(dirname(resolve(o.under)), o.under);
        await makeFolder(dirname(root), created);
      }
      if (o.kind === 'dir') await writeDirFiles(root, o.path, o.entries, created, temps);
      else temps.push({ tmp: await writeTemp(o.path, await jarBytes(o.entries), true), target: o.path });
    }
    for (const t of temps) {
      try {
        await rename(t.tmp, t.target);
      } catch (e) {
        throw writeError(t.target, e);
      }
    }
  } catch (e) {
    await Promise.allSettled(temps.map((t) => rm(t.tmp, { force: true })));
    for (const d of created.reverse()) await rm(d, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}

/** mkdir -p, remembering the outermost folder it created. */
async function makeFolder(dir: string, created: string[], shown = dir): Promise<void> {
  try {
    const first = await mkdir(dir, { recursive: true });
    if (first !== undefined) created.push(first);
  } catch (e) {
    throw writeError(shown, e);
  }
}

async function writeDirFiles(
  root: string,
  path: string,
  entries: readonly Entry[],
  created: string[],
  temps: { tmp: string; target: string }[],
): Promise<void> {
  await makeFolder(root, created, path);
  const files: { target: string; data: Uint8Array }[] = [];
  const folders = new Set<string>();
  for (const e of entries) {
    const target = targetOf(root, e.name);
    if (isDirectoryEntry(e)) {
      folders.add(target);
    } else {
      files.push({ target, data: e.data });
      if (dirname(target) !== root) folders.add(dirname(target));
    }
  }
  for (const f of [...folders].sort()) await makeFolder(f, created);
  // A few writes in flight hide the per-file latency without exhausting file handles. Every
  // worker stops at the first failure, and all have stopped before the caller cleans up.
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < files.length && !failed) {
      const f = files[next++];
      try {
        temps.push({ tmp: await writeTemp(f.target, f.data, false), target: f.target });
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(8, files.length) }, worker));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
}
