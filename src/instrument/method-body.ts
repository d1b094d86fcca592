/**
 * The Komorium rewrite of one method body (seed 002 §4.1, §4.2, §5.1, §5.2):
 * push the method identifier on entry, decrement the thread's bytecode counter at the start of
 * every block (piece) by its number of original instructions, test it where a check is placed,
 * pass the reified stack to extended callees, and publish it around call-outs.
 *
 * Frames are not recomputed: the inserted code is stack-neutral and touches only the three new
 * locals, whose types never change, so every existing stack map frame stays true once the new
 * locals are added to it, and a new branch target (after a check) has the frame of the block
 * it guards, found by straight-line simulation from the nearest preceding frame. No class
 * hierarchy is needed, and nothing is guessed.
 */
import type { ClassFile } from '../classfile/classfile.js';
import type { MemberInfo } from '../classfile/model.js';
import { ACC } from '../classfile/model.js';
import { argSlots, parseMethodDescriptor, typeSize } from '../classfile/descriptor.js';
import { Label, isLabel, type Frame, type Insn, type MethodCode, type Node, type TryCatch, type VType } from '../bytecode/ir.js';

import { RT, extendDescriptor, extendedName, factoryDescriptor } from './runtime-names.js';
import { field, invoke, load, loadOpFor, op, pushInt, returnOpFor, storeOpFor } from './emit.js';
import { OP, isInvoke, isReturn, isVarInsn, isWideVar } from '../bytecode/opcodes.js';
import { extendedEntryFrame, loadArgs } from './members.js';
import { decideCall, otherPackageInit, type ProgramView } from './calls.js';
import { simulateFrames } from '../analysis/frames.js';
import { companionName } from './companion.js';
import { KomoriumError } from '../errors.js';
import { firstLine, lineOfEachInsn } from '../framework/sites.js';

/** One counted piece of a basic block: MaxPath splits long blocks into several (§4.2). */
export interface Piece {
  /** Node index of the piece's first instruction in the original code. */
  firstInsn: number;
  insnCount: number;
  check: boolean;
}

