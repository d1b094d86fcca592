/**
 * From a method's code to the pieces the transform counts: Komorium basic blocks (§4.2), split at
 * MaxPath, with granularity checks placed per --checks (§4.2 all, §5.2 optimized). The blocks, loops
 * and checks are found on the Code attribute's bytes as a table (docs/non-object-ir.md); the pieces
 * name their first instruction by its node index in `code`, the object IR read from the same bytes.
 */
import { KomoriumError } from '../../errors.js';
import { isLabel, type MethodCode } from '../../bytecode/ir.js';
import { CodeTable } from '../../bytecode/code-table.js';
import { TableBlocks } from '../../analysis/table-blocks.js';
import { TableLoops } from '../../analysis/table-loops.js';
import { CHECK_REASON, TableChecks } from '../../analysis/table-checks.js';
import type { Piece } from './method-body.js';

// Refilled for every method; one set per thread (a worker has its own module instance).
const table = new CodeTable();
const blocks = new TableBlocks();
const loops = new TableLoops();
const checks = new TableChecks();

/**
 * `info` is the body of the Code attribute `code` was read from; `entry` and `method` name the class
 * file and the method in errors.
 */
export function computePieces(
  code: MethodCode,
  info: Uint8Array,
  entry: string,
  method: string,
  options: { checks: 'all' | 'optimized'; maxPath: number },
): Piece[] {
  table.decode(info, entry, method);
  blocks.compute(table, options.maxPath);
  loops.compute(table, blocks);
  checks.compute(table, blocks, loops, { maxPath: options.maxPath, mode: options.checks });
  const pieces: Piece[] = new Array(blocks.count);
  let b = 0;
  let insn = 0;
  const nodes = code.nodes;
  for (let i = 0; i < nodes.length && b < blocks.count; i++) {
    if (isLabel(nodes[i]!)) continue;
    if (insn === blocks.starts[b]) {
      pieces[b] = { firstInsn: i, insnCount: blocks.end(b) - insn, check: checks.reason[b] !== CHECK_REASON.none };
      b++;
    }
    insn++;
  }
  if (b !== blocks.count) throw new KomoriumError(`${entry}: method ${method}: the object IR has fewer instructions than the Code attribute`);
  return pieces;
}
