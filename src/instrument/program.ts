/**
 * `komorium-ts instrument`: a whole jar or class folder, top to bottom. The headers of all classes
 * are read and planned first (a call site needs to know whether its callee, anywhere in the input,
 * gets an extended version), then each class is parsed and rewritten, bytes in and bytes out, then
 * all are written with the runtime beside them. Nothing is written unless every step succeeded.
 */
import { availableParallelism } from 'node:os';
import { ClassFormatError, KomoriumError } from '../errors.js';
import { jarBytes, runtimeFolder, stripSignature, writeOutputs, type Entry, type Output } from '../jar/index.js';
import { readClassHeader } from '../hierarchy/class-header.js';
import { RT } from '../kinds/komorium/runtime-names.js';
import type { ClassPlan } from '../kinds/komorium/plan.js';
import { ClassFilter } from './patterns.js';
import { emptyCounts, type ClassReport, type ClassResult } from '../kinds/komorium/class-transform.js';
import { addRuntime } from './runtime-jar.js';
import { javaName } from '../classfile/names.js';
import type { FrameworkClassReport, FrameworkClassResult } from '../framework/class-transform.js';
import { buildProgram, headerOf, rewriteEntry, type ClassHeader, type EntryResult, type InstrumentMode, type Program } from './rewrite.js';
import { duplicateClass, manifestClasspath, readUnits, relinkClassPath, webRootNotes, type Unit } from './units.js';

export interface InstrumentRequest {
  input: string;
  output: string;
  /** The program's other jars and folders, each with its output: all are rewritten as one program. */
  more?: { input: string; output: string }[];
  /** The folder the outputs go into (`-d`): created when missing, its parent must exist. */
  outputFolder?: string;
  classpath: string[];
  include: string[];
  exclude: string[];
  skipBroken: boolean;
  mode: InstrumentMode;
  /** Called after each class; the CLI draws a progress bar on a terminal. */
  progress?: (done: number, total: number) => void;
  /** Called with the jars read for the class hierarchy beyond `classpath` (manifest Class-Path): the cache's dependencies. */
  extraClasspath?: (paths: string[]) => void;
  /** The JDK that completes the class hierarchy (instrument-jdk --java-home); default the running one. */
  javaHome?: string;
}

export interface InstrumentSummary {
  input: string;
  output: string;
  classes: number;
  instrumentedClasses: number;
  skippedClasses: { entry: string; reason: string }[];
  excludedClasses: number;
  reports: ClassReport[];
  totals: ReturnType<typeof emptyCounts>;
  /** The framework's per-class reports (instrument --profile with framework kinds); empty for Komorium. */
  frameworkReports: FrameworkClassReport[];
  /** Methods that crossed HotSpot's HugeMethodLimit (see ClassReport.overJitLimit). */
  overJitLimit: string[];
  /** Methods given the compact form to stay under HugeMethodLimit (see ClassReport.compact). */
  compact: string[];
  /** Methods instrumented without MaxPath splitting, which made them too large (ClassReport.withoutMaxPath). */
  withoutMaxPath: string[];
  /** Methods instrumented without call lines to stay under HugeMethodLimit (ClassReport.withoutCallLines). */
  withoutCallLines: string[];
  leftAsIs: { className: string; method: string; reason: string }[];
  /** The jars rewritten as one program, the given ones and those nested in them, when more than one. */
  units: { input: string; output: string; classes: number; rewritten: number }[];
  notes: string[];
  warnings: string[];
}

export type { ClassHeader, EntryResult, InstrumentMode, Program } from './rewrite.js';
export { instrumentClassBytes } from './rewrite.js';

const VERSIONED = /^META-INF\/versions\/(\d+)\//;

export interface ParsedEntry {
  entry: Entry;
  header: ClassHeader;
  unit: Unit;
  /** The entry as messages name it: with its jar when the program has several. */
  where: string;
}

