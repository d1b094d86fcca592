/**
 * One class of the input, rewritten for the profile kinds asked for: Komorium's calling
 * convention (class-transform.ts) or the Arnold–Ryder framework's layouts (src/framework). Both
 * the main thread and the worker threads (worker.ts) rewrite through here, from the same program
 * view: the class headers of the whole input and the class hierarchy.
 */
import { ClassFile } from '../classfile/classfile.js';
import { javaName } from '../classfile/names.js';
import { ClassFormatError, KomoriumError, MethodTooLargeError } from '../errors.js';
import type { Entry } from '../jar/index.js';
import { ClassHierarchy, MissingClassError } from '../hierarchy/hierarchy.js';
import type { HierarchyClass } from '../hierarchy/class-header.js';
import { emptyFrameworkReport, instrumentClassWithKinds, type FrameworkClassResult } from '../framework/class-transform.js';
import { layoutFor, type LayoutName } from '../framework/layout/context.js';
import type { Trigger } from '../framework/probes.js';
import { parseKinds } from '../kinds/index.js';
import { RT } from '../kinds/komorium/runtime-names.js';
import { planClass, type ClassPlan } from '../kinds/komorium/plan.js';
import { instrumentClass, type ClassResult, type InstrumentOptions } from '../kinds/komorium/class-transform.js';
import type { CallSite, ProgramView } from '../kinds/komorium/calls.js';
import { stubClass } from '../kinds/komorium/stub.js';

/** What `instrument` builds into each class: Komorium's, or the framework's kinds. Plain data, so it can go to a worker. */
export type InstrumentMode =
  | { profile: 'komorium'; options: InstrumentOptions }
  | { profile: 'framework'; kinds: string[]; layout: LayoutName; trigger: Trigger };

/** What the plans and the hierarchy need to know of every input class. */
export interface ClassHeader {
  thisClass: string;
  superClass: string | null;
  interfaces: string[];
  access: number;
  methods: { name: string; desc: string; access: number }[];
  fields: { name: string; desc: string; access: number }[];
  instrumented: boolean;
  versioned: boolean;
  /** A class of the instrumented JDK: its first method identifier (ClassPlan.midBase). */
  midBase?: number;
  /** Methods (name + descriptor) kept as they are (ClassPlan via planClass). */
  leftAsIs?: string[];
}

/** The header of a class as the class hierarchy read it. */
export function headerOf(h: HierarchyClass, instrumented: boolean, versioned: boolean): ClassHeader {
  return { thisClass: h.name, superClass: h.superName, interfaces: h.interfaces, access: h.access, methods: h.methods, fields: h.fields, instrumented, versioned };
}

export interface Program {
  view: ProgramView;
  /** The class being rewritten, for messages. */
  setCurrent(name: string): void;
}

/** Plans and class hierarchy of the whole input (headers: base versions before multi-release ones). */
export function buildProgram(
  headers: readonly ClassHeader[],
  classpath: string[],
  warnings: string[],
  hierarchy?: ClassHierarchy,
  /** The JDK that completes the hierarchy; default the running one. */
  javaHome?: string,
): Program {
  hierarchy ??= new ClassHierarchy(javaHome === undefined ? { classpath } : { classpath, jdk: javaHome });
  const plans = new Map<string, ClassPlan>();
  for (const h of headers) {
    if (plans.has(h.thisClass)) continue;
    // The first header of a name: its base version, or, for a class that exists only under
    // META-INF/versions/N, its first versioned one (else it would be "missing" from its own input).
    hierarchy.addClass(h);
    const plan = planClass(h.thisClass, h.access, h.methods, h.instrumented, h.leftAsIs);
    if (h.midBase !== undefined) plan.midBase = h.midBase;
    plans.set(h.thisClass, plan);
  }
  const missingSeen = new Set<string>();
  let current = '';
  const h = hierarchy;
  const view: ProgramView = {
    plans,
    hierarchy: h,
    jdk: headers.some((x) => x.midBase !== undefined),
    isSerializable(name: string): boolean {
      try {
        return h.isAssignable(name, 'java/io/Serializable');
      } catch (e) {
        if (!(e instanceof MissingClassError)) throw e;
        warnings.push(
          `${javaName(name)}: cannot tell whether it is Serializable, ${javaName(e.missingClass)} is missing ` +
            `(add it with --classpath); its serialVersionUID is not pinned`,
        );
        return false;
      }
    },
    missingType(site: CallSite, missing: string) {
      const key = `${current} ${missing}`;
      if (missingSeen.has(key)) return;
      missingSeen.add(key);
      warnings.push(
        `${javaName(current)}: call to ${javaName(site.owner)}.${site.name}${site.desc} keeps its ` +
          `signature: deciding it needs ${javaName(missing)}, which is not in the input or the --classpath ` +
          `(add the jar that holds it with --classpath)`,
      );
    },
  };
  return { view, setCurrent: (name) => (current = name) };
}