export interface BodyOptions {
  /** 'extended': the three extra arguments are parameters; 'in-place': fetched at entry into new locals. */
  mode: 'extended' | 'in-place';
  leafOpt: boolean;
  /** Publish the reified stack around call-outs so callbacks continue it. */
  callbacks: boolean;
  /** Where the method identifier lives. */
  mid: { owner: string; name: string };
  /**
   * 'field' decrements tc.instrCounter in every block, as seed 002 §4.2 writes it. 'local' keeps
   * the counter in a local variable that the JIT holds in a register and stores it into
   * tc.instrCounter only where another frame may read it (calls, returns, throws, samples): one
   * iinc per block instead of a field load and store, and a third of the inserted bytes.
   */
  counter: 'field' | 'local';
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

const TC_FIELD = { counter: 'instrCounter', outStack: 'outStack', outSp: 'outSp', enterSp: 'enterSp' };

export function instrumentBody(
  cf: ClassFile,
  method: MemberInfo,
  code: MethodCode,
  pieces: Piece[],
  /** Frame before each original node, or null where unknown; null when the method needs no frames. */
  framesBefore: (Frame | null)[] | null,
  program: ProgramView,
  options: BodyOptions,
): BodyStats {
  const cp = cf.cp;
  const isStatic = (method.access & ACC.STATIC) !== 0;
  const k = argSlots(method.desc) + (isStatic ? 0 : 1);
  const inPlace = options.mode === 'in-place';
  const base = inPlace ? Math.max(code.maxLocals, k) : k;
  const tcVar = base;
  const stackVar = base + 1;
  const spVar = base + 2;
  const sp0Var = base + 3;
  const local = options.counter === 'local';
  const cntVar = inPlace ? base + 4 : base + 3;
  /**
   * 'local': the value of the counter at its last store into, or load from, tc.instrCounter. An
   * exception the JVM throws (a null dereference, an index out of bounds, a division by zero)
   * skips the store, so a handler, and the catch-all that stores the counter before the exception
   * leaves the method, take tc.instrCounter - (syncVar - cntVar): exactly the bytecodes counted
   * since the last store when the exception came from this method, nothing more when it came from
   * a callee (which counts into tc.instrCounter itself). Without it they would be lost. TC.caught
   * does that sum and the store.
   */
  const syncVar = cntVar + 1;
  const shift = inPlace ? 0 : local ? 5 : 3;

  const hasInvoke = code.nodes.some((n) => !isLabel(n) && isInvoke(n.op));
  const leaf = options.leafOpt && !inPlace && !hasInvoke;
  const stats: BodyStats = {
    pieces: pieces.length,
    counters: 0,
    checks: 0,
    checksDropped: 0,
    extendedCalls: 0,
    callouts: 0,
    leaf,
  };

  const extraTypes: VType[] = [...RT.EXTRA_VTYPES];
  if (inPlace) extraTypes.push('I');
  if (local) extraTypes.push('I', 'I');
  /**
   * A long or double kept in the last argument slot and the one after it (kotlinc's `$default`
   * methods reuse their one-slot marker argument that way) would overlap the extra arguments: it
   * gets two slots of its own past the shifted locals. -1 when there is none.
   */
  const straddle =
    shift > 0 && code.nodes.some((n) => !isLabel(n) && n.var === k - 1 && isWideVar(n.op)) ? code.maxLocals + shift : -1;
  /** Companion calls store their operands from here up (companionCall). */
  const spillBase = Math.max(code.maxLocals + shift + (straddle >= 0 ? 2 : 0), base + extraTypes.length);
  let spillTop = 0;
  const handlers = new Set(code.tryCatch.map((t) => t.handler));
  let reloadPending = false;
  const adapt = (f: Frame): Frame => {
    if (!inPlace) {
      const before = f.locals.slice(0, k);
      const after = f.locals.slice(k);
      const wide = before.length === k && (before[k - 1] === 'J' || before[k - 1] === 'D') ? before[k - 1]! : null;
      if (wide) {
        if (straddle < 0) throw new Error(`frame with ${wide} in the last argument slot, but no instruction puts it there`);
        before[k - 1] = 'T';
        if (after.length > 0) after[0] = 'T';
      }
      while (before.length < k) before.push('T');
      const locals = [...before, ...extraTypes, ...after];
      if (wide) {
        while (locals.length < straddle) locals.push('T');
        locals.push(wide, 'T');
      }
      return { locals, stack: f.stack.slice() };
    }
    const locals = f.locals.slice(0, base);
    while (locals.length < base) locals.push('T');
    return { locals: [...locals, ...extraTypes], stack: f.stack.slice() };
  };

  const getMid = (): Insn => field(cp, OP.GETSTATIC, options.mid.owner, options.mid.name, RT.MID_DESC);
  const callLines = options.callLines ?? new Map<number, { owner: string; name: string }>();
  const entryMid = callLines.size === 1 ? [...callLines.values()][0]! : options.mid;
  /** The call line last stored into this frame's slot on the straight-line path to here. */
  let storedLine: number | undefined;
  const newFrames = code.frames !== null || framesBefore !== null ? new Map<Label, Frame>() : null;
  if (code.frames) for (const [label, f] of code.frames) newFrames!.set(label, adapt(f));

  const out: Node[] = [];
  if (options.dispatchCheck) emitDispatchCheck();
  const bodyStart = out[out.length - 1];
  // Entry: before every label, so that a loop whose header is the first instruction does not push again.
  if (inPlace) {
    out.push(
      invoke(cp, OP.INVOKESTATIC, RT.TC, 'getTC', `()${RT.TC_DESC}`),
      load(OP.ASTORE, tcVar),
      load(OP.ALOAD, tcVar),
      invoke(cp, OP.INVOKEVIRTUAL, RT.TC, 'enter', `()${RT.STACK_DESC}`),
      load(OP.ASTORE, stackVar),
      load(OP.ALOAD, tcVar),
      field(cp, OP.GETFIELD, RT.TC, TC_FIELD.enterSp, 'I'),
      op(OP.DUP),
      load(OP.ISTORE, sp0Var),
      load(OP.ISTORE, spVar),
    );
  }
  if (!leaf) {
    out.push(
      load(OP.ALOAD, stackVar),
      load(OP.ILOAD, spVar),
      field(cp, OP.GETSTATIC, entryMid.owner, entryMid.name, RT.MID_DESC),
      invoke(cp, OP.INVOKESTATIC, RT.TC, 'push', `(${RT.STACK_DESC}I${RT.MID_DESC})I`),
      load(OP.ISTORE, spVar),
    );
  }

  if (local) out.push(...reloadCounter());
  // The catch-all's range (see below). In a constructor it starts once super() or this() has
  // initialized `this`: a handler cannot cover code where `this` is uninitialized.
  const rangeStart = new Label();
  let rangeStarted = false;
  if (local && method.name !== '<init>') {
    out.push(rangeStart);
    rangeStarted = true;
  }
  // The dispatch check's label must not share an offset with a frame of the original code.
  if (bodyStart !== undefined && out[out.length - 1] === bodyStart) out.push(op(OP.NOP));

  const pieceAt = new Map<number, Piece>();
  for (const p of pieces) pieceAt.set(p.firstInsn, p);

  const nodes = code.nodes;
  // The slow path of a check passes the line of its block: a constant, so the fast path pays nothing.
  const lineOf = lineOfEachInsn(code);
  const pieceLine = (p: Piece): number => lineOf.get(nodes[p.firstInsn] as Insn) ?? -1;
  // Passed as its distance from the method's first line (MID.getFirstLine), which most often fits
  // iconst or bipush: every byte the checks add to a method counts against the JIT's inlining limits.
  // Without a line (no LineNumberTable) the slow path is called as before, without the constant.
  const methodFirstLine = firstLine(code);
  const slowPathLine = (p: Piece): Insn[] => (pieceLine(p) < 0 ? [] : [pushInt(cp, pieceLine(p) - methodFirstLine)]);
  const lineArg = (p: Piece): string => (pieceLine(p) < 0 ? '' : 'I');
  const deferred = deferredCounters(nodes, code.tryCatch, pieceAt);
  const factories = otherPackageConstructors();
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (isLabel(n)) {
      out.push(n);
      storedLine = undefined;
      // A callee may have thrown after counting into tc.instrCounter, or this method (see syncVar).
      if (local && handlers.has(n)) reloadPending = true;
      continue;
    }
    if (local && !rangeStarted && framesBefore?.[i] && framesBefore[i]!.locals[0] !== 'U') {
      out.push(rangeStart);
      rangeStarted = true;
    }
    if (reloadPending) {
      out.push(...caught(), op(OP.DUP), load(OP.ISTORE, syncVar), load(OP.ISTORE, cntVar));
      reloadPending = false;
    }
    const piece = deferred.moved.has(i) ? undefined : pieceAt.get(i);
    if (piece) emitCounter(piece, i);
    const late = deferred.to.get(i);
    if (late) emitCounter(late, i);
    if (shift && isVarInsn(n.op) && n.var! >= k) n.var! += shift;
    else if (straddle >= 0 && n.var === k - 1 && isWideVar(n.op)) n.var = straddle;
    if (local && (isReturn(n.op) || n.op === OP.ATHROW)) out.push(...storeCounter());
    if (inPlace && isReturn(n.op)) {
      out.push(
        load(OP.ALOAD, tcVar),
        load(OP.ALOAD, stackVar),
        load(OP.ILOAD, sp0Var),
        invoke(cp, OP.INVOKEVIRTUAL, RT.TC, 'exit', `(${RT.STACK_DESC}I)V`),
      );
    }
    if (isInvoke(n.op)) {
      rewriteCall(n, i);
      continue;
    }
    const replaced = factories.replace.get(n);
    if (replaced) out.push(...replaced);
    else out.push(n);
  }

