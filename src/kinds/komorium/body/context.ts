/**
 * What every part of Komorium's rewrite of one method body shares: the method, the locals of the
 * calling convention (seed 002 §4.1: the thread context, the reified stack and its pointer, and
 * with --counter local the counter and its last synced value), the instruction list being built,
 * the stack map frames, and the statistics. The parts (entry.ts, counter.ts, calls.ts) append to
 * `out` in the order method-body.ts walks the original code.
 */
import type { ClassFile } from '../../../classfile/classfile.js';
import type { ConstantPool } from '../../../classfile/constant-pool.js';
import { ACC, type MemberInfo } from '../../../classfile/model.js';
import { argSlots } from '../../../classfile/descriptor.js';
import type { Frame, Insn, Label, MethodCode, Node, VType } from '../../../bytecode/ir.js';
import { OP, isInvoke } from '../../../bytecode/opcodes.js';
import { isLabel } from '../../../bytecode/ir.js';
import { field, pushInt } from '../../../bytecode/emit.js';
import { firstLine, lineOfEachInsn } from '../../../framework/sites.js';
import { shiftFrame, shiftLocals } from '../../../edit/method-editor.js';
import { RT } from '../runtime-names.js';
import type { ProgramView } from '../calls.js';
import { KomoriumError } from '../../../errors.js';

/** One counted piece of a basic block: MaxPath splits long blocks into several (§4.2). */
export interface Piece {
  /** Node index of the piece's first instruction in the original code. */
  firstInsn: number;
  insnCount: number;
  check: boolean;
}

export type MidRef = { owner: string; name: string } | { value: number };

/** The instruction that loads a method identifier. */
export function loadMid(cp: ConstantPool, mid: MidRef): Insn {
  return 'value' in mid ? pushInt(cp, mid.value) : field(cp, OP.GETSTATIC, mid.owner, mid.name, RT.MID_DESC);
}

export interface BodyOptions {
  /** 'extended': the three extra arguments are parameters; 'in-place': fetched at entry into new locals. */
  mode: 'extended' | 'in-place';
  leafOpt: boolean;
  /** Publish the reified stack around call-outs so callbacks continue it. */
  callbacks: boolean;
  /** Where the method identifier lives: a static field, or a constant (the instrumented JDK's). */
  mid: MidRef;
  /** The TC method that gives the thread context in place: getTC, or the JDK's jdkTC. */
  tcGetter?: string;
  /** InstrumentOptions.countedJdk. */
  countedJdk?: boolean;
  /**
   * 'field' decrements tc.instrCounter in every block, as seed 002 §4.2 writes it. 'local' keeps
   * the counter in a local variable that the JIT holds in a register and stores it into
   * tc.instrCounter only where another frame may read it (calls, returns, throws, samples): one
   * iinc per block instead of a field load and store, and a third of the inserted bytes.
   */
  counter: 'field' | 'local';
  /**
   * Each counter update, check and call-out publication is one call of a TC helper (TC.count,
   * countCheck, publish) instead of inline bytecodes: less than half the inserted bytes, for
   * methods that would otherwise outgrow HotSpot's HugeMethodLimit (class-transform.ts). Field
   * counter only.
   */
  compact?: boolean;
  /**
   * instrument --call-lines: for each line the method calls from, the identifier its frame holds
   * while such a call runs (MID.getCallLine), so that callers' frames read like a stack trace.
   * Stored into the frame's slot before a call only when the method calls from several lines, and
   * only when the line changed since the last store in straight-line code; a method that calls from
   * one line pushes that identifier on entry and pays nothing more.
   */
  callLines?: Map<number, { owner: string; name: string }>;
  /**
   * The method guards virtual dispatch (plan.ts dispatchChecked): on a virtual entry (sp >= 0) it
   * first checks that the receiver's class is instrumented, else calls the original method.
   */
  dispatchCheck?: boolean;
}

export interface BodyStats {
  pieces: number;
  counters: number;
  checks: number;
  /** Checks that could not be placed because no frame is known there (dead code). */
  checksDropped: number;
  extendedCalls: number;
  callouts: number;
  leaf: boolean;
}

/** A method this transform cannot rewrite; the caller keeps the original and reports the reason. */
export class NotInstrumentable extends KomoriumError {
  override name = 'NotInstrumentable';
}

export const TC_FIELD = { counter: 'instrCounter', outStack: 'outStack', outSp: 'outSp', enterSp: 'enterSp' };

