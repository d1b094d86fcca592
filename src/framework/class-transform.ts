/**
 * One class, bytes in and bytes out, for the profile kinds built on the Arnold–Ryder framework:
 * each method with probes is laid out as asked (full-dup, partial-dup, no-dup or exhaustive), with
 * a per-method fallback when the layout cannot be used (a loop inside a synchronized block, code
 * that would outgrow HotSpot's HugeMethodLimit or 64 KiB), and the class's site table is
 * registered at the start of its static initializer (or in a holder class beside an interface).
 */
import { ClassFile } from '../classfile/classfile.js';
import { FREQ_INLINE_SIZE, HUGE_METHOD_LIMIT } from '../bytecode/hotspot-limits.js';
import { ACC, type MemberInfo, type RawAttribute } from '../classfile/model.js';
import { javaName } from '../classfile/names.js';
import { readCode } from '../bytecode/code-reader.js';
import { codeLength, writeCode } from '../bytecode/code-writer.js';
import type { MethodCode } from '../bytecode/ir.js';
import { buildCfg } from '../analysis/cfg.js';
import { encoderFrames } from '../analysis/frames.js';
import { KomoriumError, MethodTooLargeError } from '../errors.js';
import type { ClassHierarchy } from '../hierarchy/hierarchy.js';
import { addSerialVersionUID } from '../instrument/serial.js';
import { minimalClassBytes } from '../classfile/minimal.js';
import { op } from '../bytecode/emit.js';
import { OP } from '../bytecode/opcodes.js';
import type { KindProbes } from './events.js';
import { SiteTable, findProbes, firstLine, isEmpty } from './sites.js';
import type { CheckTrigger, OwnFlag, SiteBase, Trigger } from './probes.js';
import { FrameSource, LayoutRefused, type LayoutName } from './layout/context.js';
import { fullDuplication } from './layout/duplicate.js';
import { partialDuplication } from './layout/partial.js';
import { guardedLayout } from './layout/guarded.js';
import { ProbeMethods } from './layout/probe-methods.js';
import { canHaveTwin, checksCallingTwin, encodeTwin, transferPoints, twinBody, twinOf } from './layout/twin.js';
import { registrationCode } from './registration.js';
import { isBurstTrigger, prepareClass } from './burst.js';
import { experiment } from '../experiments.js';

export interface FrameworkOptions {
  kinds: readonly KindProbes[];
  layout: LayoutName;
  trigger: Trigger;
}


/** The layouts tried, in order, when the one asked for cannot be used for a method. */
const FALLBACKS: Record<LayoutName, LayoutName[]> = {
  'full-dup': ['full-dup', 'partial-dup', 'no-dup'],
  'partial-dup': ['partial-dup', 'no-dup'],
  'no-dup': ['no-dup'],
  exhaustive: ['exhaustive'],
};

export interface Fallback {
  method: string;
  from: LayoutName;
  to: LayoutName | 'none';
  reason: string;
}

export interface FrameworkClassReport {
  className: string;
  methods: number;
  /** Methods with probes, laid out. */
  instrumented: number;
  /** Methods laid out per layout. */
  layouts: Record<LayoutName, number>;
  sites: number;
  probes: number;
  /** Methods whose duplicated code went out of line, into a twin (layout/twin.ts). */
  outOfLine: number;
  /** Methods that got another layout than the one asked for, or none, and why. */
  fallbacks: Fallback[];
  leftAsIs: { method: string; reason: string }[];
  /**
   * Methods HotSpot compiled before and whose laid-out code is past HugeMethodLimit: only the
   * exhaustive layout keeps such a method (it is the reference, or a kind probing every block), and
   * plain `java` then runs it interpreted; the summary says so, as Komorium's does.
   */
  overJitLimit: string[];
  /** Methods kept under HugeMethodLimit by moving their probes into probe methods (layout/probe-methods.ts). */
  compact: string[];
}

