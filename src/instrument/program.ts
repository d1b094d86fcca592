/**
 * `komorium-ts instrument`: a whole jar or class folder, top to bottom. The headers of all classes
 * are read and planned first (a call site needs to know whether its callee, anywhere in the input,
 * gets an extended version), then each class is parsed and rewritten, bytes in and bytes out, then
 * all are written with the runtime beside them. Nothing is written unless every step succeeded.
 */
import { availableParallelism } from 'node:os';
import { ClassFormatError, KomoriumError } from '../errors.js';
import { readInput, writeJar, writeDir, stripSignature, type Entry } from '../jar/index.js';
import { readClassHeader } from '../hierarchy/class-header.js';
import { RT } from './runtime-names.js';
import type { ClassPlan } from './plan.js';
import { ClassFilter } from './patterns.js';
import { emptyCounts, type ClassReport, type ClassResult } from './class-transform.js';
import { addRuntime } from './runtime-jar.js';
import { javaName } from '../classfile/names.js';
import type { FrameworkClassReport, FrameworkClassResult } from '../framework/class-transform.js';
import { buildProgram, rewriteEntry, type ClassHeader, type EntryResult, type InstrumentMode, type Program } from './rewrite.js';

export interface InstrumentRequest {
  input: string;
  output: string;
  classpath: string[];
  include: string[];
  exclude: string[];
  skipBroken: boolean;
  mode: InstrumentMode;
  /** Called after each class; the CLI draws a progress bar on a terminal. */
  progress?: (done: number, total: number) => void;
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
  /** Methods instrumented without MaxPath splitting, which made them too large (ClassReport.withoutMaxPath). */
  withoutMaxPath: string[];
  leftAsIs: { className: string; method: string; reason: string }[];
  warnings: string[];
}

export type { ClassHeader, EntryResult, InstrumentMode, Program } from './rewrite.js';
export { instrumentClassBytes } from './rewrite.js';

const VERSIONED = /^META-INF\/versions\/(\d+)\//;

interface ParsedEntry {
  entry: Entry;
  header: ClassHeader;
}

export async function instrumentProgram(req: InstrumentRequest): Promise<InstrumentSummary> {
  const input = await readInput(req.input);
  const filter = new ClassFilter(req.include, req.exclude);
  const warnings: string[] = [];
  const skippedClasses: { entry: string; reason: string }[] = [];

  // Only headers are read up front: keeping the model of every class alive until the end made
  // each young-generation GC copy it (guava: a fifth of the run was GC). Each class is parsed
  // whole when it is rewritten, and its model dropped right after.
  const parsed: ParsedEntry[] = [];
  const parsedByEntry = new Map<Entry, ParsedEntry>();
  for (const entry of input.entries) {
    if (!entry.isClass) continue;
    try {
      const h = readClassHeader(entry.data, entry.name, 'input');
      if (h.name.startsWith(RT.PACKAGE_PREFIX)) {
        throw new KomoriumError(`${req.input}: already instrumented (it contains ${entry.name})`);
      }
      const header: ClassHeader = {
        thisClass: h.name,
        superClass: h.superName,
        interfaces: h.interfaces,
        access: h.access,
        methods: h.methods,
        fields: h.fields,
        instrumented: filter.accepts(h.name),
        versioned: VERSIONED.test(entry.name),
      };
      const p = { entry, header };
      parsed.push(p);
      parsedByEntry.set(entry, p);
    } catch (e) {
      if (!(e instanceof ClassFormatError) || !req.skipBroken) throw e;
      skippedClasses.push({ entry: entry.name, reason: e.detail });
      warnings.push(`${entry.name}: copied unchanged, it does not parse: ${e.detail}`);
    }
  }

  let plans: Map<string, ClassPlan>;
  let results: Map<ParsedEntry, EntryResult>;
  for (;;) {
    // Base entries first, so that the plan of a class is that of the version the JVM resolves by default.
    const headers: ClassHeader[] = parsed.map((p) => p.header).sort((a, b) => Number(a.versioned) - Number(b.versioned));
    const attemptWarnings: string[] = [];
    const program = buildProgram(headers, req.classpath, attemptWarnings);
    plans = program.view.plans;
    const toRewrite = parsed.filter((p) => plans.get(p.header.thisClass)?.instrumented && p.header.thisClass !== 'module-info');
    results = await rewriteAll(toRewrite, headers, program, req, attemptWarnings);
    const broken = toRewrite.flatMap((p) => {
      const r = results.get(p)!;
      return 'broken' in r ? [{ p, reason: r.broken }] : [];
    });
    if (broken.length === 0) {
      warnings.push(...attemptWarnings);
      break;
    }
    if (!req.skipBroken) throw new ClassFormatError(broken[0]!.p.entry.name, broken[0]!.reason);
    // A class whose header read but whose body is broken was planned as rewritten: calls into it
    // would expect methods it will not have. Plan and rewrite again without it (rare: only with
    // --skip-broken, and only for damage past the header).
    for (const { p, reason } of broken) {
      parsed.splice(parsed.indexOf(p), 1);
      parsedByEntry.delete(p.entry);
      skippedClasses.push({ entry: p.entry.name, reason });
      warnings.push(`${p.entry.name}: copied unchanged, it is broken: ${reason}`);
    }
  }
  // Every result is a rewritten class now: the loop above leaves no broken one.
  const rewritten = results as Map<ParsedEntry, ClassResult | FrameworkClassResult>;
  const { entries, reports, excluded } = await outputEntries(input.entries, parsedByEntry, rewritten, plans, warnings);
  if (input.kind === 'dir') await writeDir(req.output, entries);
  else await writeJar(req.output, entries);
  return summarize(req, parsed.length + skippedClasses.length, excluded, reports, skippedClasses, warnings);
}