export async function instrumentProgram(req: InstrumentRequest): Promise<InstrumentSummary> {
  const warnings: string[] = [];
  const notes: string[] = [];
  const units = await readUnits([{ input: req.input, output: req.output }, ...(req.more ?? [])], req.skipBroken, warnings);
  const fromManifests = manifestClasspath(units, notes, warnings);
  req.extraClasspath?.(fromManifests);
  const classpath = [...req.classpath, ...fromManifests];
  const skippedClasses: { entry: string; reason: string }[] = [];
  const parsed = readHeaders(units, new ClassFilter(req.include, req.exclude), req.skipBroken, skippedClasses, warnings);
  notes.push(...webRootNotes(units));

  let plans: Map<string, ClassPlan>;
  let results: Map<ParsedEntry, EntryResult>;
  for (;;) {
    // Base entries first, so that the plan of a class is that of the version the JVM resolves by default.
    const headers: ClassHeader[] = parsed.map((p) => p.header).sort((a, b) => Number(a.versioned) - Number(b.versioned));
    const attemptWarnings: string[] = [];
    const program = buildProgram(headers, classpath, attemptWarnings);
    plans = program.view.plans;
    const toRewrite = parsed.filter((p) => plans.get(p.header.thisClass)?.instrumented && p.header.thisClass !== 'module-info');
    results = await rewriteAll(toRewrite, headers, program, { ...req, classpath }, attemptWarnings);
    const broken = toRewrite.flatMap((p) => {
      const r = results.get(p)!;
      return 'broken' in r ? [{ p, reason: r.broken }] : [];
    });
    if (broken.length === 0) {
      warnings.push(...attemptWarnings);
      break;
    }
    if (!req.skipBroken) throw new ClassFormatError(broken[0]!.p.where, broken[0]!.reason);
    // A class whose header read but whose body is broken was planned as rewritten: calls into it
    // would expect methods it will not have. Plan and rewrite again without it (rare: only with
    // --skip-broken, and only for damage past the header).
    for (const { p, reason } of broken) {
      parsed.splice(parsed.indexOf(p), 1);
      skippedClasses.push({ entry: p.where, reason });
      warnings.push(`${p.where}: copied unchanged, it is broken: ${reason}`);
    }
  }
  // Every result is a rewritten class now: the loop above leaves no broken one.
  const rewritten = results as Map<ParsedEntry, ClassResult | FrameworkClassResult>;
  const parsedByEntry = new Map(parsed.map((p) => [p.entry, p]));
  const built = await unitOutputs(units, parsedByEntry, rewritten, plans, warnings);
  await writeOutputs(built.outputs.map((o) => (req.outputFolder === undefined ? o : { ...o, under: req.outputFolder })));
  const summary = summarize(req, parsed.length + skippedClasses.length, built.excluded, built.reports, skippedClasses, warnings);
  const inputs = [req.input, ...(req.more ?? []).map((m) => m.input)];
  return { ...summary, input: inputs.join(', '), output: req.outputFolder ?? req.output, units: units.length > 1 ? built.units : [], notes };
}

/**
 * The header of every class of the program, in class path order. Only headers are read up front:
 * keeping the model of every class alive until the end made each young-generation GC copy it
 * (guava: a fifth of the run was GC). Each class is parsed whole when it is rewritten, and its model
 * dropped right after.
 */
function readHeaders(
  units: readonly Unit[],
  filter: ClassFilter,
  skipBroken: boolean,
  skippedClasses: { entry: string; reason: string }[],
  warnings: string[],
): ParsedEntry[] {
  const parsed: ParsedEntry[] = [];
  const firstOf = new Map<string, { where: string; data: Uint8Array; unit: Unit }>();
  for (const unit of units) {
    for (const entry of unit.entries) {
      if (!entry.isClass || (unit.web && !entry.name.startsWith('WEB-INF/classes/'))) continue;
      const where = unit.prefix + entry.name;
      try {
        const h = readClassHeader(entry.data, where, 'input');
        if (h.name.startsWith(RT.PACKAGE_PREFIX)) {
          throw new KomoriumError(`${unit.label}: already instrumented (it contains ${entry.name})`);
        }
        const versioned = VERSIONED.test(entry.name);
        const first = versioned ? undefined : firstOf.get(h.name);
        if (first && first.unit !== unit) {
          const why = duplicateClass(first, { where, data: entry.data });
          if (why !== null) {
            warnings.push(why);
            continue;
          }
        } else if (!versioned) firstOf.set(h.name, { where, data: entry.data, unit });
        const header = headerOf(h, filter.accepts(h.name), versioned);
        parsed.push({ entry, header, unit, where });
      } catch (e) {
        if (!(e instanceof ClassFormatError) || !skipBroken) throw e;
        skippedClasses.push({ entry: where, reason: e.detail });
        warnings.push(`${where}: copied unchanged, it does not parse: ${e.detail}`);
      }
    }
  }
  return parsed;
}