/** The report of a class before any of its methods is laid out. */
export function emptyFrameworkReport(className: string, methods: number): FrameworkClassReport {
  return {
    className,
    methods,
    instrumented: 0,
    layouts: { 'full-dup': 0, 'partial-dup': 0, 'no-dup': 0, exhaustive: 0 },
    sites: 0,
    probes: 0,
    outOfLine: 0,
    fallbacks: [],
    leftAsIs: [],
    overJitLimit: [],
    compact: [],
  };
}

export interface FrameworkClassResult {
  bytes: Uint8Array;
  extra: { name: string; bytes: Uint8Array }[];
  report: FrameworkClassReport;
}

export const SITES_FIELD = 'komorium$sites';
export const HOLDER_SUFFIX = '$$komorium';

/** What the class transform needs of the whole program. */
export interface FrameworkProgram {
  hierarchy: ClassHierarchy;
  isSerializable(name: string): boolean;
}

export function instrumentClassWithKinds(
  cf: ClassFile,
  program: FrameworkProgram,
  options: FrameworkOptions,
  baseInHolder = false,
): FrameworkClassResult {
  if (cf.fields.some((f) => f.name === SITES_FIELD) || cf.thisClass.endsWith(HOLDER_SUFFIX)) {
    throw new KomoriumError(`${cf.entry}: class ${javaName(cf.thisClass)} is already instrumented by komorium-ts`);
  }
  const isInterface = (cf.access & ACC.INTERFACE) !== 0;
  const inHolder = isInterface || baseInHolder;
  const base: SiteBase = { owner: inHolder ? cf.thisClass + HOLDER_SUFFIX : cf.thisClass, name: SITES_FIELD };
  const report = emptyFrameworkReport(cf.thisClass, cf.methods.length);
  addSerialVersionUID(cf, () => program.isSerializable(cf.thisClass));
  // Every method with code is registered, with or without probes: a call edge names its callee
  // with the source file and first line the class registered.
  const table = new SiteTable();
  const methodIndex = new Map<MemberInfo, number>();
  for (const m of cf.methods) {
    const attr = m.attributes.find((a) => a.name === 'Code');
    if (attr) methodIndex.set(m, table.addMethod(m.name, m.desc, firstLine(readCode(cf, m, attr))));
  }
  let clinit: { member: MemberInfo; code: MethodCode } | null = null;
  const classOptions = isBurstTrigger(options.trigger) ? { ...options, trigger: prepareClass(cf, options.trigger) } : options;
  const added: MemberInfo[] = [];

  for (const m of cf.methods) {
    const attr = m.attributes.find((a) => a.name === 'Code');
    if (!attr) continue;
    const outcome = layOut(cf, m, attr, methodIndex.get(m)!, table, program.hierarchy, classOptions, base, report);
    if (outcome === null) {
      // No probes, or no layout fits: the method stays as it was.
      if (m.name === '<clinit>') clinit = { member: m, code: readCode(cf, m, attr) };
      continue;
    }
    report.instrumented++;
    report.layouts[outcome.layout]++;
    if (outcome.twin) added.push(outcome.twin);
    added.push(...outcome.probeMethods);
    if (m.name === '<clinit>') clinit = { member: m, code: outcome.code };
    else replaceCode(m, outcome.encoded);
  }
  report.sites = table.rows.length;
  cf.methods.push(...added);

  const extra: FrameworkClassResult['extra'] = [];
  if (table.methods.length > 0) {
    const init = registrationCode(cf.cp, cf.thisClass, sourceFileOf(cf), table, options.layout, base);
    if (inHolder) {
      extra.push({ name: base.owner, bytes: holderClass(cf, base, (holder) => registrationCode(holder.cp, cf.thisClass, sourceFileOf(cf), table, options.layout, base)) });
    } else {
      cf.fields.push(cf.newMember(ACC.PRIVATE | ACC.STATIC | ACC.FINAL | ACC.SYNTHETIC, SITES_FIELD, 'I'));
      if (clinit) clinit.code.nodes.unshift(...init);
      else cf.methods.push(syntheticClinit(cf, init));
    }
  }
  if (clinit) replaceCode(clinit.member, writeCode(cf, clinit.member, clinit.code, { frameAt: encoderFrames(cf, clinit.member, clinit.code) }));
  return { bytes: cf.toBytes(), extra, report };
}