/** The rewrite of one class of the input, or the ClassFormatError detail when it is broken. */
export type EntryResult = ClassResult | FrameworkClassResult | { broken: string };

/** Parses and rewrites one class of the input; its model lives only as long as this call. */
export function rewriteEntry(entry: Entry, program: Program, mode: InstrumentMode, warnings: string[]): EntryResult {
  try {
    const cf = ClassFile.parse(entry.data, entry.name);
    program.setCurrent(cf.thisClass);
    return mode.profile === 'komorium'
      ? rewriteClass(cf, entry, program.view, mode.options, warnings)
      : rewriteWithKinds(cf, entry, program.view, mode, warnings);
  } catch (e) {
    if (e instanceof ClassFormatError) return { broken: e.detail };
    throw e;
  }
}

/**
 * The transform of one class, or, when it cannot rewrite the class for a reason other than broken
 * input, the class as it was with stand-ins that keep every call site elsewhere valid. A
 * ClassFormatError (broken input) propagates.
 */
function rewriteClass(cf: ClassFile, entry: Entry, program: ProgramView, options: InstrumentOptions, warnings: string[]) {
  try {
    try {
      return instrumentClass(cf, program, options);
    } catch (e) {
      // No room in <clinit> for the identifiers' initialisation: again, from the bytes, with a holder.
      if (!(e instanceof MethodTooLargeError) || !e.method.startsWith('<clinit>(')) throw e;
      return instrumentClass(ClassFile.parse(entry.data, entry.name), program, options, true);
    }
  } catch (e) {
    if (!(e instanceof KomoriumError) || e instanceof ClassFormatError) throw e;
    warnings.push(`${javaName(cf.thisClass)}: left uninstrumented: ${e.message}`);
    return stubClass(entry.data, entry.name, options);
  }
}

/**
 * The framework's transform of one class. A class it cannot rewrite stays exactly as it was:
 * the framework changes no signature, so nothing elsewhere depends on it being rewritten.
 */
function rewriteWithKinds(
  cf: ClassFile,
  entry: Entry,
  program: ProgramView,
  mode: Extract<InstrumentMode, { profile: 'framework' }>,
  warnings: string[],
): FrameworkClassResult {
  const kinds = parseKinds(mode.kinds);
  const options = { kinds, layout: layoutFor(kinds, mode.layout), trigger: mode.trigger };
  try {
    try {
      return instrumentClassWithKinds(cf, program, options);
    } catch (e) {
      // No room in <clinit> for the site table's registration: again, with a holder.
      if (!(e instanceof MethodTooLargeError) || !e.method.startsWith('<clinit>(')) throw e;
      return instrumentClassWithKinds(ClassFile.parse(entry.data, entry.name), program, options, true);
    }
  } catch (e) {
    if (!(e instanceof KomoriumError) || e instanceof ClassFormatError) throw e;
    warnings.push(`${javaName(cf.thisClass)}: left uninstrumented: ${e.message}`);
    const report = emptyFrameworkReport(cf.thisClass, cf.methods.length);
    report.leftAsIs.push({ method: '*', reason: `the class could not be rewritten: ${e.message}` });
    return { bytes: entry.data, extra: [], report };
  }
}

/**
 * One class file, bytes in and bytes out, treated as `instrument` treats a class of its input
 * (without --skip-broken): a KomoriumError naming the entry for input it refuses, else the rewritten
 * class (or the class as it was with stand-ins) and the classes the transform adds beside it.
 * `hierarchy` resolves every other class (put the rest of the input on its classpath); this class
 * is added to it. For tests and tools that rewrite classes one at a time (the fuzzing test).
 */
export function instrumentClassBytes(
  data: Uint8Array,
  entryName: string,
  options: InstrumentOptions,
  hierarchy: ClassHierarchy,
): { result: ClassResult; warnings: string[] } {
  const warnings: string[] = [];
  const entry: Entry = { name: entryName, data, isClass: true };
  const cf = ClassFile.parse(data, entryName);
  if (cf.thisClass.startsWith(RT.PACKAGE_PREFIX)) throw new KomoriumError(`${entryName}: already instrumented`);
  const header: ClassHeader = { ...cf, fields: cf.fields, instrumented: true, versioned: false };
  const program = buildProgram([header], [], warnings, hierarchy);
  if (cf.thisClass === 'module-info') {
    return { result: { bytes: data, extra: [], report: stubClass(data, entryName, options).report }, warnings };
  }
  program.setCurrent(cf.thisClass);
  return { result: rewriteClass(cf, entry, program.view, options, warnings), warnings };
}
