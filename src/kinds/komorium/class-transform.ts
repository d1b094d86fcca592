/**
 * Rewrites one class (seed 002 §4): every method with code gets an extended version carrying the
 * instrumented body and keeps a wrapper with its original signature; natives and abstract
 * methods get extended stand-ins; method identifiers are created in <clinit>.
 * A method that cannot be rewritten keeps its original code, gets a forwarding stand-in so that
 * callers elsewhere stay valid, and is reported with the reason.
 */
import type { ClassFile } from '../../classfile/classfile.js';
import { HUGE_METHOD_LIMIT } from '../../bytecode/hotspot-limits.js';
import { ACC, type MemberInfo, type RawAttribute } from '../../classfile/model.js';
import { readCode } from '../../bytecode/code-reader.js';
import { codeLength, writeCode } from '../../bytecode/code-writer.js';
import type { MethodCode } from '../../bytecode/ir.js';
import { OP, isInvoke } from '../../bytecode/opcodes.js';
import { firstLine, lineOfEachInsn } from '../../framework/sites.js';
import { encoderFrames, simulateFrames } from '../../analysis/frames.js';
import { ClassFormatError, KomoriumError, MethodTooLargeError } from '../../errors.js';
import { RT } from './runtime-names.js';
import type { ProgramView } from './calls.js';
import { instrumentBody, extendedMember, NotInstrumentable, type BodyOptions, type BodyStats } from './method-body.js';
import { TableBodies } from './body/table-body.js';
import { addFactories, addMidFields, emptyCode, forwarderCode, midInitCode, syntheticClinit, wrapperCode, MID_FIELD_ACCESS, type ForwardMode, type MidEntry } from './members.js';
import { dispatchChecked, jdkMidOrder, planClass, type MethodKind } from './plan.js';
import type { MidRef } from './body/context.js';
import { isJdkClass } from './calls.js';
import { computePieces } from './pieces.js';
import { op } from '../../bytecode/emit.js';
import { buildHolderClass } from './holder.js';
import { buildCompanion, companionsOf } from './companion.js';
import { addSerialVersionUID } from '../../instrument/serial.js';
import { javaName } from '../../classfile/names.js';

export interface InstrumentOptions {
  checks: 'all' | 'optimized';
  maxPath: number;
  leafOpt: boolean;
  callbacks: boolean;
  /** See BodyOptions.counter. */
  counter: 'field' | 'local';
  /**
   * 'fit': a method HotSpot compiles (at most HugeMethodLimit bytes) stays compilable: it gets the
   * compact form (BodyOptions.compact) where the inline form would outgrow the limit, and is left
   * as it was where even that would. 'ignore': always the inline form (for a JVM run with
   * -XX:-DontCompileHugeMethods, as `komorium-ts run` does). Default 'ignore': 'fit' drops
   * the methods even the compact form cannot fit (Rhino's Interpreter.interpretLoop, 41% of its
   * profile), so it is opt-in.
   */
  jitLimit?: 'fit' | 'ignore';
  /** See BodyOptions.callLines. */
  callLines?: boolean;
  /**
   * The program will run on the instrumented JDK (run --jdk): every JDK call publishes the reified
   * stack, the inert ones too (String, StringBuilder, the boxes), whose bytecodes are now counted.
   */
  countedJdk?: boolean;
  /**
   * Which pipeline rewrites method bodies: 'table' where it does what the body needs, else the
   * object pipeline (body/table-body.ts); 'object' always the object pipeline. Both give the same
   * bytes; 'object' is for the tests that compare them and for measuring them side by side.
   * Default 'table', unless KOMORIUM_TS_OBJECT_BODY=1.
   */
  bodies?: 'table' | 'object';
}

export interface LeftAsIs {
  method: string;
  reason: string;
}

