/**
 * What every layout of the framework works from: the method and its analyses, the probes the
 * kinds want, and the frames a new branch target needs. Also the rule for jumping between two
 * copies of the code: only where no monitor is held and no uninitialized object is alive.
 */
import type { ClassFile } from '../../classfile/classfile.js';
import type { MemberInfo } from '../../classfile/model.js';
import { isLabel, type Frame, type Insn, type Label, type MethodCode } from '../../bytecode/ir.js';
import { OP } from '../../bytecode/opcodes.js';
import { stackEffect } from '../../bytecode/stack-effect.js';
import { entryFrame, simulateFrames } from '../../analysis/frames.js';
import type { Cfg } from '../../analysis/cfg.js';
import { monitorDepths } from '../../analysis/monitors.js';
import { KomoriumError, UsageError } from '../../errors.js';
import type { KindProbes } from '../events.js';
import type { MethodProbes } from '../sites.js';
import type { CheckTrigger, SiteBase } from '../probes.js';
import type { ProbeMethods } from './probe-methods.js';

export type LayoutName = 'full-dup' | 'partial-dup' | 'no-dup' | 'exhaustive';

export const LAYOUTS: readonly LayoutName[] = ['full-dup', 'partial-dup', 'no-dup', 'exhaustive'];

/**
 * The layout `kinds` are instrumented with: `asked` (--layout), else full-dup. A kind that samples
 * on its own (KindProbes.sampling 'own') needs a probe at every event: exhaustive, its default,
 * and no other layout. Beside kinds that the framework samples, exhaustive records their every
 * event too, so there it must be asked for.
 */
export function layoutFor(kinds: readonly KindProbes[], asked: LayoutName | undefined): LayoutName {
  const own = kinds.filter((k) => k.sampling === 'own').map((k) => k.name);
  if (own.length === 0) return asked ?? 'full-dup';
  if (asked === 'exhaustive' || (asked === undefined && own.length === kinds.length)) return 'exhaustive';
  const others = kinds.filter((k) => k.sampling !== 'own').map((k) => k.name);
  throw new UsageError(
    `--layout ${asked ?? 'full-dup (the default)'}: ${own.join(', ')} samples on its own and needs a probe at every event, ` +
      `so it runs only with --layout exhaustive` +
      (others.length > 0 ? ` (which records every event of ${others.join(', ')} too), or instrument twice` : ''),
  );
}

export interface LayoutContext {
  cf: ClassFile;
  method: MemberInfo;
  /** The method's code as read; a layout edits it in place. */
  code: MethodCode;
  cfg: Cfg;
  probes: MethodProbes;
  trigger: CheckTrigger;
  base: SiteBase;
  frames: FrameSource;
  /** Where probes without operands go into methods of their own (probe-methods.ts), to keep the method under HugeMethodLimit. */
  probeMethods?: ProbeMethods | null;
}

/** A layout that cannot lay out this method; the caller falls back to a simpler one. */
export class LayoutRefused extends KomoriumError {
  override name = 'LayoutRefused';
}

/**
 * Frames of the original code, simulated once when first asked for. Null everywhere in a class
 * file without stack map frames (before version 50), which needs none.
 */
export class FrameSource {
  private simulated: (Frame | null)[] | null = null;
  readonly needed: boolean;

  constructor(
    private readonly cf: ClassFile,
    private readonly method: MemberInfo,
    private readonly code: MethodCode,
  ) {
    this.needed = code.frames !== null || cf.major >= 50;
  }

  /** The frame before node `i` of the original code; null when not needed or in dead code. */
  before(i: number): Frame | null {
    if (!this.needed) return null;
    this.simulated ??= simulateFrames(this.cf, this.method, this.code);
    const f = this.simulated[i];
    return f ? { locals: f.locals.slice(), stack: f.stack.slice() } : null;
  }

  entry(): Frame | null {
    return this.needed ? entryFrame(this.cf, this.method) : null;
  }
}

/**
 * Why control cannot move between two copies of the code at the start of `block`, or null when
 * it can: a held monitor (HotSpot would not compile the method) or an uninitialized object (its
 * type names one copy's `new`).
 */
export function transferProblem(ctx: LayoutContext, block: number, depths: Int32Array): string | null {
  if (depths[block] !== 0) return depths[block]! > 0 ? 'a loop inside a synchronized block' : 'unstructured monitor use';
  const b = ctx.cfg.blocks[block]!;
  const f = ctx.frames.before(b.firstInsn);
  if (f !== null) {
    if ([...f.stack, ...f.locals].some((v) => typeof v !== 'string')) return 'a loop while an object is under construction';
  } else if (!ctx.frames.needed && stackHeightAt(ctx, block) !== 0) {
    return 'a loop with values on the operand stack';
  }
  return null;
}

export function checkTransfers(ctx: LayoutContext, blocks: Iterable<number>): void {
  const depths = monitorDepths(ctx.cfg);
  for (const b of blocks) {
    const problem = transferProblem(ctx, b, depths);
    if (problem) throw new LayoutRefused(problem);
  }
}

/** Code with subroutines (jsr/ret, class files before 50) is not duplicated. */
export function hasSubroutines(code: MethodCode): boolean {
  return code.nodes.some((n) => !isLabel(n) && (n.op === OP.JSR || n.op === OP.RET));
}

let heights: WeakMap<Cfg, Int32Array> = new WeakMap();

/** Operand stack height at a block's start, by data flow (for class files without frames). */
function stackHeightAt(ctx: LayoutContext, block: number): number {
  let h = heights.get(ctx.cfg);
  if (!h) {
    h = computeHeights(ctx);
    heights.set(ctx.cfg, h);
  }
  return h[block]!;
}

function computeHeights(ctx: LayoutContext): Int32Array {
  const { cfg, cf } = ctx;
  const h = new Int32Array(cfg.blocks.length).fill(-1);
  const work = [0];
  h[0] = 0;
  for (const b of cfg.blocks) if (b.isHandlerStart) (h[b.index] = 1), work.push(b.index);
  while (work.length > 0) {
    const b = cfg.blocks[work.pop()!]!;
    let d = h[b.index]!;
    for (const i of b.insns) d += stackEffect(cf.cp, cfg.code.nodes[i] as Insn);
    for (const s of b.successors) {
      if (h[s] === -1) {
        h[s] = d;
        work.push(s);
      }
    }
  }
  return h;
}

/** Resets cached analyses (tests). */
export function resetLayoutCaches(): void {
  heights = new WeakMap();
}
