/**
 * Live local variables: which slots may be read before they are written, at the start of each
 * block (backward data flow over the control-flow graph, cfg.ts). A slot that is not live there
 * holds nothing the rest of the method can observe, so code that moves control elsewhere and back
 * (twin.ts) need not carry it.
 *
 * A long or double is two slots, both read by its load and both written by its store; `iinc` reads
 * and writes its slot; `ret` reads its. An exception may leave a block at any of its instructions,
 * so whatever is live at the entry of one of its handlers is live throughout the block (an
 * instruction's stores may not have happened yet when it throws).
 */
import type { Insn } from '../bytecode/ir.js';
import { OP } from '../bytecode/opcodes.js';
import type { Cfg } from './cfg.js';

/** Slots the instruction reads and the slots it writes (both empty for instructions without a local). */
export function localAccess(insn: Insn): { reads: number[]; writes: number[] } {
  const v = insn.var;
  if (v === undefined) return { reads: [], writes: [] };
  switch (insn.op) {
    case OP.ILOAD:
    case OP.FLOAD:
    case OP.ALOAD:
    case OP.RET:
      return { reads: [v], writes: [] };
    case OP.LLOAD:
    case OP.DLOAD:
      return { reads: [v, v + 1], writes: [] };
    case OP.ISTORE:
    case OP.FSTORE:
    case OP.ASTORE:
      return { reads: [], writes: [v] };
    case OP.LSTORE:
    case OP.DSTORE:
      return { reads: [], writes: [v, v + 1] };
    case OP.IINC:
      return { reads: [v], writes: [v] };
    default:
      return { reads: [], writes: [] };
  }
}

/**
 * For every block, the slots (below `maxLocals`) live at its first instruction; unreachable blocks
 * get what their successors need, which no path uses.
 */
export function liveAtBlockStarts(cfg: Cfg, maxLocals: number): Uint8Array[] {
  const n = cfg.blocks.length;
  const liveIn: Uint8Array[] = cfg.blocks.map(() => new Uint8Array(maxLocals));
  const queued = new Uint8Array(n).fill(1);
  // Backward problem: start from the last block so that most blocks see their successors done.
  const work: number[] = cfg.blocks.map((b) => b.index);
  while (work.length > 0) {
    const b = work.pop()!;
    queued[b] = 0;
    const next = transfer(cfg, b, liveIn, maxLocals);
    if (sameSet(next, liveIn[b]!)) continue;
    liveIn[b] = next;
    for (const p of cfg.preds[b]!) {
      if (queued[p]) continue;
      queued[p] = 1;
      work.push(p);
    }
  }
  return liveIn;
}

/** Live-in of block `b` from the live-in of its successors and handlers. */
function transfer(cfg: Cfg, b: number, liveIn: readonly Uint8Array[], maxLocals: number): Uint8Array {
  const block = cfg.blocks[b]!;
  const live = new Uint8Array(maxLocals);
  for (const s of block.successors) union(live, liveIn[s]!);
  for (let k = block.insns.length - 1; k >= 0; k--) {
    const { reads, writes } = localAccess(cfg.code.nodes[block.insns[k]!] as Insn);
    for (const w of writes) if (w < maxLocals) live[w] = 0;
    for (const r of reads) if (r < maxLocals) live[r] = 1;
  }
  // The block may throw before any of its stores, so what a handler reads is live at its start.
  // Slots are independent, so one union here gives what a union after every instruction would.
  for (const h of block.handlers) union(live, liveIn[h]!);
  return live;
}

function union(into: Uint8Array, from: Uint8Array): void {
  for (let i = 0; i < into.length; i++) into[i] = into[i]! | from[i]!;
}

function sameSet(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