  if (shift) {
    for (const slot of code.attributes) {
      if (slot.kind === 'LocalVariableTable' || slot.kind === 'LocalVariableTypeTable') {
        for (const e of slot.entries) {
          if (e.index >= k) e.index += shift;
          else if (straddle >= 0 && e.index === k - 1 && /^[JD]$/.test(cp.utf8(e.descIndex))) e.index = straddle;
        }
      } else if (slot.kind === 'RuntimeVisibleTypeAnnotations' || slot.kind === 'RuntimeInvisibleTypeAnnotations') {
        for (const a of slot.annotations) for (const r of a.ranges ?? []) if (r.index >= k) r.index += shift;
      }
    }
  }
  // The catch-all: an exception leaving the method stores what it counted since the last store.
  // (Not in a constructor of a class file without frames: where `this` is initialized is unknown.)
  if (rangeStarted) {
    const rangeEnd = new Label();
    const handler = new Label();
    out.push(rangeEnd, handler, ...caught(), op(OP.POP), op(OP.ATHROW));
    code.tryCatch.push({ start: rangeStart, end: rangeEnd, handler, catchType: null, catchTypeIndex: 0 });
    if (newFrames) {
      const locals: VType[] = Array<VType>(base).fill('T');
      locals.push(RT.EXTRA_VTYPES[0]!);
      while (locals.length < cntVar) locals.push('T');
      locals.push('I', 'I');
      newFrames.set(handler, { locals, stack: ['Ljava/lang/Throwable;' as VType] });
    }
  }
  if (newFrames && factories.gone.size > 0) {
    // The uninitialized instances of the `new`s that factories replaced are no longer on the stack.
    for (const f of newFrames.values()) f.stack = f.stack.filter((v) => !factories.gone.has(v as Insn));
  }
  code.nodes = out;
  code.frames = newFrames;
  code.maxLocals = Math.max(code.maxLocals + shift + (straddle >= 0 ? 2 : 0), base + extraTypes.length, spillTop);
  return stats;