type AnyReport = ClassReport | FrameworkClassReport;

/**
 * Each unit's output entries. Nested jars first (they come after their archive in `units`), so
 * that their archive copies them rewritten, into the same entry, stored as they were.
 */
async function unitOutputs(
  units: readonly Unit[],
  parsedByEntry: Map<Entry, ParsedEntry>,
  results: Map<ParsedEntry, ClassResult | FrameworkClassResult>,
  plans: Map<string, ClassPlan>,
  warnings: string[],
): Promise<{ outputs: Output[]; reports: AnyReport[]; excluded: number; units: InstrumentSummary['units'] }> {
  const replaced = new Map<Entry, Entry>();
  const needsRuntime = new Set<Unit>();
  const outputs: Output[] = [];
  const reports: AnyReport[] = [];
  const summaries: InstrumentSummary['units'] = [];
  let excluded = 0;
  for (const unit of [...units].reverse()) {
    const entries = unit.entries.map((e) => replaced.get(e) ?? e);
    const top = unit.parent?.unit ?? unit;
    const out = outputEntries(entries, parsedByEntry, results, plans, warnings, unit.prefix ? `${unit.label}: ` : '');
    reports.unshift(...out.reports);
    excluded += out.excluded;
    if (out.reports.length > 0) needsRuntime.add(top);
    // The runtime goes once into each given archive, where all its loaders find it, not into nested jars.
    if (!unit.parent && needsRuntime.has(unit)) await addRuntime(out.entries, runtimeFolder(unit.entries));
    const classes = entries.filter((e) => parsedByEntry.has(e)).length;
    summaries.unshift({ input: unit.label, output: unit.output?.path ?? unit.label, classes, rewritten: out.reports.length });
    if (unit.parent) {
      if (out.reports.length > 0) replaced.set(unit.parent.entry, { ...unit.parent.entry, data: await jarBytes(out.entries) });
    } else {
      outputs.unshift({ path: unit.output!.path, kind: unit.output!.kind, entries: relinkClassPath(unit, out.entries, units) });
    }
  }
  return { outputs, reports, excluded, units: summaries };
}

/** The output, in input order: each rewritten class followed by the classes it adds. */
function outputEntries(
  inputEntries: readonly Entry[],
  parsedByEntry: Map<Entry, ParsedEntry>,
  results: Map<ParsedEntry, ClassResult | FrameworkClassResult>,
  plans: Map<string, ClassPlan>,
  warnings: string[],
  /** Put before warnings: '' for the only jar. */
  label: string,
): { entries: Entry[]; reports: AnyReport[]; excluded: number } {
  const reports: AnyReport[] = [];
  const out: Entry[] = [];
  let excluded = 0;
  for (const entry of inputEntries) {
    const p = parsedByEntry.get(entry);
    if (!p) {
      out.push(entry);
      continue;
    }
    const thisClass = p.header.thisClass;
    if (!plans.get(thisClass)?.instrumented || thisClass === 'module-info') {
      excluded++;
      out.push(entry);
      continue;
    }
    const prefix = entry.name.slice(0, entry.name.length - `${thisClass}.class`.length);
    const result = results.get(p)!;
    reports.push(result.report);
    out.push({ ...entry, data: result.bytes });
    for (const x of result.extra) {
      out.push({ ...entry, name: `${prefix}${x.name}.class`, data: x.bytes });
    }
  }

  let entries = out;
  if (reports.length > 0) {
    const stripped = stripSignature(entries);
    if (stripped.removed.length > 0) {
      warnings.push(`${label}removed the jar signature (${stripped.removed.join(', ')}): its classes changed`);
      entries = stripped.entries;
    }
  }
  return { entries, reports, excluded };
}

/** Below this many classes, starting workers costs more than it saves. */
const PARALLEL_MIN_CLASSES = 300;