export class Body {
  readonly cp: ConstantPool;
  /** Slots of the arguments, `this` included: where the extra arguments go in an extended method. */
  readonly k: number;
  readonly inPlace: boolean;
  readonly local: boolean;
  readonly leaf: boolean;
  /** The first of the new locals. */
  readonly base: number;
  readonly tcVar: number;
  readonly stackVar: number;
  readonly spVar: number;
  /** In place only: the stack pointer at entry, for tc.exit. */
  readonly sp0Var: number;
  readonly cntVar: number;
  /**
   * 'local': the value of the counter at its last store into, or load from, tc.instrCounter. An
   * exception the JVM throws (a null dereference, an index out of bounds, a division by zero)
   * skips the store, so a handler, and the catch-all that stores the counter before the exception
   * leaves the method, take tc.instrCounter - (syncVar - cntVar): exactly the bytecodes counted
   * since the last store when the exception came from this method, nothing more when it came from
   * a callee (which counts into tc.instrCounter itself). Without it they would be lost. TC.caught
   * does that sum and the store.
   */
  readonly syncVar: number;
  /** Slots the locals from `k` on move up by (0 in place). */
  readonly shift: number;
  readonly extraTypes: VType[] = [...RT.EXTRA_VTYPES];
  /** The slot a long or double straddling the last argument slot moved to, or -1 (edit/method-editor.ts shiftLocals). */
  readonly straddle: number;
  /** Call sites store their operands from here up (calls.ts companionCall). */
  readonly spillBase: number;
  spillTop = 0;
  readonly stats: BodyStats;
  /** The new instruction list. */
  readonly out: Node[] = [];
  readonly newFrames: Map<Label, Frame> | null;
  /** The source line of each original instruction (LineNumberTable), for checks and call lines. */
  readonly lineOf: Map<Insn, number>;
  /** The line identifiers of --call-lines (BodyOptions.callLines); empty without it. */
  readonly callLines: Map<number, { owner: string; name: string }>;
  /** The method's first line (MID.getFirstLine), from which a check's line is counted. */
  private readonly methodFirstLine: number;

  constructor(
    readonly cf: ClassFile,
    readonly method: MemberInfo,
    readonly code: MethodCode,
    readonly pieces: Piece[],
    /** Frame before each original node, or null where unknown; null when the method needs no frames. */
    readonly framesBefore: (Frame | null)[] | null,
    readonly program: ProgramView,
    readonly options: BodyOptions,
  ) {
    this.cp = cf.cp;
    const isStatic = (method.access & ACC.STATIC) !== 0;
    this.k = argSlots(method.desc) + (isStatic ? 0 : 1);
    this.inPlace = options.mode === 'in-place';
    this.local = options.counter === 'local';
    this.base = this.inPlace ? Math.max(code.maxLocals, this.k) : this.k;
    this.tcVar = this.base;
    this.stackVar = this.base + 1;
    this.spVar = this.base + 2;
    this.sp0Var = this.base + 3;
    this.cntVar = this.inPlace ? this.base + 4 : this.base + 3;
    this.syncVar = this.cntVar + 1;
    this.shift = this.inPlace ? 0 : this.local ? 5 : 3;
    const hasInvoke = code.nodes.some((n) => !isLabel(n) && isInvoke(n.op));
    this.leaf = options.leafOpt && !this.inPlace && !hasInvoke;
    this.stats = { pieces: pieces.length, counters: 0, checks: 0, checksDropped: 0, extendedCalls: 0, callouts: 0, leaf: this.leaf };
    if (this.inPlace) this.extraTypes.push('I');
    if (this.local) this.extraTypes.push('I', 'I');
    const maxLocals = code.maxLocals;
    this.straddle = this.shift > 0 ? shiftLocals(code, this.k, this.extraTypes, this.cp) : -1;
    this.spillBase = Math.max(maxLocals + this.shift + (this.straddle >= 0 ? 2 : 0), this.base + this.extraTypes.length);
    this.newFrames = code.frames !== null || framesBefore !== null ? new Map<Label, Frame>() : null;
    if (code.frames) for (const [label, f] of code.frames) this.newFrames!.set(label, this.inPlace ? this.adapt(f) : f);
    this.lineOf = lineOfEachInsn(code);
    this.callLines = options.callLines ?? new Map();
    this.methodFirstLine = firstLine(code);
  }

  /** A frame of the original code (simulated), with the new locals where this rewrite put them. */
  adapt(f: Frame): Frame {
    if (!this.inPlace) return shiftFrame(f, this.k, this.extraTypes, this.straddle);
    const locals = f.locals.slice(0, this.base);
    while (locals.length < this.base) locals.push('T');
    return { locals: [...locals, ...this.extraTypes], stack: f.stack.slice() };
  }

  getMid(): Insn {
    return loadMid(this.cp, this.options.mid);
  }

  /** The identifier pushed on entry: a method that calls from one line only pushes that line's (callLines). */
  entryMid(): Insn {
    const only = this.callLines.size === 1 ? [...this.callLines.values()][0]! : this.options.mid;
    return loadMid(this.cp, only);
  }

  /** The source line of original node `i`, or -1. */
  lineAt(i: number): number {
    return this.lineOf.get(this.code.nodes[i] as Insn) ?? -1;
  }

  /**
   * What a check's slow path gets beyond its usual arguments: its block's line, as a constant so
   * that the fast path pays nothing, and as its distance from the method's first line, which most
   * often fits iconst or bipush (every byte the checks add counts against the JIT's inlining
   * limits). Without a line (no LineNumberTable) nothing is passed, and the slow path is the old one.
   */
  slowPathLine(piece: Piece): { push: Insn[]; desc: string } {
    const line = this.lineAt(piece.firstInsn);
    return line < 0 ? { push: [], desc: '' } : { push: [pushInt(this.cp, line - this.methodFirstLine)], desc: 'I' };
  }

  /** The frame before original node `i`: undefined when the method needs none, null in dead code. */
  frameBefore(i: number): Frame | null | undefined {
    return this.framesBefore ? this.framesBefore[i] : undefined;
  }

  /** Sets max_locals and the frames once the body is built. */
  finish(): void {
    this.code.nodes = this.out;
    this.code.frames = this.newFrames;
    this.code.maxLocals = Math.max(this.code.maxLocals, this.base + this.extraTypes.length, this.spillTop);
  }
}
