/**
 * Komorium's bytecode counter and its granularity checks (seed 002 §4.2, §5.1): how a piece of a
 * block is counted, where a check samples, and, with --counter local, how the local copy of the
 * counter is kept in step with tc.instrCounter at calls, returns, throws and handlers. What a call
 * site does with the counter around the call is in calls.ts; the protocol is in
 * docs/runtime-contract.md.
 */
import { Label, type Insn, type Label as LabelType, type Node, type TryCatch, type VType } from '../../../bytecode/ir.js';
import { isLabel } from '../../../bytecode/ir.js';
import { OP, isReturn } from '../../../bytecode/opcodes.js';
import { field, invoke, load, op, pushInt } from '../../../bytecode/emit.js';
import { RT } from '../runtime-names.js';
import { TC_FIELD, type Body, type Piece } from './context.js';

export class Counter {
  private readonly local: boolean;
  /** The catch-all's range (see finish). In a constructor it starts once super() or this() has initialized `this`. */
  private readonly rangeStart = new Label();
  private rangeStarted = false;
  private readonly handlers: Set<LabelType>;
  private reloadPending = false;

  constructor(private readonly b: Body) {
    this.local = b.local;
    this.handlers = new Set(b.code.tryCatch.map((t) => t.handler));
  }

  /** After the entry's push: the local counter starts from the thread's. */
  atEntry(): void {
    if (!this.local) return;
    this.b.out.push(...this.reload());
    if (this.b.method.name !== '<init>') this.startRange();
  }

  /** A label of the original code: a handler must take up the counter the exception left. */
  atLabel(n: LabelType): void {
    // A callee may have thrown after counting into tc.instrCounter, or this method (see Body.syncVar).
    if (this.local && this.handlers.has(n)) this.reloadPending = true;
  }

  /** Before original instruction `i`. */
  beforeInsn(i: number): void {
    const b = this.b;
    if (this.local && !this.rangeStarted && b.framesBefore?.[i] && b.framesBefore[i]!.locals[0] !== 'U') this.startRange();
    if (this.reloadPending) {
      b.out.push(...this.caught(), op(OP.DUP), load(OP.ISTORE, b.syncVar), load(OP.ISTORE, b.cntVar));
      this.reloadPending = false;
    }
  }

  /** Before a return or athrow: another frame reads the counter next. */
  beforeExit(n: Insn): void {
    if (this.local && (isReturn(n.op) || n.op === OP.ATHROW)) this.b.out.push(...this.store());
  }

  private startRange(): void {
    this.b.out.push(this.rangeStart);
    this.rangeStarted = true;
  }

  /** tc.instrCounter = c (and s = c): before a call that counts into the field itself. */
  store(): Insn[] {
    const b = this.b;
    return [load(OP.ALOAD, b.tcVar), load(OP.ILOAD, b.cntVar), op(OP.DUP), load(OP.ISTORE, b.syncVar), field(b.cp, OP.PUTFIELD, RT.TC, TC_FIELD.counter, 'I')];
  }

  /** c = s = tc.instrCounter: after such a call. */
  reload(): Insn[] {
    const b = this.b;
    return [load(OP.ALOAD, b.tcVar), field(b.cp, OP.GETFIELD, RT.TC, TC_FIELD.counter, 'I'), op(OP.DUP), load(OP.ISTORE, b.syncVar), load(OP.ISTORE, b.cntVar)];
  }

  /** TC.caught: stores, and pushes, tc.instrCounter - (syncVar - cntVar), the counter at an exception (see Body.syncVar). */
  caught(): Insn[] {
    const b = this.b;
    return [load(OP.ALOAD, b.tcVar), load(OP.ILOAD, b.syncVar), load(OP.ILOAD, b.cntVar), invoke(b.cp, OP.INVOKESTATIC, RT.TC, 'caught', `(${RT.TC_DESC}II)I`)];
  }