export interface ClassReport {
  className: string;
  methods: number;
  instrumented: number;
  wrappers: number;
  reverseWrappers: number;
  forwarders: number;
  blocks: number;
  counters: number;
  checks: number;
  checksDropped: number;
  leaf: number;
  extendedCalls: number;
  callouts: number;
  /**
   * Methods JIT-compiled before (code <= HugeMethodLimit, 8000 bytes) whose instrumented code is
   * larger: HotSpot interprets them for ever unless the JVM runs with -XX:-DontCompileHugeMethods.
   */
  overJitLimit: string[];
  /**
   * Methods that the inline form would have pushed past HugeMethodLimit and that got the compact
   * form instead (BodyOptions.compact): same counts, each update a call of a TC helper.
   */
  compact: string[];
  /**
   * Methods whose code outgrew 64 KiB with MaxPath splitting and fit without it (bcprov's table
   * initialisers): every bytecode is counted, but a sample can land up to a whole block late.
   */
  withoutMaxPath: string[];
  /**
   * Methods whose call-line stores (instrument --call-lines) alone would have pushed them past
   * HugeMethodLimit, or kept them past it: instrumented without, their calls show the method's first line.
   */
  withoutCallLines: string[];
  leftAsIs: LeftAsIs[];
}

/** The counters a class report sums, all zero. */
export function emptyCounts(): Omit<ClassReport, 'className' | 'leftAsIs' | 'overJitLimit' | 'compact' | 'withoutMaxPath' | 'withoutCallLines'> {
  return {
    methods: 0,
    instrumented: 0,
    wrappers: 0,
    reverseWrappers: 0,
    forwarders: 0,
    blocks: 0,
    counters: 0,
    checks: 0,
    checksDropped: 0,
    leaf: 0,
    extendedCalls: 0,
    callouts: 0,
  };
}

export function emptyReport(className: string, methods: number): ClassReport {
  return { className, ...emptyCounts(), methods, overJitLimit: [], compact: [], withoutMaxPath: [], withoutCallLines: [], leftAsIs: [] };
}


export interface ClassResult {
  bytes: Uint8Array;
  /**
   * A class of the instrumented JDK: its source file and the first line of each method that has an
   * identifier (name + descriptor → line), for the method table instrument-jdk writes.
   */
  jdkMethods?: { source: string | null; firstLines: Record<string, number> };
  /** Classes the transform adds beside this one (interface identifier holders): internal name → bytes. */
  extra: { name: string; bytes: Uint8Array }[];
  report: ClassReport;
}

function sourceFileOf(cf: ClassFile): string | null {
  const a = cf.attributes.find((x) => x.name === 'SourceFile');
  if (!a || a.info.length !== 2) return null;
  try {
    return cf.cp.utf8((a.info[0] << 8) | a.info[1]);
  } catch {
    return null;
  }
}

/** One rewrite of a method body: its code as objects when the object pipeline made it (see TableBodies). */
interface Rewritten {
  code: MethodCode | null;
  line: number;
  stats: BodyStats;
  lines: Map<number, { owner: string; name: string }>;
  encoded: RawAttribute;
}

/** InstrumentOptions.bodies by default: KOMORIUM_TS_OBJECT_BODY=1 measures the object pipeline through the CLI. */
const DEFAULT_BODIES = process.env['KOMORIUM_TS_OBJECT_BODY'] === '1' ? 'object' : 'table';

/** How many method bodies each pipeline rewrote in this thread (for the tests). */
export const bodiesRewritten = { table: 0, object: 0 };

/** BodyOptions.callLines of a method instrumented without call lines. */
const NO_CALL_LINES = new Map<number, { owner: string; name: string }>();

/** The distinct source lines of a method's invoke instructions, ascending. */
function callLinesOf(code: MethodCode): number[] {
  const lines = new Set<number>();
  for (const [insn, line] of lineOfEachInsn(code)) if (line >= 0 && isInvoke(insn.op)) lines.add(line);
  return [...lines].sort((a, b) => a - b);
}

function codeAttribute(m: MemberInfo): RawAttribute | undefined {
  return m.attributes.find((a) => a.name === 'Code');
}

/**
 * `midsInHolder`: the method identifiers go into a holder class, as an interface's do, instead of
 * static final fields initialised at the start of <clinit>. For a class whose <clinit> (a parser's
 * tables) has no room left for that initialisation.
 */
