/**
 * From a method's code to the pieces the transform counts: Komorium basic blocks (§4.2), split at
 * MaxPath, with granularity checks placed per --checks (§4.2 all, §5.2 optimized).
 */
import type { MethodCode } from '../../bytecode/ir.js';
import { computeBlocks } from '../../analysis/blocks.js';
import { findLoops } from '../../analysis/loops.js';
import { placeChecks } from '../../analysis/checks.js';
import type { Piece } from './method-body.js';

export function computePieces(code: MethodCode, options: { checks: 'all' | 'optimized'; maxPath: number }): Piece[] {
  const blocks = computeBlocks(code, { maxPath: options.maxPath });
  const loops = findLoops(blocks);
  const checks = placeChecks(blocks, loops.headers, { maxPath: options.maxPath, mode: options.checks });
  return blocks
    .filter((b) => b.insnCount > 0)
    .map((b) => ({ firstInsn: b.firstInsn, insnCount: b.insnCount, check: checks.has(b.index) }));
}
