/**
 * Komorium's rewrite of one method body on the table pipeline (docs/non-object-ir.md, step 3):
 * what method-body.ts does on the object IR, for an extended method with the field counter, which
 * is what `instrument` does to most methods. The code is never read into objects: the pieces, the
 * lines and the frames are found on the CodeTable, the inserted code is built as fragments
 * (table-fragments.ts), and TableWriter lays it out. The output is the object pipeline's, byte for
 * byte, constant pool included (test/table-body.test.ts).
 *
 * `rewrite` answers null, before it adds anything to the constant pool, for what it does not do yet,
 * and the caller uses the object pipeline: in-place methods, the local counter and the compact form,
 * the instrumented JDK, calls through a companion, a `new` of a class in another package with a factory,
 * type annotations on code, a long or double where the new locals go, and code that could outgrow
 * 16-bit branch offsets. Also broken code (code-table-validation.ts): the object reader names what
 * is wrong, as it did before this pipeline.
 */
import type { ClassFile } from '../../../classfile/classfile.js';
import { ACC, type MemberInfo, type RawAttribute } from '../../../classfile/model.js';
import { argSlots, parseMethodDescriptor } from '../../../classfile/descriptor.js';
import { CodeTable, codeAttribute } from '../../../bytecode/code-table.js';
import { Fragment } from '../../../bytecode/fragment.js';
import { TableWriter, TableWriterLimit } from '../../../bytecode/table-writer.js';
import { ITEM } from '../../../bytecode/stack-map.js';
import { OP, isInvoke } from '../../../bytecode/opcodes.js';
import { TableStack } from '../../../analysis/table-stack.js';
import { frameClassesValid, readerAccepts } from '../../../bytecode/code-table-validation.js';
import { KomoriumError } from '../../../errors.js';
import { TableLines } from '../../../analysis/table-lines.js';
import { decideCall, otherPackageInit, type CallDecision, type CallSite, type ProgramView } from '../calls.js';
import { findPieces, type TablePieces } from '../pieces.js';
import type { BodyOptions, BodyStats } from './context.js';
import { BodyRefs } from './body-refs.js';
import { ExtendedRefs, extendedInvoke } from './call-fragment.js';
import {
  Insertions,
  callLine,
  callout,
  classMethodCode,
  counterPiece,
  entry,
  extraArguments,
  midInit,
  wrapper,
  type FragmentContext,
  type StraightCode,
} from './table-fragments.js';
import type { MidEntry } from '../members.js';
import { ByteWriter } from '../../../bytecode/byte-writer.js';
import { RT, extendDescriptor, extendedName } from '../runtime-names.js';

export interface TableBodyResult {
  encoded: RawAttribute;
  stats: BodyStats;
  /** The method's first line (sites.ts firstLine). */
  line: number;
}

/** Decisions of the calls a table body makes, per instruction. */
const CALL = { none: 0, extended: 1, direct: 2, callout: 3, plain: 4 } as const;
const CALL_OF: Partial<Record<CallDecision, number>> = { extended: CALL.extended, 'extended-direct': CALL.direct, callout: CALL.callout, plain: CALL.plain };

// One set per thread, as pieces.ts's table.
const stack = new TableStack();
const lines = new TableLines();
const NO_FRAMES = { n: 0, at: new Int32Array(0) };
/** For callLines, which reads a method before its pieces are found. */
const lineCode = new CodeTable();

/** The table bodies of one class: the writer, the fragment builder and the pool entries they name. */
export class TableBodies {
  private readonly writer: TableWriter;
  private readonly fragment: Fragment;
  private readonly refs: BodyRefs;
  private readonly extended: ExtendedRefs;
  private calls = new Uint8Array(256);
  private pieceAt = new Int32Array(256);
  private lateAt = new Int32Array(256);

  constructor(
    private readonly cf: ClassFile,
    private readonly program: ProgramView,
  ) {
    this.writer = new TableWriter(cf.cp, cf.entry, cf.thisClass);
    this.fragment = new Fragment(cf.cp);
    this.refs = new BodyRefs(cf.cp);
    this.extended = new ExtendedRefs(cf.cp);
  }