export function instrumentClass(cf: ClassFile, program: ProgramView, options: InstrumentOptions, midsInHolder = false): ClassResult {
  const isInterface = (cf.access & ACC.INTERFACE) !== 0;
  const report = emptyReport(cf.thisClass, cf.methods.length);
  if (cf.cp.size > 1 && cf.methods.some((m) => m.desc.includes(RT.EXTRA_ARGS))) {
    throw new KomoriumError(`${cf.entry}: class ${javaName(cf.thisClass)} is already instrumented by komorium-ts`);
  }
  // Computed from the class as it was, before anything is added.
  addSerialVersionUID(cf, () => program.isSerializable(cf.thisClass));
  // The instrumented JDK (instrument-jdk): constant identifiers, methods kept as they are by the plan.
  const jdkPlan = program.jdk ? program.plans.get(cf.thisClass) : undefined;
  const jdk = jdkPlan?.midBase !== undefined ? { plan: jdkPlan, order: jdkMidOrder(jdkPlan) } : null;
  const plan = jdk?.plan ?? planClass(cf.thisClass, cf.access, cf.methods, true);
  const tcGetter = jdk ? 'jdkTC' : 'getTC';
  const firstLines: Record<string, number> = {};
  const inHolder = isInterface || midsInHolder;
  const midOwner = inHolder ? cf.thisClass + RT.HOLDER_SUFFIX : cf.thisClass;
  const mids: MidEntry[] = [];
  const added: MemberInfo[] = [];
  const needFramesFor = (code: MethodCode) => code.frames !== null || cf.major >= 51;
  let clinit: { member: MemberInfo; code: MethodCode; original: boolean } | null = null;
  const tables = (options.bodies ?? DEFAULT_BODIES) === 'table' ? new TableBodies(cf, program) : null;

  const leave = (m: MemberInfo, reason: string) =>
    report.leftAsIs.push({ method: `${m.name}${m.desc}`, reason });
  const addStats = (s: BodyStats) => {
    report.instrumented++;
    report.blocks += s.pieces;
    report.counters += s.counters;
    report.checks += s.checks;
    report.checksDropped += s.checksDropped;
    report.extendedCalls += s.extendedCalls;
    report.callouts += s.callouts;
    if (s.leaf) report.leaf++;
  };
  const addForwarder = (m: MemberInfo, mode: ForwardMode) => {
    const ext = extendedMember(cf, m);
    ext.access &= ~(ACC.ABSTRACT | ACC.NATIVE);
    ext.attributes = [writeCode(cf, ext, forwarderCode(cf, m, mode, options.callbacks))];
    added.push(ext);
  };

  for (const m of [...cf.methods]) {
    const kind: MethodKind = plan.methods.get(m.name + m.desc)!.kind;
    if (kind === 'none') continue;
    // Guards virtual dispatch against uninstrumented overrides (plan.ts dispatchChecked).
    const checked = dispatchChecked(cf.access, { ...m, kind });
    if (kind === 'native') {
      addForwarder(m, checked ? 'dual' : 'special');
      report.reverseWrappers++;
      continue;
    }
    if (kind === 'forwarder') {
      addForwarder(m, 'virtual');
      report.forwarders++;
      continue;
    }
    const attr = codeAttribute(m);
    if (!attr) throw new KomoriumError(`${cf.entry}: method ${m.name}${m.desc} has no Code attribute`);
    const midIndex = mids.length;
    const mid: MidRef = jdk
      ? { value: jdk.plan.midBase! + jdk.order.findIndex((x) => x.name === m.name && x.desc === m.desc) }
      : { owner: midOwner, name: RT.MID_FIELD_PREFIX + midIndex };
    const mode = kind === 'body' ? 'extended' : 'in-place';
    const ext = kind === 'body' ? extendedMember(cf, m) : m;
    // instrument --call-lines: one more identifier per line the method calls from, after its own
    // (not in the JDK: its identifiers are constants numbered before the rewrite).
    const callLines = options.callLines && !jdk ? (tables?.callLines(m, attr) ?? callLinesOf(readCode(cf, m, attr))) : [];
    const callLineMids = new Map(callLines.map((l, j) => [l, { owner: midOwner, name: RT.MID_FIELD_PREFIX + (midIndex + 1 + j) }]));
    const rewrite = (maxPath: number, compact = false, lines = callLineMids): Rewritten => {
      const bodyOptions: BodyOptions = {
        mode,
        leafOpt: options.leafOpt,
        callbacks: options.callbacks,
        counter: compact ? 'field' : options.counter,
        compact,
        mid,
        tcGetter,
        countedJdk: options.countedJdk === true,
        dispatchCheck: checked,
        callLines: lines,
      };
      const pieceOptions = { checks: options.checks, maxPath };
      const table = tables?.rewrite(m, attr, pieceOptions, bodyOptions);
      if (table) {
        bodiesRewritten.table++;
        return { code: null, lines, ...table };
      }
      bodiesRewritten.object++;
      const code = readCode(cf, m, attr);
      const line = firstLine(code);
      const pieces = computePieces(code, attr.info, cf.entry, `${m.name}${m.desc}`, pieceOptions);
      const frames = needFramesFor(code) ? simulateFrames(cf, m, code) : null;
      const stats = instrumentBody(cf, m, code, pieces, frames, program, bodyOptions);
      // For <clinit> only a trial: the identifiers' initialisation goes in front of it at the end.
      return { code, line, stats, lines, encoded: writeCode(cf, ext, code, { frameAt: encoderFrames(cf, ext, code) }) };
    };
    try {
      let r: ReturnType<typeof rewrite>;
      let maxPath = options.maxPath;
      try {
        r = rewrite(maxPath);
      } catch (e) {
        // MaxPath's checks can push a long straight-line body (a table initialiser) past 64 KiB.
        if (!(e instanceof MethodTooLargeError) || maxPath === 0) throw e;
        maxPath = 0;
        r = rewrite(maxPath);
        report.withoutMaxPath.push(`${m.name}${m.desc}`);
      }
      const jitted = m.name !== '<clinit>' && codeLength(attr) <= HUGE_METHOD_LIMIT;
      const over = (x: { encoded: RawAttribute }) => jitted && codeLength(x.encoded) > HUGE_METHOD_LIMIT;
      /** `x`, or `x` rewritten without call lines if that keeps it under HugeMethodLimit (stores of call lines are the first thing given up). */
      const underLimit = (x: typeof r, compact: boolean): typeof r => {
        if (!over(x) || x.lines.size < 2) return x;
        const plain = rewrite(maxPath, compact, NO_CALL_LINES);
        if (over(plain)) return x;
        report.withoutCallLines.push(`${m.name}${m.desc}`);
        return plain;
      };
      r = underLimit(r, false);
      if (over(r) && options.jitLimit === 'fit') {
        // HotSpot would never compile it: the compact form keeps it under the limit where it can,
        // else the original code stays, compiled but not counted (its callees keep its context).
        const inline = codeLength(r.encoded);
        r = underLimit(rewrite(maxPath, true, r.lines), true);
        const compact = codeLength(r.encoded);
        if (compact > HUGE_METHOD_LIMIT) {
          throw new NotInstrumentable(
            `${codeLength(attr)} bytes would grow to ${inline} (${compact} in the compact form), past HotSpot's ${HUGE_METHOD_LIMIT}-byte HugeMethodLimit, and never be JIT-compiled (--jit-limit ignore instruments it)`,
          );
        }
        report.compact.push(`${m.name}${m.desc}`);
      }
      const { code, line, stats, encoded } = r;
      if (m.name === '<clinit>') {
        // In place, so never a table body.
        if (code === null) throw new Error(`${cf.entry}: <clinit> rewritten without its code`);
        clinit = { member: m, code, original: false };
      } else {
        if (jitted && codeLength(encoded) > HUGE_METHOD_LIMIT) {
          report.overJitLimit.push(`${m.name}${m.desc}`);
        }
        if (kind === 'body') {
          ext.attributes = [encoded];
          replaceCode(m, tables ? tables.wrapper(m, checked, tcGetter) : writeCode(cf, m, wrapperCode(cf, m, checked, tcGetter)));
          added.push(ext);
          report.wrappers++;
        } else {
          replaceCode(m, encoded);
        }
      }
      if ('value' in mid) firstLines[m.name + m.desc] = line;
      else mids.push({ field: mid.name, name: m.name, desc: m.desc, line });
      for (const [callLine, f] of r.lines) mids.push({ field: f.name, name: m.name, desc: m.desc, line, callLine });
      addStats(stats);
    } catch (e) {
      // Broken input is the user's to know about (the run fails, or --skip-broken copies the class).
      if (!(e instanceof KomoriumError) || e instanceof ClassFormatError) throw e;
      const reason = e instanceof NotInstrumentable ? e.message : e.message.replace(/^[^:]*: /, '');
      leave(m, reason);
      if (kind === 'body') {
        addForwarder(m, checked ? 'dual' : 'special');
        report.forwarders++;
      } else if (m.name === '<clinit>') {
        clinit = { member: m, code: readCode(cf, m, attr), original: true };
      }
    }
  }

  const extra: { name: string; bytes: Uint8Array }[] = [];
  if (mids.length > 0) {
    const dotted = javaName(cf.thisClass);
    const source = sourceFileOf(cf);
    if (inHolder) {
      extra.push({ name: midOwner, bytes: buildHolderClass(cf, midOwner, dotted, source, mids) });
    } else {
      addMidFields(cf, MID_FIELD_ACCESS, mids);
      if (clinit) clinit.code.nodes.unshift(...midInitCode(cf, cf.thisClass, dotted, source, mids));
      else if (tables) added.push(tableClinit(cf, tables, dotted, source, mids));
      else {
        const init = midInitCode(cf, cf.thisClass, dotted, source, mids);
        added.push(syntheticClinit(cf, () => init));
      }
    }
  }
  if (clinit) replaceCode(clinit.member, writeCode(cf, clinit.member, clinit.code, { frameAt: encoderFrames(cf, clinit.member, clinit.code) }));
  if (!isInterface) added.push(classMethod(cf, program, jdk !== null, tables));
  if (isInterface) {
    const companion = buildCompanion(cf);
    if (companion) extra.push(companion);
  } else {
    for (const c of companionsOf(cf.thisClass, program)) if (!cf.interfaces.includes(c)) cf.interfaces.push(c);
  }
  cf.methods.push(...added);
  addFactories(cf, plan);
  const jdkMethods = jdk ? { jdkMethods: { source: sourceFileOf(cf), firstLines } } : {};
  return { bytes: cf.toBytes(), extra, report, ...jdkMethods };
}

