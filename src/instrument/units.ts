/**
 * What `instrument` reads as one program: each jar or class folder given (`instrument a.jar b.jar
 * -d out`), and the libraries nested in them that a known loader puts on the class path (Spring
 * Boot's BOOT-INF/lib/*.jar, a web application's WEB-INF/lib/*.jar: src/jar/layout.ts). Each is a
 * unit with its own output: a file or folder for what was given, the same entry of its archive for
 * a nested jar. The jars the given jars' manifests name on their Class-Path, and that are not given
 * themselves, are read for the class hierarchy only.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { KomoriumError } from '../errors.js';
import {
  JAR_NAME,
  classPathFile,
  isManifest,
  isNestedLibrary,
  isWebArchive,
  manifestClassPath,
  readInput,
  readJar,
  withClassPath,
  type Entry,
} from '../jar/index.js';

export interface Unit {
  /** How messages name it: its path, or `outer.jar!/BOOT-INF/lib/x.jar`. */
  label: string;
  /** Put before an entry's name in messages: '' for the only input, `label!/` otherwise. */
  prefix: string;
  entries: Entry[];
  /** Given units: where the output goes and in which form. */
  output?: { path: string; kind: 'jar' | 'dir' };
  /** Nested units: the archive and entry they came from (and go back into). */
  parent?: { unit: Unit; entry: Entry };
  /** A web application: only WEB-INF/classes/ and WEB-INF/lib/ are its program. */
  web: boolean;
  /** Read from a jar (a folder's manifest means nothing to the JVM). */
  archive: boolean;
}

/** A folder input is written as a folder, unless the output is named as a jar. */
function outputKind(inputKind: 'jar' | 'dir', output: string): 'jar' | 'dir' {
  return inputKind === 'dir' && !JAR_NAME.test(output) ? 'dir' : 'jar';
}

export async function readUnits(
  inputs: readonly { input: string; output: string }[],
  skipBroken: boolean,
  warnings: string[],
): Promise<Unit[]> {
  const units: Unit[] = [];
  for (const { input, output } of inputs) {
    const read = await readInput(input);
    const top: Unit = {
      label: input,
      prefix: inputs.length > 1 ? `${input}!/` : '',
      entries: read.entries,
      output: { path: output, kind: outputKind(read.kind, output) },
      web: isWebArchive(read.entries),
      archive: read.kind === 'jar',
    };
    units.push(top);
    if (read.kind === 'jar') units.push(...(await nestedUnits(top, skipBroken, warnings)));
  }
  return units;
}

async function nestedUnits(top: Unit, skipBroken: boolean, warnings: string[]): Promise<Unit[]> {
  const nested: Unit[] = [];
  for (const entry of top.entries) {
    if (!isNestedLibrary(entry.name)) continue;
    const label = `${top.prefix || `${top.label}!/`}${entry.name}`;
    try {
      const entries = await readJar(label, entry.data);
      nested.push({ label, prefix: `${top.prefix}${entry.name}!/`, entries, parent: { unit: top, entry }, web: false, archive: true });
    } catch (e) {
      if (!(e instanceof KomoriumError) || !skipBroken) throw e;
      warnings.push(`${e.message}: copied unchanged`);
    }
  }
  return nested;
}

/**
 * The jars the given jars' manifests put on the class path and that are not given themselves:
 * read for the class hierarchy, so calls into them are decided as the JVM will resolve them.
 * Each is reported once; one that does not exist is a warning (the JVM skips it silently).
 */
export function manifestClasspath(units: readonly Unit[], notes: string[], warnings: string[]): string[] {
  const given = new Set(units.filter((u) => u.output).map((u) => realOrSame(u.label)));
  const found = new Set<string>();
  for (const u of units) {
    if (!u.output || !u.archive) continue;
    const { paths, unsupported } = manifestClassPath(u.label, u.entries);
    for (const url of unsupported) warnings.push(`${u.label}: manifest Class-Path entry ${url} is not a file: not read`);
    for (const p of paths) {
      if (given.has(realOrSame(p)) || found.has(p)) continue;
      if (!existsSync(p)) {
        warnings.push(`${u.label}: manifest Class-Path names ${p}, which does not exist`);
        continue;
      }
      found.add(p);
      notes.push(`${p} (on the Class-Path of ${u.label}) is read for the class hierarchy, not rewritten; give it as an input to rewrite it with the program`);
    }
  }
  return [...found];
}

/**
 * A given jar's output entries with its manifest's Class-Path pointing at the outputs of the other
 * given jars it names. Left as they were, they would name the uninstrumented jars, which the JVM
 * searches right after the jar that names them, before the rest of the class path: calls between
 * the jars would then find the originals, without the methods instrumented callers call.
 */
export function relinkClassPath(unit: Unit, entries: Entry[], units: readonly Unit[]): Entry[] {
  const i = entries.findIndex((e) => isManifest(e.name));
  if (i < 0 || !unit.output || !unit.archive) return entries;
  const outputOf = new Map(units.filter((u) => u.output).map((u) => [realOrSame(u.label), u.output!.path]));
  const from = dirname(resolve(unit.output.path));
  const text = Buffer.from(entries[i]!.data).toString('utf8');
  const relinked = withClassPath(text, (url) => {
    const path = classPathFile(unit.label, url);
    const target = path === null ? undefined : outputOf.get(realOrSame(path));
    return target === undefined ? url : encodeURI(relative(from, resolve(target)).split(sep).join('/'));
  });
  if (relinked === text) return entries;
  const copy = [...entries];
  copy[i] = { ...entries[i]!, data: Buffer.from(relinked, 'utf8') };
  return copy;
}

/** Two names of one file (Debian's cup.jar links to java-cup-0.11b.jar) are one jar. */
function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Classes of a web application outside WEB-INF/classes/ are not its program: say that they stay as they are. */
export function webRootNotes(units: readonly Unit[]): string[] {
  return units.flatMap((u) => {
    const outside = u.web ? u.entries.filter((e) => e.isClass && !e.name.startsWith('WEB-INF/classes/')).length : 0;
    return outside === 0
      ? []
      : [`${u.label}: ${outside} classes outside WEB-INF/classes/ (an executable WAR's launcher) are copied as they are: the web application's loader does not load them`];
  });
}

/** A class in two units with different bytes: the one the class path finds first is the program's. */
export function duplicateClass(first: { where: string; data: Uint8Array }, again: { where: string; data: Uint8Array }): string | null {
  if (Buffer.from(first.data).equals(again.data)) return null;
  return `${again.where}: copied unchanged: ${first.where} holds another class of the same name, which comes first on the class path`;
}