  /**
   * Calls of constructors in another package (decideCall 'other-package-init'), by what the
   * stack shows (the recorded frames, or a straight-line simulation where the method has none):
   *  - 'super': `super(…)` or `this(…)` on uninitializedThis, of a public or protected
   *    constructor: its extended version is protected, so the call passes the extra arguments;
   *  - 'factory': `new C; dup; <args>; invokespecial C.<init>` of a constructor with a factory
   *    becomes `getstatic C.komorium$new; pop; <args>; <tc, stack, sp>; invokestatic
   *    C.komorium$new`, which leaves the same initialized C on the stack. Only where the stack shows
   *    exactly that shape: the instance is made by a `new` directly followed by `dup`, the two
   *    copies are the only ones on the stack until the call, and no local ever holds one.
   * Any other call stays a call-out to the original constructor.
   */
  function otherPackageConstructors(): { sites: Map<Insn, 'super' | 'factory'>; replace: Map<Insn, Insn[]>; gone: Set<Insn> } {
    const sites = new Map<Insn, 'super' | 'factory'>();
    const replace = new Map<Insn, Insn[]>();
    const gone = new Set<Insn>();
    const candidates: { i: number; n: Insn; desc: string; owner: string; reach: { factory: boolean; inherited: boolean } }[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (isLabel(n) || n.op !== OP.INVOKESPECIAL) continue;
      const ref = cp.memberRef(n.cp!);
      if (ref.name !== '<init>') continue;
      const site = { op: n.op, owner: ref.owner, name: ref.name, desc: ref.desc, isInterface: ref.isInterface, caller: cf.thisClass };
      if (decideCall(site, program) !== 'other-package-init') continue;
      candidates.push({ i, n, desc: ref.desc, owner: ref.owner, reach: otherPackageInit(site, program) });
    }
    if (candidates.length === 0) return { sites, replace, gone };
    // Without stack map frames (older class files, straight-line methods) the shapes come from a
    // simulation, which knows nothing after a jump: such sites stay call-outs.
    const shapes = framesBefore ?? simulateFrames(cf, method, code);
    let index: Map<Insn, number> | null = null;
    let inLocals: Set<VType> | null = null;
    for (const { i, n, desc, owner, reach } of candidates) {
      const stack = shapes[i]?.stack;
      const argc = parseMethodDescriptor(desc).args.length;
      if (!stack || stack.length < argc + 1) continue;
      const made = stack[stack.length - 1 - argc]!;
      if (made === 'U') {
        if (reach.inherited) sites.set(n, 'super');
        continue;
      }
      if (!reach.factory || typeof made === 'string' || made.op !== OP.NEW || stack[stack.length - 2 - argc] !== made) continue;
      if (index === null) {
        index = new Map();
        inLocals = new Set();
        for (let j = 0; j < nodes.length; j++) {
          const x = nodes[j]!;
          if (!isLabel(x) && x.op === OP.NEW) index.set(x, j);
          for (const v of shapes[j]?.locals ?? []) if (typeof v !== 'string') inLocals.add(v);
        }
      }
      const at = index.get(made);
      const dup = at === undefined ? undefined : nodes[at + 1];
      if (at === undefined || dup === undefined || isLabel(dup) || dup.op !== OP.DUP || inLocals!.has(made)) continue;
      let shaped = true;
      for (let j = at + 1; j <= i && shaped; j++) {
        const f = shapes[j];
        if (f) shaped = f.stack.filter((v) => v === made).length === (j === at + 1 ? 1 : 2);
      }
      if (!shaped) continue;
      sites.set(n, 'factory');
      gone.add(made);
      // Both at the `new`: no position between it and the `dup` (where MaxPath may put a check)
      // has anything on the stack that the frames, once filtered, do not show.
      replace.set(made, [field(cp, OP.GETSTATIC, owner, RT.FACTORY_INIT_FIELD, 'I'), op(OP.POP)]);
      replace.set(dup, []);
    }
    return { sites, replace, gone };
  }

