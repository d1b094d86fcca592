/**
 * `komorium-ts instrument-jdk` (issue 26): java.base of a JDK, read from its run-time image and
 * rewritten with Komorium's transform, written with the runtime into a cache folder that a JVM
 * takes with `--patch-module java.base=…`. The JDK's own files are only read.
 *
 * The folder is keyed by the JDK's build (release file, lib/modules' size, date and first bytes)
 * and this komorium-ts build, and is written whole into a temporary folder and renamed: a failed
 * or interrupted run leaves no folder that a later run could take for a complete one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClassFile } from '../classfile/classfile.js';
import { CONSTANT } from '../classfile/model.js';
import { javaName } from '../classfile/names.js';
import { ClassFormatError } from '../errors.js';
import { readClassHeader } from '../hierarchy/class-header.js';
import { rewriteAll } from '../instrument/program.js';
import { buildProgram, headerOf, type ClassHeader, type InstrumentMode } from '../instrument/rewrite.js';
import { runtimeEntries } from '../instrument/runtime-jar.js';
import { toolIdentity } from '../instrument/cache.js';
import type { ClassResult } from '../kinds/komorium/class-transform.js';
import { jdkMidOrder, methodKey, planClass } from '../kinds/komorium/plan.js';
import { exclusionOf, keptMethodsOf, KEPT_ANNOTATIONS } from './exclusions.js';
import { openJdkImage, type JdkImage } from './image.js';
import { STEADY_EDITS, steadyClass } from './steady.js';

/** Bumped when the folder's layout changes. */
const FORMAT = 1;
export const ARGS_FILE = 'komorium-jdk.args';
/** MID.JDK_FIRST: the identifiers below it are the runtime's markers. */
const JDK_FIRST = 3;
const MODULE = 'java.base';

/** How java.base is rewritten: as `run` instruments an application. */
const MODE: InstrumentMode = {
  profile: 'komorium',
  options: { checks: 'optimized', maxPath: 50, leafOpt: true, callbacks: true, counter: 'field', callLines: false, jitLimit: 'ignore' },
};

export interface JdkRequest {
  javaHome: string;
  /** Default $XDG_CACHE_HOME/komorium-ts/jdk, else ~/.cache/komorium-ts/jdk. */
  cacheRoot?: string;
  progress?: (done: number, total: number) => void;
}

export interface JdkSummary {
  javaHome: string;
  version: string;
  /** The cache folder; the argument file is `argsFile` inside it. */
  dir: string;
  argsFile: string;
  /** True when an earlier run's folder was reused. */
  reused: boolean;
  classes: number;
  instrumented: number;
  excluded: number;
  /** Methods of rewritten classes kept as they are (annotations, class initializers). */
  keptMethods: number;
  /** The classes edited to run the same way in every run (steady.ts), rewritten or not. */
  steadied: string[];
  warnings: string[];
}

export function jdkCacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'komorium-ts', 'jdk');
}

