/**
 * Basic blocks by Komorium's definition (seed 002 §4.2): only instructions that may change the
 * control flow non-sequentially end a block — jumps, conditional branches, switches, returns,
 * athrow, jsr and ret. Invocations do not end a block ("we assume that the execution will usually
 * return after the call"), and neither does an instruction that may throw: the counter update at
 * the start of a block counts all of its instructions, even when an exception cuts it short.
 * A block starts at a branch, switch or jsr target, at an exception handler, and after an
 * instruction that ends a block. Labels that are only line numbers, local-variable ranges, frames
 * or try-range bounds start nothing.
 *
 * Blocks partition the node list: a boundary always lies right after an instruction (or at 0), so
 * the labels in front of a block's first instruction (its line number, the target label) belong to
 * the block, and trailing labels after the last instruction belong to the last block.
 */
import { branchTargets, isLabel, labelIndices, type Insn, type Label, type MethodCode } from '../bytecode/ir.js';
import { OP, isConditionalBranch, isInvoke, isReturn, isUnconditionalTransfer } from '../bytecode/opcodes.js';

export interface Block {
  index: number;
  /** First node index of the block (a label or the first instruction). */
  start: number;
  /** Exclusive end node index. */
  end: number;
  /** Node index of the first instruction. */
  firstInsn: number;
  /** Node indices of the block's instructions, in order. */
  insns: number[];
  /** Number of original instructions (the count the counter update charges). */
  insnCount: number;
  /** Normal control-flow successors (branch targets, fall-through), as block indices, without duplicates. */
  successors: number[];
  /** Handlers that an exception in this block may reach (block indices), in exception-table order, without duplicates. */
  handlers: number[];
  /** The block begins at an exception handler. */
  isHandlerStart: boolean;
  /** The block ends in a return or athrow. */
  terminates: boolean;
  /** The block contains an invoke* instruction (invokedynamic included). */
  hasInvoke: boolean;
  /** Node indices of those invoke* instructions. */
  invokes: number[];
  /** The block ends in jsr or ret (class files before version 50 only). */
  endsWithJsrOrRet: boolean;
  /**
   * For a piece made by MaxPath splitting (computeBlocks with maxPath): the index of the original
   * block it belongs to. Pieces after the first are entered only by falling through from the previous one.
   */
  origBlock: number;
}

/** Komorium's block enders: every jump, branch, switch, return, athrow, jsr and ret. */
export function endsBlock(op: number): boolean {
  return isUnconditionalTransfer(op) || isConditionalBranch(op) || op === OP.JSR || op === OP.JSR_W;
}

export interface BlockOptions {
  /** §4.2 MaxPath: split blocks longer than this into pieces (0 or undefined: no splitting). */
  maxPath?: number;
}

export function computeBlocks(code: MethodCode, options: BlockOptions = {}): Block[] {
  const nodes = code.nodes;
  const labelAt = labelIndices(code);
  const idx = (l: Label): number => {
    const i = labelAt.get(l);
    if (i === undefined) throw new Error(`analysis: label ${l.id} is referenced but not in the instruction list`);
    return i;
  };
  // lastInsnBefore[i]: node index of the last instruction before node i, or -1.
  const lastInsnBefore = new Int32Array(nodes.length + 1);
  let last = -1;
  for (let i = 0; i < nodes.length; i++) {
    lastInsnBefore[i] = last;
    if (!isLabel(nodes[i]!)) last = i;
  }
  lastInsnBefore[nodes.length] = last;
  if (last < 0) return [];
  const lastInsn = last;

  const boundaries = new Set<number>([0]);
  const handlerStarts = new Set<number>();
  const startAtLabel = (l: Label) => boundaries.add(lastInsnBefore[idx(l)]! + 1);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (isLabel(n)) continue;
    if (endsBlock(n.op) && i < lastInsn) boundaries.add(i + 1);
    for (const t of branchTargets(n)) startAtLabel(t);
  }
  for (const tc of code.tryCatch) {
    startAtLabel(tc.handler);
    handlerStarts.add(lastInsnBefore[idx(tc.handler)]! + 1);
  }
  // A boundary after the last instruction would make a block of labels only; those labels stay in the last block.
  const starts = [...boundaries].filter((b) => b <= lastInsn).sort((a, b) => a - b);

  const blocks: Block[] = starts.map((start, index) => {
    const end = index + 1 < starts.length ? starts[index + 1]! : nodes.length;
    const insns: number[] = [];
    const invokes: number[] = [];
    for (let i = start; i < end; i++) {
      const n = nodes[i]!;
      if (isLabel(n)) continue;
      insns.push(i);
      if (isInvoke(n.op)) invokes.push(i);
    }
    const lastOp = (nodes[insns[insns.length - 1]!] as Insn).op;
    return {
      index,
      start,
      end,
      firstInsn: insns[0]!,
      insns,
      insnCount: insns.length,
      successors: [],
      handlers: [],
      isHandlerStart: handlerStarts.has(start),
      terminates: isReturn(lastOp) || lastOp === OP.ATHROW,
      hasInvoke: invokes.length > 0,
      invokes,
      endsWithJsrOrRet: lastOp === OP.JSR || lastOp === OP.JSR_W || lastOp === OP.RET,
      origBlock: index,
    };
  });

  const blockOfNode = new Int32Array(nodes.length);
  for (const b of blocks) blockOfNode.fill(b.index, b.start, b.end);
  const blockOf = (l: Label) => blockOfNode[idx(l)]!;

  // jsr returns to the instruction after it; a ret may return to any of those points.
  const jsrReturns: number[] = [];
  for (const b of blocks) {
    const lastOp = (nodes[b.insns[b.insns.length - 1]!] as Insn).op;
    if ((lastOp === OP.JSR || lastOp === OP.JSR_W) && b.index + 1 < blocks.length) jsrReturns.push(b.index + 1);
  }
  for (const b of blocks) {
    const insn = nodes[b.insns[b.insns.length - 1]!] as Insn;
    const succ: number[] = [];
    for (const t of branchTargets(insn)) succ.push(blockOf(t));
    if (insn.op === OP.RET) succ.push(...jsrReturns);
    else if (!isUnconditionalTransfer(insn.op) && insn.op !== OP.JSR && insn.op !== OP.JSR_W && b.index + 1 < blocks.length) {
      succ.push(b.index + 1);
    }
    b.successors = [...new Set(succ)];
  }

  // Handler edges: from every block with an instruction inside a try range to that handler.
  for (const tc of code.tryCatch) {
    const from = idx(tc.start);
    const to = idx(tc.end);
    const h = blockOf(tc.handler);
    for (const b of blocks) {
      if (b.handlers.includes(h)) continue;
      if (b.insns.some((i) => i >= from && i < to)) b.handlers.push(h);
    }
  }

  const maxPath = options.maxPath ?? 0;
  return maxPath > 0 ? applySplits(blocks, splitLongBlocks(blocks, maxPath)) : blocks;
}