  /** The counter update of one piece, and its check where it has one. */
  piece(piece: Piece, nodeIndex: number): void {
    const b = this.b;
    const { cp, out, stats } = b;
    stats.counters++;
    const before = b.frameBefore(nodeIndex);
    // A check adds a branch target; in a method with frames it needs one, which dead code lacks.
    const canCheck = piece.check && (b.framesBefore === null || before != null);
    if (piece.check && !canCheck) stats.checksDropped++;
    const line = b.slowPathLine(piece);
    if (this.local) {
      out.push({ op: OP.IINC, var: b.cntVar, inc: -piece.insnCount });
      if (!canCheck) return;
      stats.checks++;
      const skip = new Label();
      out.push(load(OP.ILOAD, b.cntVar), { op: OP.IFGT, target: skip }, load(OP.ALOAD, b.tcVar), load(OP.ILOAD, b.cntVar), load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar));
      if (b.leaf) out.push(b.getMid());
      out.push(...line.push, invoke(cp, OP.INVOKESTATIC, RT.TC, b.leaf ? 'sampleLeaf' : 'sample', `(${RT.TC_DESC}I${RT.STACK_DESC}I${b.leaf ? RT.MID_DESC : ''}${line.desc})I`));
      out.push(op(OP.DUP), load(OP.ISTORE, b.syncVar), load(OP.ISTORE, b.cntVar), skip);
      if (b.newFrames && before) b.newFrames.set(skip, b.adapt(before));
      return;
    }
    if (b.options.compact) {
      this.compactPiece(piece, canCheck, line.push);
      return;
    }
    out.push(load(OP.ALOAD, b.tcVar), op(OP.DUP), field(cp, OP.GETFIELD, RT.TC, TC_FIELD.counter, 'I'), pushInt(cp, piece.insnCount), op(OP.ISUB));
    if (!canCheck) {
      out.push(field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.counter, 'I'));
      return;
    }
    stats.checks++;
    const skip = new Label();
    out.push(op(OP.DUP_X1), field(cp, OP.PUTFIELD, RT.TC, TC_FIELD.counter, 'I'), { op: OP.IFGT, target: skip }, load(OP.ALOAD, b.tcVar), load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar));
    if (b.leaf) out.push(b.getMid());
    out.push(...line.push, invoke(cp, OP.INVOKEVIRTUAL, RT.TC, b.leaf ? 'triggerSamplingLeaf' : 'triggerSampling', `(${RT.STACK_DESC}I${b.leaf ? RT.MID_DESC : ''}${line.desc})V`));
    out.push(skip);
    if (b.newFrames && before) b.newFrames.set(skip, b.adapt(before));
  }

  /**
   * TC.count or TC.countCheck(Leaf): one call, no branch and so no new frame. The check always
   * passes the line delta (-1 without a line), as the inline form's slow path does.
   */
  private compactPiece(piece: Piece, canCheck: boolean, linePush: Insn[]): void {
    const b = this.b;
    const { cp, out } = b;
    out.push(load(OP.ALOAD, b.tcVar), pushInt(cp, piece.insnCount));
    if (!canCheck) {
      out.push(invoke(cp, OP.INVOKESTATIC, RT.TC, 'count', `(${RT.TC_DESC}I)V`));
      return;
    }
    b.stats.checks++;
    out.push(load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar));
    if (b.leaf) out.push(b.getMid());
    out.push(...(linePush.length > 0 ? linePush : [pushInt(cp, -1)]));
    if (b.leaf) {
      out.push(invoke(cp, OP.INVOKESTATIC, RT.TC, 'countCheckLeaf', `(${RT.TC_DESC}I${RT.STACK_DESC}I${RT.MID_DESC}I)V`));
    } else {
      out.push(invoke(cp, OP.INVOKESTATIC, RT.TC, 'countCheck', `(${RT.TC_DESC}I${RT.STACK_DESC}II)V`));
    }
  }

  /**
   * The catch-all: an exception leaving the method stores what it counted since the last store.
   * (Not in a constructor of a class file without frames: where `this` is initialized is unknown.)
   */
  finish(): void {
    if (!this.rangeStarted) return;
    const b = this.b;
    const rangeEnd = new Label();
    const handler = new Label();
    b.out.push(rangeEnd, handler, ...this.caught(), op(OP.POP), op(OP.ATHROW));
    b.code.tryCatch.push({ start: this.rangeStart, end: rangeEnd, handler, catchType: null, catchTypeIndex: 0 });
    if (b.newFrames) {
      const locals: VType[] = Array<VType>(b.base).fill('T');
      locals.push(RT.EXTRA_VTYPES[0]!);
      while (locals.length < b.cntVar) locals.push('T');
      locals.push('I', 'I');
      b.newFrames.set(handler, { locals, stack: ['Ljava/lang/Throwable;' as VType] });
    }
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
export function deferredCounters(
  nodes: readonly Node[],
  tryCatch: readonly TryCatch[],
  pieceAt: Map<number, Piece>,
): { moved: Set<number>; to: Map<number, Piece> } {
  const moved = new Set<number>();
  const to = new Map<number, Piece>();
  if (tryCatch.length === 0) return { moved, to };
  const index = new Map<LabelType, number>();
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