export async function instrumentJdk(req: JdkRequest): Promise<JdkSummary> {
  const jdk = openJdkImage(req.javaHome);
  try {
    const key = createHash('sha256').update(JSON.stringify({ format: FORMAT, tool: toolIdentity(), jdk: jdk.identity, mode: MODE })).digest('hex');
    const root = req.cacheRoot ?? jdkCacheFolder();
    const dir = join(root, `${jdk.version.replace(/[^\w.+-]/g, '_')}-${key.slice(0, 16)}`);
    const info = join(dir, 'summary.json');
    if (existsSync(info)) {
      const { readFile } = await import('node:fs/promises');
      const summary = JSON.parse(await readFile(info, 'utf8')) as JdkSummary;
      return { ...summary, javaHome: req.javaHome, dir, argsFile: join(dir, ARGS_FILE), reused: true };
    }
    await mkdir(root, { recursive: true });
    const tmp = join(root, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      const summary = await build(jdk, tmp, dir, req);
      await writeFile(join(tmp, 'summary.json'), JSON.stringify(summary, null, 2));
      try {
        await rename(tmp, dir);
      } catch (e) {
        // Another run finished the same folder first: it is complete, use it.
        if (!existsSync(info)) throw e;
      }
      return summary;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  } finally {
    jdk.image.close();
  }
}

interface JdkClass {
  entry: { name: string; data: Uint8Array; isClass: true };
  where: string;
  header: ClassHeader;
}

async function build(jdk: JdkImage, tmp: string, dir: string, req: JdkRequest): Promise<JdkSummary> {
  const warnings: string[] = [];
  const classes = readClasses(jdk);
  const steadied = steady(classes);
  const headers = classes.map((c) => c.header);
  const program = buildProgram(headers, [], warnings, undefined, jdk.javaHome);
  const todo = classes.filter((c) => c.header.instrumented);
  const results = await rewriteAll(todo, headers, program, { classpath: [], mode: MODE, javaHome: jdk.javaHome, progress: req.progress }, warnings);
  const out = join(tmp, MODULE);
  const table: string[] = [];
  let kept = 0;
  for (const c of todo) {
    const r = results.get(c)!;
    if ('broken' in r) throw new ClassFormatError(c.where, r.broken);
    const result = r as ClassResult;
    await writeClass(out, c.header.thisClass, result.bytes);
    for (const x of result.extra) await writeClass(out, x.name, x.bytes);
    kept += c.header.leftAsIs?.length ?? 0;
    table.push(...tableLines(c.header, result));
  }
  // An edited class that is not rewritten goes in as edited (the JVM takes the rest from the image).
  for (const c of steadied) if (!c.header.instrumented) await writeClass(out, c.header.thisClass, c.entry.data);
  for (const e of await runtimeEntries()) {
    // The runtime's own package only: komorium.runtime.junit needs JUnit, which java.base cannot see; it stays in the application's jar.
    if (!/^komorium\/runtime\/[^/]+\.class$/.test(e.name)) continue;
    await writeClass(out, e.name.slice(0, -'.class'.length), e.data);
  }
  await writeFile(join(out, 'komorium', 'runtime', 'jdk-methods.txt'), table.join('\n') + '\n');
  await writeFile(join(tmp, ARGS_FILE), argsFileText(join(dir, MODULE), jdk));
  return {
    javaHome: jdk.javaHome,
    version: jdk.version,
    dir,
    argsFile: join(dir, ARGS_FILE),
    reused: false,
    classes: classes.length,
    instrumented: todo.length,
    excluded: classes.length - todo.length,
    keptMethods: kept,
    steadied: steadied.map((c) => javaName(c.header.thisClass)),
    warnings,
  };
}

/** Every class of java.base with its header; the plan's identifiers numbered in class name order. */
function readClasses(jdk: JdkImage): JdkClass[] {
  const names = jdk.image.classNames(MODULE).sort();
  const out: JdkClass[] = [];
  let next = JDK_FIRST;
  for (const name of names) {
    const data = jdk.image.read(`/${MODULE}/${name}.class`);
    if (data === null) continue;
    const where = `${jdk.image.path}!/${MODULE}/${name}.class`;
    const h = readClassHeader(data, where, 'input');
    const instrumented = exclusionOf(h.name) === undefined;
    const header = headerOf(h, instrumented, false);
    if (instrumented) {
      // Class initializers stay as they are: the VM runs many of them in its own order during start-up.
      header.leftAsIs = ['<clinit>()V', ...keptByAnnotation(data, where), ...keptMethodsOf(h.name)].filter((k) => h.methods.some((m) => methodKey(m.name, m.desc) === k));
      header.midBase = next;
      next += jdkMidOrder(planClass(h.name, h.access, h.methods, true, header.leftAsIs)).length;
    }
    out.push({ entry: { name: `${name}.class`, data, isClass: true }, where, header });
  }
  return out;
}

/**
 * Applies the steady edits (steady.ts) to the bytes each class is read from: a rewritten class is
 * rewritten from its edited bytes. Returns the classes edited.
 */
function steady(classes: JdkClass[]): JdkClass[] {
  const byName = new Map(classes.map((c) => [c.header.thisClass, c]));
  const methodsOf = (name: string) => byName.get(name)?.header.methods;
  const edited: JdkClass[] = [];
  for (const e of STEADY_EDITS) {
    const c = byName.get(e.className);
    const bytes = c && steadyClass(e.className, c.entry.data, c.where, methodsOf);
    if (!c || !bytes) continue;
    c.entry.data = bytes;
    edited.push(c);
  }
  return edited;
}

/** Methods annotated with one of KEPT_ANNOTATIONS (their class's constant pool names it; then each method's annotations are looked at). */
function keptByAnnotation(data: Uint8Array, where: string): string[] {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (!KEPT_ANNOTATIONS.some((a) => text.includes(a.type))) return [];
  const cf = ClassFile.parse(data, where);
  const wanted = new Set<number>();
  for (let i = 1; i < cf.cp.size; i++) {
    const tag = cf.cp.tag(i);
    if (tag === CONSTANT.Utf8 && KEPT_ANNOTATIONS.some((a) => a.type === cf.cp.utf8(i))) wanted.add(i);
    if (tag === CONSTANT.Long || tag === CONSTANT.Double) i++;
  }
  return cf.methods
    .filter((m) =>
      m.attributes.some((a) => a.name === 'RuntimeVisibleAnnotations' && annotationTypes(a.info).some((t) => wanted.has(t))),
    )
    .map((m) => methodKey(m.name, m.desc));
}

/**
 * The type indexes of an annotations attribute's annotations (JVMS 4.7.16). Only the first
 * annotation's type is certain without decoding element values, so every u2 is taken as a
 * candidate: a false match only keeps a method as it is, which is always safe.
 */
function annotationTypes(info: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 2; i + 1 < info.length; i++) out.push((info[i]! << 8) | info[i + 1]!);
  return out;
}

/** The method table lines of one class: MID.registerJdk's format, one line per identifier in order. */
function tableLines(header: ClassHeader, result: ClassResult): string[] {
  const plan = planClass(header.thisClass, header.access, header.methods, true, header.leftAsIs);
  const lines = [`class\t${javaName(header.thisClass)}\t${result.jdkMethods?.source ?? ''}`];
  for (const m of jdkMidOrder(plan)) {
    const key = methodKey(m.name, m.desc);
    lines.push(`${m.name}\t${m.desc}\t${result.jdkMethods?.firstLines[key] ?? -1}`);
  }
  return lines;
}

async function writeClass(folder: string, internalName: string, bytes: Uint8Array): Promise<void> {
  const path = join(folder, `${internalName}.class`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
}

/**
 * The java @-file: java.base patched, the runtime's package exported to the application (its
 * instrumented code calls TC and MID), java.base reading the application's classes (a custom
 * agent) and java.management (the runtime's MXBean).
 */
function argsFileText(patched: string, jdk: JdkImage): string {
  const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const lines = [
    `--patch-module ${quote(`java.base=${patched}`)}`,
    '--add-exports java.base/komorium.runtime=ALL-UNNAMED',
    '--add-reads java.base=ALL-UNNAMED',
  ];
  if (jdk.image.moduleOf('java/lang/management') === 'java.management') lines.push('--add-reads java.base=java.management');
  return lines.join('\n') + '\n';
}