/** The method laid out with the first layout that fits, or null (reported) when it has no probes or none fits. */
function layOut(
  cf: ClassFile,
  m: MemberInfo,
  attr: RawAttribute,
  methodIndex: number,
  table: SiteTable,
  hierarchy: ClassHierarchy,
  options: FrameworkOptions,
  base: SiteBase,
  report: FrameworkClassReport,
): { layout: LayoutName; code: MethodCode; encoded: RawAttribute; twin?: MemberInfo; probeMethods: MemberInfo[] } | null {
  const where = `${m.name}${m.desc}`;
  const original = codeLength(attr);
  const sitesBefore = table.rows.length;
  let firstReason: string | null = null;
  const attempts = attemptsFor(cf, m, original, options);
  for (const { layout, outOfLine, trigger, limit, preferred, probeMethods: inMethods, sharedRestores } of attempts) {
    // Each try starts from the bytes: a layout edits the code it is given.
    table.rows.length = sitesBefore;
    const probeMethods = inMethods ? ProbeMethods.for(cf, base) : null;
    if (inMethods && probeMethods === null) continue;
    const context = (code: MethodCode, method: MemberInfo, withProbes: boolean) => {
      const cfg = buildCfg(code);
      const probes = withProbes
        ? findProbes({ cf, method: m, methodIndex, code, cfg, kinds: options.kinds, hierarchy, table })
        : { entry: [], before: new Map(), blocks: new Map(), backedges: new Map(), count: 0 };
      return { cf, method, code, cfg, probes, trigger, base, frames: new FrameSource(cf, method, code), probeMethods };
    };
    let reason: string;
    try {
      let laid: MethodCode;
      let probes: number;
      let twin: { member: MemberInfo; code: MethodCode } | undefined;
      if (outOfLine) {
        const t = twinOf(cf, m);
        const twinCtx = context(readCode(cf, m, attr, true), t.typed, true);
        if (isEmpty(twinCtx.probes)) return null;
        const ctx = context(readCode(cf, m, attr, true), m, false);
        const points = transferPoints(ctx);
        laid = checksCallingTwin(ctx, t.ref, points, sharedRestores);
        twin = { member: t.member, code: twinBody(twinCtx, m, points) };
        probes = twinCtx.probes.count;
      } else {
        const ctx = context(readCode(cf, m, attr, true), m, true);
        if (isEmpty(ctx.probes)) return null;
        laid = layoutOf(layout)(ctx);
        probes = ctx.probes.count;
      }
      const encoded = writeCode(cf, m, laid, { frameAt: encoderFrames(cf, m, laid) });
      if (twin) twin.member.attributes = [encodeTwin(cf, twin.member, twin.code)];
      const size = codeLength(encoded);
      if (m.name === '<clinit>' || size <= limit) {
        // Exhaustive past HugeMethodLimit after all (no twin fits) is no other layout: the method runs interpreted, as it always did.
        if (firstReason !== null && (layout !== options.layout || outOfLine)) report.fallbacks.push({ method: where, from: options.layout, to: layout, reason: firstReason });
        report.probes += probes;
        if (twin) report.outOfLine++;
        if (m.name !== '<clinit>' && original <= HUGE_METHOD_LIMIT && size > HUGE_METHOD_LIMIT) report.overJitLimit.push(where);
        if (probeMethods && probeMethods.made.length > 0 && PROBE_METHODS !== 'all') report.compact.push(where);
        return { layout, code: laid, encoded, twin: twin?.member, probeMethods: probeMethods?.made ?? [] };
      }
      reason =
        limit === HUGE_METHOD_LIMIT
          ? `${original} bytes would grow to ${size}, past HotSpot's ${HUGE_METHOD_LIMIT}-byte HugeMethodLimit`
          : `${original} bytes would grow to ${size}, past 65535`;
    } catch (e) {
      if (e instanceof LayoutRefused) reason = e.message;
      else if (e instanceof MethodTooLargeError) reason = `${original} bytes would grow past 65535`;
      else throw e;
    }
    // The out-of-line copy falling back to the copy inside the method is no fallback of layout.
    if (!outOfLine && !preferred) firstReason ??= reason;
  }
  table.rows.length = sitesBefore;
  report.fallbacks.push({ method: where, from: options.layout, to: 'none', reason: firstReason! });
  report.leftAsIs.push({ method: where, reason: firstReason! });
  return null;
}