/**
 * `protected synthetic Class komorium$class()`: returns this class, so that an extended method
 * reached by virtual dispatch can check cheaply that the receiver's class is instrumented
 * (method-body.ts emitDispatchCheck); uninstrumented subclasses inherit it and so fail the check.
 * It returns null, which always fails the check (exact, only slower), where a superclass between
 * this class and the JDK is not instrumented in this run (it might override a method without an
 * extended version), and in class files older than 49, which cannot ldc a class.
 */
function classMethod(cf: ClassFile, program: ProgramView, inJdk: boolean, tables: TableBodies | null): MemberInfo {
  let trusted = cf.major >= 49;
  // In the JDK itself every superclass up to Object must be instrumented (Thread's subclasses are not trusted).
  const above = (s: string) => (inJdk ? s !== 'java/lang/Object' : !isJdkClass(s));
  for (let s = cf.superClass; trusted && s !== null && above(s); ) {
    const info = program.plans.get(s)?.instrumented ? program.hierarchy.lookup(s) : null;
    if (info === null) trusted = false;
    else s = info.superName;
  }
  const member = cf.newMember(ACC.PROTECTED | ACC.SYNTHETIC, RT.CLASS_METHOD, RT.CLASS_METHOD_DESC);
  const classIndex = trusted ? cf.cp.classIndex(cf.thisClass) : null;
  member.attributes = [
    tables
      ? tables.classMethod(classIndex)
      : writeCode(cf, member, emptyCode([classIndex === null ? op(OP.ACONST_NULL) : { op: OP.LDC, cp: classIndex }, op(OP.ARETURN)])),
  ];
  return member;
}

/**
 * The synthetic <clinit> of a class without one, written as bytes (members.ts syntheticClinit): its
 * constants, its name and descriptor, and 'Code' are added to the pool in that order, as there.
 */
function tableClinit(cf: ClassFile, tables: TableBodies, dotted: string, source: string | null, mids: MidEntry[]): MemberInfo {
  const code = tables.midInit(cf.thisClass, dotted, source, mids);
  const clinit = cf.newMember(ACC.STATIC | ACC.SYNTHETIC, '<clinit>', '()V');
  clinit.attributes = [tables.straight(code)];
  return clinit;
}

function replaceCode(m: MemberInfo, code: RawAttribute): void {
  const i = m.attributes.findIndex((a) => a.name === 'Code');
  if (i >= 0) m.attributes[i] = code;
  else m.attributes.push(code);
}