  /**
   * The lines `m`'s calls are on, ascending (instrument --call-lines), or null where the object
   * reader must read the method: it names what is wrong with its tables.
   */
  callLines(m: MemberInfo, attr: RawAttribute): number[] | null {
    try {
      const t = lineCode.decode(attr.info, this.cf.entry, m.name + m.desc);
      // Broken code is found by `rewrite`, which leaves it to the object reader (as the call lines'
      // identifiers are only named, a method refused later adds nothing).
      return lines.read(t, attr.info, this.cf.cp) ? lines.callLines(t) : null;
    } catch (e) {
      if (e instanceof KomoriumError) return null;
      throw e;
    }
  }

  /** `m` rewritten as method-body.ts would with `options`, or null for the object pipeline to do it. */
  rewrite(m: MemberInfo, attr: RawAttribute, pieceOptions: { checks: 'all' | 'optimized'; maxPath: number }, options: BodyOptions): TableBodyResult | null {
    if (options.mode !== 'extended' || options.counter !== 'field' || options.compact || options.countedJdk || !('owner' in options.mid)) return null;
    const { cf } = this;
    const name = m.name + m.desc;
    const callLines = options.callLines ?? new Map<number, { owner: string; name: string }>();
    const found = this.analyse(m, attr.info, pieceOptions, callLines.size > 1);
    if (found === null) return null;
    const { pieces, known, k, framed, invokes } = found;
    const t = pieces.table;
    const leaf = options.leafOpt && invokes === 0;
    const stats: BodyStats = { pieces: pieces.count, counters: 0, checks: 0, checksDropped: 0, extendedCalls: 0, callouts: 0, leaf };
    const f = this.fragment.reset();
    const c: FragmentContext = { f, out: new Insertions(f), refs: this.refs, tc: k, leaf, mid: options.mid, callbacks: options.callbacks };
    const onlyLine = callLines.size === 1 ? [...callLines.values()][0]! : null;
    entry(c, {
      thisClass: cf.thisClass,
      name: m.name,
      desc: m.desc,
      ldcClass: cf.major >= 49,
      dispatchCheck: options.dispatchCheck === true,
      framed,
      entryMid: onlyLine ?? options.mid,
    });
    const replace = this.body(t, pieces, known, callLines, c, stats);
    let encoded: Uint8Array;
    try {
      encoded = this.writer.write(t, attr.info, c.out.list, name, {
        stack: stack.compute(t, attr.info, cf.cp),
        locals: { at: k, types: [RT.TC, RT.STACK_DESC, ITEM.Integer], parameters: true },
        member: m,
        replace,
      });
    } catch (e) {
      if (e instanceof TableWriterLimit) return null;
      throw e;
    }
    return { encoded: { nameIndex: cf.cp.utf8Index('Code'), name: 'Code', info: encoded }, stats, line: lines.first };
  }

  /**
   * What the rewrite needs to know of `m` before it adds anything to the constant pool: its pieces,
   * where frames are known, its lines and its calls' decisions. Null where the table pipeline does
   * not rewrite it, and where its code is broken: the object reader then reports that as it always has.
   */
  private analyse(m: MemberInfo, info: Uint8Array, pieceOptions: { checks: 'all' | 'optimized'; maxPath: number }, labels: boolean) {
    const { cf } = this;
    const name = m.name + m.desc;
    try {
      const pieces = findPieces(info, cf.entry, name, pieceOptions);
      const t = pieces.table;
      if (!readerAccepts(t, info, cf.cp)) return null;
      const k = argSlots(m.desc) + ((m.access & ACC.STATIC) === 0 ? 1 : 0);
      if (this.writer.straddles(t, k) || hasTypeAnnotations(t, info, cf)) return null;
      const invokes = this.decideCalls(t, m, info);
      if (invokes < 0) return null;
      const framed = cf.major >= 51 || codeAttribute(t, info, cf.cp, 'StackMapTable') !== undefined;
      const known = framed ? this.writer.framesKnown(t, info, m, name) : null;
      if (framed) frameClassesValid(this.writer.framesRead, cf.cp);
      if (!lines.read(t, info, cf.cp, labels ? (framed ? this.writer.framesRead : NO_FRAMES) : undefined)) return null;
      if (t.codeLength + sizeBound(t, pieces.count + invokes, k) > 32767) return null;
      return { pieces, known, k, framed, invokes };
    } catch (e) {
      if (e instanceof KomoriumError) return null;
      throw e;
    }
  }

