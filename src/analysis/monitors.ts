/**
 * How many monitors are held at the start of each block. HotSpot's compilers refuse a method
 * whose monitorenter and monitorexit do not pair up along every path, matching each exit to the
 * instruction that entered the monitor, so a jump between two copies of the code (seed 000's
 * checking and duplicated code) may only happen where no monitor is held: there the two copies
 * meet with nothing to match.
 */
import type { Insn } from '../bytecode/ir.js';
import { OP } from '../bytecode/opcodes.js';
import type { Cfg } from './cfg.js';

/** Depth at each block start; -1 where paths disagree or an exit has no enter (unstructured locking), or unreachable. */
export function monitorDepths(cfg: Cfg): Int32Array {
  const { blocks, code } = cfg;
  const depth = new Int32Array(blocks.length).fill(NONE);
  if (blocks.length === 0) return depth;
  // Try ranges as node index intervals, with their handler's block.
  const ranges = code.tryCatch.map((t) => ({
    from: cfg.labelAt.get(t.start)!,
    to: cfg.labelAt.get(t.end)!,
    handler: cfg.blockOfNode[cfg.labelAt.get(t.handler)!]!,
  }));
  const work: number[] = [];
  const flow = (b: number, d: number) => {
    const old = depth[b]!;
    const next = old === NONE ? d : old === d ? d : BAD;
    if (next !== old) {
      depth[b] = next;
      work.push(b);
    }
  };
  flow(0, 0);
  while (work.length > 0) {
    const b = work.pop()!;
    let d = depth[b]!;
    const block = blocks[b]!;
    for (const i of block.insns) {
      for (const r of ranges) if (i >= r.from && i < r.to) flow(r.handler, d);
      if (d === BAD) continue;
      const op = (code.nodes[i] as Insn).op;
      if (op === OP.MONITORENTER) d++;
      else if (op === OP.MONITOREXIT) d = d > 0 ? d - 1 : BAD;
    }
    for (const s of block.successors) flow(s, d);
  }
  for (let b = 0; b < depth.length; b++) if (depth[b] === NONE) depth[b] = BAD;
  return depth;
}

const NONE = -2;
const BAD = -1;
