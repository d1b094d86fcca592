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

/** The pieces of one method on its table: valid until the next call (the arrays are shared). */
export interface TablePieces {
  table: CodeTable;
  /** Number of pieces. */
  count: number;
  /** First instruction of each piece, ascending; a piece runs to the next start, or to table.n. */
  starts: Int32Array;
  /** Whether piece b has a check. */
  check(b: number): boolean;
}

const tablePieces: TablePieces = {
  table,
  count: 0,
  starts: blocks.starts,
  check: (b) => checks.reason[b] !== CHECK_REASON.none,
};

/**
 * The pieces of the method whose Code attribute's body is `info`, on instruction indices of its
 * table; `entry` and `method` name the class file and the method in errors.
 */
export function findPieces(info: Uint8Array, entry: string, method: string, options: { checks: 'all' | 'optimized'; maxPath: number }): TablePieces {
  table.decode(info, entry, method);
  blocks.compute(table, options.maxPath);
  loops.compute(table, blocks);
  checks.compute(table, blocks, loops, { maxPath: options.maxPath, mode: options.checks });
  tablePieces.count = blocks.count;
  tablePieces.starts = blocks.starts;
  return tablePieces;
}

/**
 * The pieces named by their first instruction's node index in `code`, the object IR read from the
 * same bytes as `info`.
 */
export function computePieces(
  code: MethodCode,
  info: Uint8Array,
  entry: string,
  method: string,
  options: { checks: 'all' | 'optimized'; maxPath: number },
): Piece[] {
  const found = findPieces(info, entry, method, options);
  const pieces: Piece[] = new Array(found.count);
  let b = 0;
  let insn = 0;
  const nodes = code.nodes;
  for (let i = 0; i < nodes.length && b < found.count; i++) {
    if (isLabel(nodes[i]!)) continue;
    if (insn === found.starts[b]) {
      pieces[b] = { firstInsn: i, insnCount: blocks.end(b) - insn, check: found.check(b) };
      b++;
    }
    insn++;
  }
  if (b !== found.count) throw new KomoriumError(`${entry}: method ${method}: the object IR has fewer instructions than the Code attribute`);
  return pieces;
}