  /** The Code attribute of the wrapper of `m` (members.ts wrapperCode), written straight as bytes. */
  wrapper(m: MemberInfo, direct: boolean, tcGetter: string): RawAttribute {
    const { cf } = this;
    const isStatic = (m.access & ACC.STATIC) !== 0;
    const built = wrapper(
      this.fragment.reset(),
      this.refs,
      { thisClass: cf.thisClass, isInterface: (cf.access & ACC.INTERFACE) !== 0, isStatic, desc: m.desc, extName: extendedName(m.name), extDesc: extendDescriptor(m.desc) },
      direct,
      tcGetter,
    );
    return this.straight(built);
  }

  /** The code of the synthetic <clinit> that registers `mids` (table-fragments.ts midInit), for `straight`. */
  midInit(owner: string, javaName: string, source: string | null, mids: readonly MidEntry[]): StraightCode {
    return midInit(this.fragment.reset(), { owner, javaName, source, mids });
  }

  /** The Code attribute of `komorium$class()` (class-transform.ts classMethod): `classIndex` or null returned. */
  classMethod(classIndex: number | null): RawAttribute {
    return this.straight(classMethodCode(this.fragment.reset(), classIndex));
  }

  /** A Code attribute of straight-line code: no exception table, no attributes. */
  straight(built: StraightCode): RawAttribute {
    const w = new ByteWriter(built.bytes.length + 12);
    w.u2(built.maxStack);
    w.u2(built.maxLocals);
    w.u4(built.bytes.length);
    w.bytes(built.bytes);
    w.u2(0); // exception_table_length
    w.u2(0); // attributes_count
    return { nameIndex: this.cf.cp.utf8Index('Code'), name: 'Code', info: w.finish() };
  }

  /** Each call's decision (calls.ts decideCall); the number of invokes, or -1 where a call is not done here. */
  private decideCalls(t: CodeTable, m: MemberInfo, info: Uint8Array): number {
    const { cf } = this;
    if (this.calls.length < t.n) this.calls = new Uint8Array(t.n * 2);
    const calls = this.calls;
    const constructors: { i: number; site: CallSite }[] = [];
    let invokes = 0;
    for (let i = 0; i < t.n; i++) {
      const o = t.op[i]!;
      calls[i] = CALL.none;
      if (!isInvoke(o)) continue;
      invokes++;
      if (o === OP.INVOKEDYNAMIC) {
        calls[i] = CALL.callout;
        continue;
      }
      const ref = cf.cp.memberRef((t.code[t.pc[i]! + 1]! << 8) | t.code[t.pc[i]! + 2]!);
      const site = { op: o, owner: ref.owner, name: ref.name, desc: ref.desc, isInterface: ref.isInterface, caller: cf.thisClass };
      const d = decideCall(site, this.program);
      if (d === 'other-package-init') constructors.push({ i, site });
      else if (CALL_OF[d] === undefined) return -1;
      else calls[i] = CALL_OF[d];
    }
    return constructors.length === 0 || this.otherPackageConstructors(t, m, info, constructors) ? invokes : -1;
  }

  /**
   * calls.ts otherPackageConstructors: `super(…)` or `this(…)` of a constructor in another package
   * passes the extra arguments when that constructor is public or protected, else it is a call-out,
   * as is a constructor nothing shows the receiver of. A `new` whose class has a factory is left to
   * the object pipeline (false): replacing the `new` and its `dup` is not done here.
   */
  private otherPackageConstructors(t: CodeTable, m: MemberInfo, info: Uint8Array, sites: { i: number; site: CallSite }[]): boolean {
    const frames = this.writer.framesBefore(t, info, m, m.name + m.desc, sites.map((x) => x.i));
    for (let k = 0; k < sites.length; k++) {
      const { i, site } = sites[k]!;
      const stack = frames[k]?.stack;
      const argc = parseMethodDescriptor(site.desc).args.length;
      const reach = otherPackageInit(site, this.program);
      this.calls[i] = CALL.callout;
      if (!stack || stack.length < argc + 1) continue;
      const made = stack[stack.length - 1 - argc]!;
      if (made === ITEM.UninitializedThis) {
        if (reach.inherited) this.calls[i] = CALL.extended;
      } else if (reach.factory && (made & 15) === ITEM.Uninitialized) return false;
    }
    return true;
  }

