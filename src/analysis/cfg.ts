/**
 * The control-flow graph of a method as the Arnold–Ryder framework needs it (seed 000 §2): basic
 * blocks (blocks.ts: calls do not end a block, so Komorium's counting blocks are this graph's
 * nodes), their normal and exception edges, and the backedges, the edges that close a cycle. With
 * a check on every backedge and at the entry, every cycle of the checking code passes a check,
 * and duplicated code whose backedges all lead back to the checking code is acyclic.
 *
 * A backedge is a retreating edge of a depth-first search from the entry (loops.ts): the edges
 * into natural loop headers, and for irreducible cycles the edge the search happened to close
 * them with. Unreachable blocks have none here: their code never runs.
 */
import { branchTargets, isLabel, labelIndices, type Insn, type Label, type MethodCode } from '../bytecode/ir.js';
import { OP, isUnconditionalTransfer } from '../bytecode/opcodes.js';
import { computeBlocks, type Block } from './blocks.js';
import { edgesOf, findLoops } from './loops.js';

/** How control goes along an edge. An edge can be several at once (a branch to the next block). */
export interface EdgeWays {
  /** The last instruction branches or switches to the target. */
  branch: boolean;
  /** The last instruction falls through to the target, the next block. */
  fallthrough: boolean;
  /** An instruction of the block is covered by a try range whose handler is the target. */
  handler: boolean;
}

export interface BackEdge extends EdgeWays {
  from: number;
  to: number;
}

export interface Cfg {
  code: MethodCode;
  blocks: Block[];
  /** Node index → block index (labels belong to the block that follows them). */
  blockOfNode: Int32Array;
  /** Node index of every label. */
  labelAt: Map<Label, number>;
  backEdges: BackEdge[];
  /** Blocks the entry reaches through normal and exception edges. */
  reachable: boolean[];
  /** Predecessors through normal and exception edges. */
  preds: number[][];
  /** Some cycle has no head that dominates it (javac never compiles one; obfuscators and other compilers may). */
  irreducible: boolean;
}

export function buildCfg(code: MethodCode): Cfg {
  const blocks = computeBlocks(code);
  const blockOfNode = new Int32Array(code.nodes.length);
  for (const b of blocks) blockOfNode.fill(b.index, b.start, b.end);
  const loops = findLoops(blocks);
  const labelAt = labelIndices(code);
  const preds: number[][] = blocks.map(() => []);
  for (const b of blocks) for (const s of edgesOf(b)) preds[s]!.push(b.index);
  const backEdges: BackEdge[] = [];
  for (const [from, to] of [...loops.backEdges, ...loops.irreducibleEdges]) {
    if (!loops.reachable[from]) continue;
    backEdges.push({ from, to, ...edgeWays(code, blocks, blockOfNode, labelAt, from, to) });
  }
  backEdges.sort((a, b) => a.from - b.from || a.to - b.to);
  const irreducible = loops.irreducibleEdges.some(([from]) => loops.reachable[from]);
  return { code, blocks, blockOfNode, labelAt, backEdges, reachable: loops.reachable, preds, irreducible };
}

function edgeWays(
  code: MethodCode,
  blocks: readonly Block[],
  blockOfNode: Int32Array,
  labelAt: Map<Label, number>,
  from: number,
  to: number,
): EdgeWays {
  const b = blocks[from]!;
  const last = code.nodes[b.insns[b.insns.length - 1]!] as Insn;
  const branch = branchTargets(last).some((l) => blockOfNode[labelAt.get(l)!] === to);
  const fallthrough =
    to === from + 1 && !isUnconditionalTransfer(last.op) && last.op !== OP.JSR && last.op !== OP.JSR_W;
  return { branch, fallthrough, handler: b.handlers.includes(to) };
}

/** The last instruction of a block. */
export function lastInsn(cfg: Cfg, block: number): Insn {
  const b = cfg.blocks[block]!;
  return cfg.code.nodes[b.insns[b.insns.length - 1]!] as Insn;
}

/**
 * A label in front of a block's first instruction, if it has one: the one with a stack map frame
 * when `frames` is given and one has (a new frame at that offset would be a second one).
 */
export function blockLabel(cfg: Cfg, block: number, frames?: { has(l: Label): boolean } | null): Label | undefined {
  const b = cfg.blocks[block]!;
  let first: Label | undefined;
  for (let i = b.start; i < b.firstInsn; i++) {
    const n = cfg.code.nodes[i]!;
    if (!isLabel(n)) continue;
    if (frames?.has(n)) return n;
    first ??= n;
  }
  return first;
}