export async function rewriteAll<P extends Pick<ParsedEntry, 'entry' | 'where'>>(
  todo: P[],
  headers: ClassHeader[],
  program: Program,
  req: Pick<InstrumentRequest, 'classpath' | 'mode' | 'progress' | 'javaHome'>,
  warnings: string[],
): Promise<Map<P, EntryResult>> {
  const results = new Map<P, EntryResult>();
  const workers = workerCount(todo.length);
  if (workers > 1) {
    const { rewriteInWorkers } = await import('./parallel.js');
    const out = await rewriteInWorkers(
      todo.map((p) => ({ name: p.where, data: p.entry.data })),
      { headers, classpath: req.classpath, mode: req.mode, ...(req.javaHome === undefined ? {} : { javaHome: req.javaHome }) },
      workers,
      warnings,
      (done) => req.progress?.(done, todo.length),
    );
    todo.forEach((p, i) => results.set(p, out[i]!));
    return results;
  }
  for (let i = 0; i < todo.length; i++) {
    const p = todo[i]!;
    results.set(p, rewriteEntry({ ...p.entry, name: p.where }, program, req.mode, warnings));
    req.progress?.(i + 1, todo.length);
  }
  return results;
}

function workerCount(classes: number): number {
  // Workers run compiled JavaScript; from TypeScript sources (the tests) the rewrite stays in-process.
  if (classes < PARALLEL_MIN_CLASSES || !import.meta.url.endsWith('.js')) return 1;
  const env = Number(process.env.KOMORIUM_WORKERS);
  if (Number.isInteger(env) && env >= 1) return env;
  // Each worker compiles the whole pipeline again (V8's optimizing compiler: as much CPU time as
  // the rewriting itself), and the main thread's compiler and GC threads need a core. On 2 cores
  // that start-up outweighs a second worker's help on a small program, not on a large one.
  const cores = availableParallelism();
  if (cores === 2) return classes >= BOTH_CORES_MIN_CLASSES ? 2 : 1;
  return Math.max(1, Math.min(4, cores - 1));
}

/**
 * On 2 cores, two workers against none (BENCHMARKS-scale.md, wall time, medians): guava's 2,040
 * classes 3.54 s against 3.11 s; 5,813 classes (the bench workloads' jars) 9.9 s against 11.3 s;
 * 46,948 classes (100 MB of jars) 60 s against 75 s, for a third more CPU time and memory.
 */
const BOTH_CORES_MIN_CLASSES = 4000;

function summarize(
  req: InstrumentRequest,
  classes: number,
  excluded: number,
  all: (ClassReport | FrameworkClassReport)[],
  skippedClasses: { entry: string; reason: string }[],
  warnings: string[],
): Omit<InstrumentSummary, 'units' | 'notes'> {
  const totals = emptyCounts();
  const reports = all.filter((r): r is ClassReport => !('layouts' in r));
  const frameworkReports = all.filter((r): r is FrameworkClassReport => 'layouts' in r);
  for (const r of frameworkReports) {
    totals.methods += r.methods;
    totals.instrumented += r.instrumented;
  }

  const leftAsIs: InstrumentSummary['leftAsIs'] = [];
  const overJitLimit: string[] = [];
  const withoutMaxPath: string[] = [];
  const withoutCallLines: string[] = [];
  const compact: string[] = [];
  for (const r of reports) {
    const dotted = javaName(r.className);
    for (const m of r.overJitLimit) overJitLimit.push(`${dotted}.${m}`);
    for (const m of r.withoutMaxPath) withoutMaxPath.push(`${dotted}.${m}`);
    for (const m of r.withoutCallLines) withoutCallLines.push(`${dotted}.${m}`);
    for (const m of r.compact) compact.push(`${dotted}.${m}`);
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k];
    for (const l of r.leftAsIs) leftAsIs.push({ className: r.className, ...l });
  }
  for (const r of frameworkReports) {
    for (const l of r.leftAsIs) leftAsIs.push({ className: r.className, ...l });
    for (const m of r.overJitLimit) overJitLimit.push(`${javaName(r.className)}.${m}`);
    for (const m of r.compact) compact.push(`${javaName(r.className)}.${m}`);
  }
  return {
    input: req.input,
    output: req.output,
    classes,
    instrumentedClasses: all.length,
    skippedClasses,
    excludedClasses: excluded,
    reports,
    totals,
    frameworkReports,
    leftAsIs,
    overJitLimit,
    compact,
    withoutMaxPath,
    withoutCallLines,
    warnings,
  };
}