  /** The counters, checks and call sites, in the order method-body.ts makes them; the invokes replaced. */
  private body(
    t: CodeTable,
    pieces: TablePieces,
    known: Uint8Array | null,
    callLines: Map<number, { owner: string; name: string }>,
    c: FragmentContext,
    stats: BodyStats,
  ): Map<number, Uint8Array> {
    const replace = new Map<number, Uint8Array>();
    this.placePieces(t, pieces);
    const { pieceAt, lateAt, calls } = this;
    const first = lines.first;
    let storedLine = -1;
    const count = (p: number, at: number): void => {
      const start = pieces.starts[p]!;
      const end = p + 1 < pieces.count ? pieces.starts[p + 1]! : t.n;
      stats.counters++;
      const canCheck = pieces.check(p) && (known === null || known[at] === 1);
      if (pieces.check(p) && !canCheck) stats.checksDropped++;
      if (canCheck) stats.checks++;
      const line = lines.line[start]!;
      counterPiece(c, at, end - start, canCheck, canCheck && known !== null, line < 0 ? null : line - first);
    };
    for (let i = 0; i < t.n; i++) {
      if (lines.labelled[i] === 1) storedLine = -1;
      if (pieceAt[i]! > 0) count(pieceAt[i]! - 1, i);
      if (lateAt[i]! > 0) count(lateAt[i]! - 1, i);
      const call = calls[i]!;
      if (call === CALL.none || call === CALL.plain) continue;
      const line = lines.line[i]!;
      const mid = callLines.size > 1 ? callLines.get(line) : undefined;
      if (mid !== undefined && line !== storedLine) {
        storedLine = line;
        callLine(c, i, mid);
      }
      if (call === CALL.callout) {
        if (!c.callbacks) continue;
        stats.callouts++;
        callout(c, i);
        continue;
      }
      stats.extendedCalls++;
      extraArguments(c, i, call === CALL.direct);
      const p = t.pc[i]!;
      replace.set(i, extendedInvoke(this.extended, c.f, t.op[i]!, (t.code[p + 1]! << 8) | t.code[p + 2]!, t.code[p + 3]!));
    }
    return replace;
  }

  /**
   * pieceAt[i]: 1 + the piece whose counter goes before instruction i, or 0; lateAt[i]: the same for
   * a counter moved there from a handler's entry (counter.ts deferredCounters).
   */
  private placePieces(t: CodeTable, pieces: TablePieces): void {
    const n = t.n;
    if (this.pieceAt.length < n + 1) {
      this.pieceAt = new Int32Array(2 * n + 2);
      this.lateAt = new Int32Array(2 * n + 2);
    }
    const { pieceAt, lateAt } = this;
    pieceAt.fill(0, 0, n + 1);
    lateAt.fill(0, 0, n + 1);
    for (let p = 0; p < pieces.count; p++) pieceAt[pieces.starts[p]!] = p + 1;
    const h = t.handlers;
    const moved: number[] = [];
    for (let e = 0; e < t.nHandlers; e++) {
      const [start, end, handler] = [h[4 * e]!, h[4 * e + 1]!, h[4 * e + 2]!];
      const piece = pieceAt[handler]!;
      if (piece === 0 || moved.includes(handler) || !(start <= handler && handler < end) || end >= n) continue;
      let samePiece = true;
      for (let j = handler + 1; j <= end && samePiece; j++) if (pieceAt[j]! > 0) samePiece = false;
      if (!samePiece || coveredByAnother(t, e, handler, end)) continue;
      moved.push(handler);
      lateAt[end] = piece;
    }
    for (const x of moved) pieceAt[x] = 0;
  }
}

/** Whether another exception table entry with the same handler covers instruction `i`. */
function coveredByAnother(t: CodeTable, e: number, handler: number, i: number): boolean {
  const h = t.handlers;
  for (let o = 0; o < t.nHandlers; o++) {
    if (o !== e && h[4 * o + 2] === handler && h[4 * o]! <= i && i < h[4 * o + 1]!) return true;
  }
  return false;
}

/**
 * Bytes the rewrite may add at most to `t`, with `sites` pieces and invokes and `k` argument slots,
 * short of which no branch can need more than 16 bits.
 */
function sizeBound(t: CodeTable, sites: number, k: number): number {
  // The entry with its call-out's arguments; a counter with its check; a call's stores; a local
  // access renumbered into its wide form.
  return 64 + 3 * k + 40 * sites + 4 * t.n;
}

function hasTypeAnnotations(t: CodeTable, info: Uint8Array, cf: ClassFile): boolean {
  return codeAttribute(t, info, cf.cp, 'RuntimeVisibleTypeAnnotations') !== undefined || codeAttribute(t, info, cf.cp, 'RuntimeInvisibleTypeAnnotations') !== undefined;
}