  function storeCounter(): Insn[] {
    return [load(OP.ALOAD, tcVar), load(OP.ILOAD, cntVar), op(OP.DUP), load(OP.ISTORE, syncVar), field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.counter, 'I')];
  }

  function reloadCounter(): Insn[] {
    return [load(OP.ALOAD, tcVar), field(cp, OP.GETFIELD, RT.TC, TC_FIELD.counter, 'I'), op(OP.DUP), load(OP.ISTORE, syncVar), load(OP.ISTORE, cntVar)];
  }

  /** TC.caught: stores, and pushes, tc.instrCounter - (syncVar - cntVar), the counter at an exception (see syncVar). */
  function caught(): Insn[] {
    return [
      load(OP.ALOAD, tcVar),
      load(OP.ILOAD, syncVar),
      load(OP.ILOAD, cntVar),
      invoke(cp, OP.INVOKESTATIC, RT.TC, 'caught', `(${RT.TC_DESC}II)I`),
    ];
  }

  function emitCounter(piece: Piece, nodeIndex: number): void {
    stats.counters++;
    const before = framesBefore ? framesBefore[nodeIndex] : undefined;
    // A check adds a branch target; in a method with frames it needs one, which dead code lacks.
    const canCheck = piece.check && (framesBefore === null || before != null);
    if (piece.check && !canCheck) stats.checksDropped++;
    if (local) {
      out.push({ op: OP.IINC, var: cntVar, inc: -piece.insnCount });
      if (!canCheck) return;
      stats.checks++;
      const skip = new Label();
      out.push(
        load(OP.ILOAD, cntVar),
        { op: OP.IFGT, target: skip },
        load(OP.ALOAD, tcVar),
        load(OP.ILOAD, cntVar),
        load(OP.ALOAD, stackVar),
        load(OP.ILOAD, spVar),
      );
      if (leaf) out.push(getMid());
      out.push(...slowPathLine(piece), invoke(cp, OP.INVOKESTATIC, RT.TC, leaf ? 'sampleLeaf' : 'sample', `(${RT.TC_DESC}I${RT.STACK_DESC}I${leaf ? RT.MID_DESC : ''}${lineArg(piece)})I`));
      out.push(op(OP.DUP), load(OP.ISTORE, syncVar), load(OP.ISTORE, cntVar), skip);
      if (newFrames && before) newFrames.set(skip, adapt(before));
      return;
    }
    out.push(
      load(OP.ALOAD, tcVar),
      op(OP.DUP),
      field(cp, OP.GETFIELD, RT.TC, TC_FIELD.counter, 'I'),
      pushInt(cp, piece.insnCount),
      op(OP.ISUB),
    );
    if (!canCheck) {
      out.push(field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.counter, 'I'));
      return;
    }
    stats.checks++;
    const skip = new Label();
    out.push(
      op(OP.DUP_X1),
      field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.counter, 'I'),
      { op: OP.IFGT, target: skip },
      load(OP.ALOAD, tcVar),
      load(OP.ALOAD, stackVar),
      load(OP.ILOAD, spVar),
    );
    if (leaf) out.push(getMid());
    out.push(...slowPathLine(piece), invoke(cp, OP.INVOKEVIRTUAL, RT.TC, leaf ? 'triggerSamplingLeaf' : 'triggerSampling', `(${RT.STACK_DESC}I${leaf ? RT.MID_DESC : ''}${lineArg(piece)})V`));
    out.push(skip);
    if (newFrames && before) newFrames.set(skip, adapt(before));
  }

  /** `stack[sp - 1] = <this method's identifier for the call's line>` (callLines). */
  function markCallLine(nodeIndex: number): void {
    if (callLines.size < 2) return;
    const line = lineOf.get(nodes[nodeIndex] as Insn) ?? -1;
    const mid = callLines.get(line);
    if (mid === undefined || line === storedLine) return;
    storedLine = line;
    out.push(
      load(OP.ALOAD, stackVar),
      load(OP.ILOAD, spVar),
      op(OP.ICONST_1),
      op(OP.ISUB),
      field(cp, OP.GETSTATIC, mid.owner, mid.name, RT.MID_DESC),
      op(OP.IASTORE),
    );
  }

  function rewriteCall(n: Insn, nodeIndex: number): void {
    if (n.op === OP.INVOKEDYNAMIC) {
      markCallLine(nodeIndex);
      calloutAround(n);
      return;
    }
    const ref = cp.memberRef(n.cp!);
    const decision = decideCall(
      { op: n.op, owner: ref.owner, name: ref.name, desc: ref.desc, isInterface: ref.isInterface, caller: cf.thisClass },
      program,
    );
    // A call that can reach instrumented code: its frames go above this one's.
    if (decision !== 'plain') markCallLine(nodeIndex);
    if (decision === 'extended' || decision === 'extended-direct') {
      stats.extendedCalls++;
      if (local) out.push(...storeCounter());
      out.push(load(OP.ALOAD, tcVar), load(OP.ALOAD, stackVar), load(OP.ILOAD, spVar));
      if (decision === 'extended-direct') out.push(op(OP.ICONST_M1), op(OP.IXOR));
      const ext = extendDescriptor(ref.desc);
      const name = extendedName(ref.name);
      out.push({
        op: n.op,
        cp: ref.isInterface ? cp.interfaceMethodrefIndex(ref.owner, name, ext) : cp.methodrefIndex(ref.owner, name, ext),
      });
      if (local) out.push(...reloadCounter());
      return;
    }
    if (decision === 'other-package-init') {
      const how = factories.sites.get(n);
      if (how === undefined) {
        calloutAround(n);
        return;
      }
      stats.extendedCalls++;
      out.push(load(OP.ALOAD, tcVar), load(OP.ALOAD, stackVar), load(OP.ILOAD, spVar));
      if (how === 'factory') out.push(invoke(cp, OP.INVOKESTATIC, ref.owner, RT.FACTORY_METHOD, factoryDescriptor(ref.owner, ref.desc)));
      else out.push({ op: OP.INVOKESPECIAL, cp: cp.methodrefIndex(ref.owner, ref.name, extendDescriptor(ref.desc)) });
      return;
    }
    if (decision === 'companion') {
      // Its branches need frames; in dead code, where the analysis has none, a call-out does.
      const before = framesBefore ? framesBefore[nodeIndex] : undefined;
      if (before === null) calloutAround(n);
      else companionCall(n, ref, before, nodeIndex);
      return;
    }
    if (decision === 'callout') calloutAround(n);
    else out.push(n);
  }

  /**
   * An interface call whose receiver may implement the interface's companion (companion.ts). The
   * receiver sits below the arguments, so they are stored into fresh locals above every other one:
   *
   *     <store args, receiver>; aload r; instanceof I$$komoriumCalls; ifeq OTHER
   *     aload r; instanceof java/lang/reflect/Proxy; ifne OTHER
   *     aload r; <load args>; aload tc; aload stack; iload sp; invokeinterface I$$komoriumCalls.m$komorium
   *     goto DONE
   *   OTHER: aload r; <load args>; <call-out of the original invoke>
   *   DONE:
   */
  function companionCall(n: Insn, ref: { owner: string; name: string; desc: string }, before: Frame | undefined, nodeIndex: number): void {
    const declaring = program.hierarchy.resolveMethod(ref.owner, ref.name, ref.desc, n.op === OP.INVOKEINTERFACE).declaringClass!;
    const companion = companionName(declaring);
    const { args, ret } = parseMethodDescriptor(ref.desc);
    const slots: number[] = [];
    let next = spillBase;
    for (const t of args) {
      slots.push(next);
      next += typeSize(t);
    }
    const receiverSlot = next;
    spillTop = Math.max(spillTop, receiverSlot + 1);
    for (let j = args.length - 1; j >= 0; j--) out.push(load(storeOpFor(args[j]!), slots[j]!));
    out.push(load(OP.ASTORE, receiverSlot));
    const reload = (): Insn[] => [load(OP.ALOAD, receiverSlot), ...args.map((t, j) => load(loadOpFor(t), slots[j]!))];
    const other = new Label();
    const done = new Label();
    stats.extendedCalls++;
    out.push(
      load(OP.ALOAD, receiverSlot),
      { op: OP.INSTANCEOF, cp: cp.classIndex(companion) },
      { op: OP.IFEQ, target: other },
      // A JDK proxy of an instrumented class's interfaces (Spring AOP) implements the companion too, and
      // its handler must see the original method, or advice matched by name would be skipped.
      load(OP.ALOAD, receiverSlot),
      { op: OP.INSTANCEOF, cp: cp.classIndex('java/lang/reflect/Proxy') },
      { op: OP.IFNE, target: other },
      ...reload(),
    );
    if (local) out.push(...storeCounter());
    out.push(
      load(OP.ALOAD, tcVar),
      load(OP.ALOAD, stackVar),
      load(OP.ILOAD, spVar),
      invoke(cp, OP.INVOKEINTERFACE, companion, extendedName(ref.name), extendDescriptor(ref.desc), true),
    );
    if (local) out.push(...reloadCounter());
    out.push({ op: OP.GOTO, target: done }, other, ...reload());
    calloutAround(n);
    out.push(done);
    // DONE's frame has the stored operands; a label of the original code at the same offset has its own.
    const following = code.nodes[nodeIndex + 1];
    if (following !== undefined && isLabel(following)) out.push(op(OP.NOP));
    if (newFrames && before) {
      const f = adapt(before);
      const locals = f.locals.slice();
      while (locals.length < spillBase) locals.push('T');
      const operands = f.stack.slice(f.stack.length - args.length - 1);
      args.forEach((t, j) => {
        locals.push(operands[j + 1]!);
        if (typeSize(t) === 2) locals.push('T');
      });
      locals.push(operands[0]!);
      const stack = f.stack.slice(0, f.stack.length - args.length - 1);
      newFrames.set(other, { locals, stack });
      newFrames.set(done, { locals: locals.slice(), stack: ret === 'V' ? stack : [...stack, verificationTypeOf(ret)] });
    }
  }

  /**
   * The guard of an extended method that virtual dispatch may reach although the receiver's class
   * overrides the original method without being instrumented (a class a loader defined at run time,
   * a mock; GUIDE §3 "Call sites"). Such a class inherits the extended method and the synthetic
   * `komorium$class()`, which every instrumented class declares, returning itself; so when
   * `this.komorium$class() != this.getClass()` the receiver's class is not instrumented, and the
   * original method is called virtually (a call-out): the JVM then picks the override, or this
   * class's wrapper, which re-enters here directly. A receiver of exactly this class is tested
   * first, without a virtual call (which costs where the call site is megamorphic). A direct entry
   * (wrapper, super.m()) passes ~sp and skips the check:
   *
   *     iload sp; iflt DIRECT
   *     aload_0; invokevirtual getClass
   *     dup; ldc ThisClass; if_acmpeq EXACT                      (class files >= 49)
   *     aload_0; invokevirtual komorium$class; if_acmpeq BODY
   *     <publish stack> aload_0; <args>; invokevirtual m(A)R; <unpublish>; xreturn
   *   DIRECT: iload sp; iconst_m1; ixor; istore sp; goto BODY
   *   EXACT: pop
   *   BODY: …
   *
   * getClass() is a native call until the JIT compiles the method (about 100 ns interpreted), so
   * it is called once.
   */
  function emitDispatchCheck(): void {
    const direct = new Label();
    const exact = new Label();
    const body = new Label();
    const exactCheck = cf.major >= 49; // ldc of a class needs version 49
    out.push(
      load(OP.ILOAD, spVar),
      { op: OP.IFLT, target: direct },
      load(OP.ALOAD, 0),
      invoke(cp, OP.INVOKEVIRTUAL, 'java/lang/Object', 'getClass', RT.CLASS_METHOD_DESC),
    );
    if (exactCheck) out.push(op(OP.DUP), { op: OP.LDC, cp: cp.classIndex(cf.thisClass) }, { op: OP.IF_ACMPEQ, target: exact });
    out.push(
      load(OP.ALOAD, 0),
      invoke(cp, OP.INVOKEVIRTUAL, cf.thisClass, RT.CLASS_METHOD, RT.CLASS_METHOD_DESC),
      { op: OP.IF_ACMPEQ, target: body },
    );
    if (options.callbacks) out.push(...publishStack());
    out.push(...loadArgs(method.desc, false), invoke(cp, OP.INVOKEVIRTUAL, cf.thisClass, method.name, method.desc));
    if (options.callbacks) out.push(...unpublishStack());
    out.push(
      op(returnOpFor(parseMethodDescriptor(method.desc).ret)),
      direct,
      load(OP.ILOAD, spVar),
      op(OP.ICONST_M1),
      op(OP.IXOR),
      load(OP.ISTORE, spVar),
    );
    if (exactCheck) out.push({ op: OP.GOTO, target: body }, exact, op(OP.POP));
    out.push(body);
    if (newFrames) {
      const entry = extendedEntryFrame(cf, method);
      newFrames.set(direct, entry);
      if (exactCheck) newFrames.set(exact, { locals: entry.locals.slice(), stack: ['Ljava/lang/Class;'] });
      newFrames.set(body, { locals: entry.locals.slice(), stack: [] });
    }
  }

  function calloutAround(n: Insn): void {
    if (local) {
      // Uninstrumented code may call back into instrumented code, which counts in tc.instrCounter.
      if (options.callbacks) {
        stats.callouts++;
        out.push(
          load(OP.ILOAD, cntVar),
          load(OP.ISTORE, syncVar),
          load(OP.ALOAD, tcVar),
          load(OP.ILOAD, cntVar),
          load(OP.ALOAD, stackVar),
          load(OP.ILOAD, spVar),
          invoke(cp, OP.INVOKESTATIC, RT.TC, 'callOut', `(${RT.TC_DESC}I${RT.STACK_DESC}I)V`),
          n,
          load(OP.ALOAD, tcVar),
          invoke(cp, OP.INVOKESTATIC, RT.TC, 'callBack', `(${RT.TC_DESC})I`),
          op(OP.DUP),
          load(OP.ISTORE, syncVar),
          load(OP.ISTORE, cntVar),
        );
      } else {
        out.push(...storeCounter(), n, ...reloadCounter());
      }
      return;
    }
    if (!options.callbacks) {
      out.push(n);
      return;
    }
    stats.callouts++;
    out.push(...publishStack(), n, ...unpublishStack());
  }

  /** `tc.outStack = stack; tc.outSp = sp`: a callback from the code called next continues this stack. */
  function publishStack(): Insn[] {
    return [
      load(OP.ALOAD, tcVar),
      load(OP.ALOAD, stackVar),
      field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.outStack, RT.STACK_DESC),
      load(OP.ALOAD, tcVar),
      load(OP.ILOAD, spVar),
      field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.outSp, 'I'),
    ];
  }

  /** `tc.outSp = -1`: the call returned. */
  function unpublishStack(): Insn[] {
    return [load(OP.ALOAD, tcVar), op(OP.ICONST_M1), field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.outSp, 'I')];
  }
}