/** The output, in input order: each rewritten class followed by the classes it adds, then the runtime. */
async function outputEntries(
  inputEntries: readonly Entry[],
  parsedByEntry: Map<Entry, ParsedEntry>,
  results: Map<ParsedEntry, ClassResult | FrameworkClassResult>,
  plans: Map<string, ClassPlan>,
  warnings: string[],
): Promise<{ entries: Entry[]; reports: (ClassReport | FrameworkClassReport)[]; excluded: number }> {
  const reports: (ClassReport | FrameworkClassReport)[] = [];
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
      warnings.push(`removed the jar signature (${stripped.removed.join(', ')}): its classes changed`);
      entries = stripped.entries;
    }
    await addRuntime(entries);
  }

  return { entries, reports, excluded };
}

/** Below this many classes, starting workers costs more than it saves. */
const PARALLEL_MIN_CLASSES = 300;

async function rewriteAll(
  todo: ParsedEntry[],
  headers: ClassHeader[],
  program: Program,
  req: InstrumentRequest,
  warnings: string[],
): Promise<Map<ParsedEntry, EntryResult>> {
  const results = new Map<ParsedEntry, EntryResult>();
  const workers = workerCount(todo.length);
  if (workers > 1) {
    const { rewriteInWorkers } = await import('./parallel.js');
    const out = await rewriteInWorkers(
      todo.map((p) => ({ name: p.entry.name, data: p.entry.data })),
      { headers, classpath: req.classpath, mode: req.mode },
      workers,
      warnings,
      (done) => req.progress?.(done, todo.length),
    );
    todo.forEach((p, i) => results.set(p, out[i]!));
    return results;
  }
  for (let i = 0; i < todo.length; i++) {
    const p = todo[i]!;
    results.set(p, rewriteEntry(p.entry, program, req.mode, warnings));
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
  // the rewriting itself), and the main thread's compiler and GC threads need a core: on 2 cores,
  // two workers took more wall time than none, and half again as much CPU time.
  return Math.min(4, availableParallelism() - 1);
}

function summarize(
  req: InstrumentRequest,
  classes: number,
  excluded: number,
  all: (ClassReport | FrameworkClassReport)[],
  skippedClasses: { entry: string; reason: string }[],
  warnings: string[],
): InstrumentSummary {
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
  for (const r of reports) {
    const dotted = javaName(r.className);
    for (const m of r.overJitLimit) overJitLimit.push(`${dotted}.${m}`);
    for (const m of r.withoutMaxPath) withoutMaxPath.push(`${dotted}.${m}`);
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k];
    for (const l of r.leftAsIs) leftAsIs.push({ className: r.className, ...l });
  }
  for (const r of frameworkReports) for (const l of r.leftAsIs) leftAsIs.push({ className: r.className, ...l });
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
    withoutMaxPath,
    warnings,
  };
}