/**
 * Full-Duplication keeps its copy in a twin method where it can (twin.ts); KOMORIUM_DUP=inline keeps it inside (for measurements).
 * KOMORIUM_DUP=inline-big keeps it inside a method already past FreqInlineSize when the method stays under
 * HugeMethodLimit with it (the paper's layout: the check jumps into the copy, no transfer of locals, no call).
 */
const DUP = experiment('KOMORIUM_DUP');
const OUT_OF_LINE = DUP !== 'inline';
const INSIDE_WHEN_BIG = DUP === 'inline-big';
/**
 * KOMORIUM_PROBE_METHODS=all puts every method's probes without operands in probe methods, =never
 * none, instead of only where the exhaustive layout would push a method past HugeMethodLimit (for
 * measurements and tests).
 */
const PROBE_METHODS = experiment('KOMORIUM_PROBE_METHODS');

/** One way to lay a method out: the layout, whether its copy goes into a twin, what its checks read, and the size it must fit. */
interface Attempt {
  layout: LayoutName;
  outOfLine: boolean;
  trigger: CheckTrigger;
  limit: number;
  /** A preference tried first: not fitting is no fallback of layout. */
  preferred?: boolean;
  /** Probes without operands in methods of their own (layout/probe-methods.ts). */
  probeMethods?: boolean;
  /** Out of line: the calls of the twin share their restores of the locals (twin.ts), to fit. */
  sharedRestores?: boolean;
}

/**
 * The layouts tried for a method of `original` bytes, in order. A sampled layout keeps a method
 * that HotSpot compiles under HugeMethodLimit. The exhaustive layout is the reference every sampled
 * profile is measured against: it covers every method a sampled layout covers (full-dup's twin
 * keeps a method small where exhaustive's probes would not), and a method it pushes past
 * HugeMethodLimit runs interpreted, which changes its cost, not its counts. Except where the
 * exhaustive layout serves kinds that sample on their own behind one flag (cbs): there it is no
 * reference but the kind's layout, and its cost counts (Rhino's interpreter loop, 6,791 bytes,
 * grew to 9,784 and ran interpreted: 1.3 times Rhino's CPU time, BENCHMARKS-cbs.md). Such a method
 * gets the full-dup layout with its copy in a twin, the checks at its entry and loop heads reading
 * the flag: the method stays compilable, and while the flag is up the twin runs the copy, whose
 * probes see every event; only where no twin fits is the method laid out exhaustively past the limit.
 * Elsewhere a method the exhaustive probes would push past the limit first tries them as calls of
 * probe methods (layout/probe-methods.ts), 3 bytes each: subpaths' block probes took Rhino's
 * interpretLoop to 10,671 bytes in line and 7,955 so, and Rhino from 2.49 to 1.27 times its CPU time
 * (BENCHMARKS-subpaths.md, Table 4.3's note).
 */
function attemptsFor(cf: ClassFile, m: MemberInfo, original: number, options: FrameworkOptions): Attempt[] {
  const compiled = original <= HUGE_METHOD_LIMIT;
  if (options.layout === 'exhaustive') {
    const flag = compiled ? ownFlag(options.kinds) : null;
    if (flag === null) {
      const anyway = { layout: 'exhaustive' as const, outOfLine: false, trigger: options.trigger, limit: 65535 };
      if (!compiled) return [anyway];
      if (PROBE_METHODS === 'all') return [{ ...anyway, limit: HUGE_METHOD_LIMIT, probeMethods: true }, anyway];
      if (PROBE_METHODS === 'never') return [anyway];
      return [{ ...anyway, limit: HUGE_METHOD_LIMIT }, { ...anyway, limit: HUGE_METHOD_LIMIT, probeMethods: true }, anyway];
    }
    return [
      { layout: 'exhaustive', outOfLine: false, trigger: options.trigger, limit: HUGE_METHOD_LIMIT },
      ...(canHaveTwin(cf, m) ? twinAttempts({ layout: 'full-dup' as const, outOfLine: true, trigger: flag, limit: HUGE_METHOD_LIMIT }) : []),
      { layout: 'exhaustive', outOfLine: false, trigger: options.trigger, limit: 65535 },
    ];
  }
  const limit = compiled ? HUGE_METHOD_LIMIT : 65535;
  return FALLBACKS[options.layout].flatMap((layout): Attempt[] => {
    const inside = { layout, outOfLine: false, trigger: options.trigger, limit };
    if (layout !== 'full-dup' || !OUT_OF_LINE || !canHaveTwin(cf, m)) return [inside];
    if (INSIDE_WHEN_BIG && original > FREQ_INLINE_SIZE && compiled) return [{ ...inside, preferred: true }, ...twinAttempts({ ...inside, outOfLine: true }), inside];
    return [...twinAttempts({ ...inside, outOfLine: true }), inside];
  });
}