/**
 * §4.2 MaxPath: the node indices of the instructions where a new piece must start so that no piece
 * has more than `maxPath` instructions. A block of n instructions becomes ceil(n / maxPath) pieces
 * of maxPath instructions each (the last one shorter). maxPath 0 turns splitting off.
 */
export function splitLongBlocks(blocks: readonly Block[], maxPath: number): number[] {
  const points: number[] = [];
  if (maxPath <= 0) return points;
  for (const b of blocks) {
    for (let k = maxPath; k < b.insnCount; k += maxPath) points.push(b.insns[k]!);
  }
  return points;
}

/**
 * Blocks cut at the given instruction node indices (from splitLongBlocks). A piece boundary lies
 * right after the previous instruction, like a block boundary. Pieces are re-indexed in order;
 * a piece falls through to the next piece of its block, the last piece keeps the block's
 * successors, and every piece keeps the block's handlers. Only the first piece is a handler start.
 */
export function applySplits(blocks: readonly Block[], splitPoints: readonly number[]): Block[] {
  if (splitPoints.length === 0) return blocks.map((b) => ({ ...b }));
  const cut = new Set(splitPoints);
  const pieces: Block[] = [];
  const firstPieceOf: number[] = [];
  for (const b of blocks) {
    firstPieceOf[b.index] = pieces.length;
    let group: number[] = [];
    const groups: number[][] = [];
    for (const i of b.insns) {
      if (cut.has(i) && group.length > 0) {
        groups.push(group);
        group = [];
      }
      group.push(i);
    }
    groups.push(group);
    groups.forEach((insns, k) => {
      const invokes = b.invokes.filter((i) => i >= insns[0]! && i <= insns[insns.length - 1]!);
      const start = k === 0 ? b.start : groups[k - 1]![groups[k - 1]!.length - 1]! + 1;
      const end = k + 1 < groups.length ? insns[insns.length - 1]! + 1 : b.end;
      const lastPiece = k + 1 === groups.length;
      pieces.push({
        ...b,
        index: pieces.length,
        start,
        end,
        firstInsn: insns[0]!,
        insns,
        insnCount: insns.length,
        successors: lastPiece ? b.successors : [],
        handlers: b.handlers,
        isHandlerStart: k === 0 && b.isHandlerStart,
        terminates: lastPiece && b.terminates,
        hasInvoke: invokes.length > 0,
        invokes,
        endsWithJsrOrRet: lastPiece && b.endsWithJsrOrRet,
        origBlock: b.index,
      });
    });
  }
  for (const p of pieces) {
    const isLast = p.index + 1 === pieces.length || pieces[p.index + 1]!.origBlock !== p.origBlock;
    p.successors = isLast ? p.successors.map((s) => firstPieceOf[s]!) : [p.index + 1];
    p.handlers = p.handlers.map((h) => firstPieceOf[h]!);
  }
  return pieces;
}