/**
 * javac covers the first instructions of a `finally` or `synchronized` handler (the astore of the
 * exception, and in a synchronized block the monitorexit) with that same handler. HotSpot's C1
 * refuses to compile a method in which a handler covers a throwing instruction of its own entry
 * block ("exception handler covers itself"), which the counter and check would be at the handler's
 * entry, so such methods ran interpreted until C2 took them. Their counter goes instead to the
 * first instruction after that range, when it is still in the same piece: the count is the same,
 * and in a synchronized block the monitor is released by then, so nothing inserted runs while it
 * is held outside a handler that releases it. `moved`: the first instructions of pieces whose
 * counter goes elsewhere; `to`: instruction index → the piece whose counter goes there.
 */
function deferredCounters(
  nodes: readonly Node[],
  tryCatch: readonly TryCatch[],
  pieceAt: Map<number, Piece>,
): { moved: Set<number>; to: Map<number, Piece> } {
  const moved = new Set<number>();
  const to = new Map<number, Piece>();
  if (tryCatch.length === 0) return { moved, to };
  const index = new Map<Label, number>();
  nodes.forEach((n, i) => {
    if (isLabel(n)) index.set(n, i);
  });
  const firstInsnAt = (i: number): number => {
    while (i < nodes.length && isLabel(nodes[i]!)) i++;
    return i;
  };
  for (const t of tryCatch) {
    const h = firstInsnAt(index.get(t.handler)!);
    const piece = pieceAt.get(h);
    const start = firstInsnAt(index.get(t.start)!);
    const end = firstInsnAt(index.get(t.end)!);
    if (!piece || moved.has(h) || !(start <= h && h < end) || end >= nodes.length) continue;
    let samePiece = true;
    for (let j = h + 1; j <= end && samePiece; j++) if (pieceAt.has(j)) samePiece = false;
    if (!samePiece || tryCatch.some((o) => o.handler === t.handler && o !== t && covers(o, end))) continue;
    moved.add(h);
    to.set(end, piece);
  }
  return { moved, to };

  function covers(o: TryCatch, i: number): boolean {
    return firstInsnAt(index.get(o.start)!) <= i && i < firstInsnAt(index.get(o.end)!);
  }
}


/** The verification type of a value of field descriptor `desc` on the operand stack. */
function verificationTypeOf(desc: string): VType {
  return 'ZBCSI'.includes(desc[0]!) ? 'I' : desc;
}

export function extendedMember(cf: ClassFile, method: MemberInfo): MemberInfo {
  const desc = extendDescriptor(method.desc);
  const name = extendedName(method.name);
  // getConstructors() must not show extended constructors (Rhino, DI containers count them), so
  // those of public and protected constructors are protected: super(…) from a subclass in another
  // package still reaches them, and `new` there goes through a factory (RT.FACTORY_METHOD).
  let access = (method.access | ACC.SYNTHETIC) & ~(ACC.VARARGS | ACC.BRIDGE);
  if (method.name === '<init>' && (access & ACC.PUBLIC) !== 0) access = (access & ~ACC.PUBLIC) | ACC.PROTECTED;
  return cf.newMember(access, name, desc);
}

export { parseMethodDescriptor };