/** A twin's call with restores of its own, then with shared ones (smaller; twin.ts says what each costs). */
function twinAttempts(a: Attempt): Attempt[] {
  return [a, { ...a, sharedRestores: true }];
}

/**
 * The flag behind which every probe of `kinds` runs, when they all sample on their own behind the
 * same one (EventRequest.guard); null otherwise (a probe that must run at every event, such as
 * the entry placements' site stores, cannot wait in a twin).
 */
function ownFlag(kinds: readonly KindProbes[]): OwnFlag | null {
  let flag: OwnFlag | null = null;
  for (const k of kinds) {
    if (k.sampling !== 'own') return null;
    for (const r of k.events) {
      if (r.siteOnly) continue;
      if (r.guard === undefined) return null;
      if (flag !== null && (flag.owner !== k.runtimeClass || flag.field !== r.guard)) return null;
      flag = { owner: k.runtimeClass, field: r.guard };
    }
  }
  return flag;
}

function layoutOf(layout: LayoutName) {
  switch (layout) {
    case 'full-dup':
      return fullDuplication;
    case 'partial-dup':
      return partialDuplication;
    case 'no-dup':
      return (ctx: Parameters<typeof fullDuplication>[0]) => guardedLayout(ctx, true);
    case 'exhaustive':
      return (ctx: Parameters<typeof fullDuplication>[0]) => guardedLayout(ctx, false);
  }
}

function replaceCode(m: MemberInfo, code: RawAttribute): void {
  const i = m.attributes.findIndex((a) => a.name === 'Code');
  if (i >= 0) m.attributes[i] = code;
  else m.attributes.push(code);
}

function sourceFileOf(cf: ClassFile): string | null {
  const a = cf.attributes.find((x) => x.name === 'SourceFile');
  if (!a || a.info.length !== 2) return null;
  try {
    return cf.cp.utf8((a.info[0]! << 8) | a.info[1]!);
  } catch {
    return null;
  }
}

function syntheticClinit(cf: ClassFile, init: MethodCode['nodes']): MemberInfo {
  const clinit = cf.newMember(ACC.STATIC | ACC.SYNTHETIC, '<clinit>', '()V');
  const code: MethodCode = { maxStack: 0, maxLocals: 0, nodes: [...init, op(OP.RETURN)], tryCatch: [], attributes: [], frames: null, frameKinds: new Map() };
  clinit.attributes = [writeCode(cf, clinit, code)];
  return clinit;
}

/** `X$$komorium`: holds the site base of an interface (interfaces cannot have private fields). */
function holderClass(owner: ClassFile, base: SiteBase, init: (holder: ClassFile) => MethodCode['nodes']): Uint8Array {
  const bytes = minimalClassBytes(base.owner, 'java/lang/Object', owner.major, owner.minor, ACC.FINAL | ACC.SUPER | ACC.SYNTHETIC);
  const holder = ClassFile.parse(bytes, `${base.owner}.class`);
  holder.fields.push(holder.newMember(ACC.STATIC | ACC.FINAL | ACC.SYNTHETIC, base.name, 'I'));
  holder.methods.push(syntheticClinit(holder, init(holder)));
  return holder.toBytes();
}
