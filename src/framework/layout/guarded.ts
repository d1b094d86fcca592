/**
 * The layouts without a second copy of the code. No-Duplication (seed 000 §3.2, Figure 6): each
 * probe runs behind its own check, so the counter counts probe executions instead of entries and
 * backedges. Exhaustive: every probe always runs; the perfect profile the sampled ones are
 * measured against.
 */
import { Label, type Frame, type Insn, type MethodCode, type Node } from '../../bytecode/ir.js';
import { blockLabel, lastInsn, type BackEdge } from '../../analysis/cfg.js';
import { MethodEditor } from '../../edit/method-editor.js';
import { branchTargets } from '../../bytecode/ir.js';
import { guardCode, probeCode } from '../probes.js';
import { leadingFramedLabel, maxSpill } from './duplicate.js';
import type { LayoutContext } from './context.js';

export function guardedLayout(ctx: LayoutContext, guard: boolean): MethodCode {
  const { cf, code, cfg, probes, trigger, base, frames } = ctx;
  const cp = cf.cp;
  const nodeIndex = new Map<Insn, number>();
  code.nodes.forEach((n, i) => nodeIndex.set(n as Insn, i));
  const ed = new MethodEditor(code);
  const spill = ed.reserveLocals(maxSpill(ctx));

  /** The probe, behind a check when guarded; [] in dead code, where no frame is known for the check's target. */
  const wrap = (probe: Node[], frame: Frame | null, skip?: Label): Node[] => {
    if (!guard || probe.length === 0) return probe;
    if (frame === null && frames.needed) return [];
    const target = skip ?? new Label();
    if (!skip) ed.setFrame(target, frame);
    return [...guardCode(cp, trigger, probe, target), ...(skip ? [] : [target])];
  };
  const before = (insn: Insn, probe: Node[]) => {
    ed.insertBefore(insn, wrap(probe, frames.before(nodeIndex.get(insn)!)));
  };

  if (probes.entry.length > 0) {
    const framed = leadingFramedLabel(code);
    ed.prepend(wrap(probeCode(cp, base, probes.entry, null, spill), frames.entry(), framed ?? undefined));
  }
  for (const [b, calls] of probes.blocks) before(code.nodes[cfg.blocks[b]!.firstInsn] as Insn, probeCode(cp, base, calls, null, spill));
  for (const [insn, calls] of probes.before) before(insn, probeCode(cp, base, calls, insn, spill));
  for (const [e, calls] of probes.backedges) onBackedge(e, probeCode(cp, base, calls, null, spill));
  return ed.finish();

  function onBackedge(e: BackEdge, probe: Node[]): void {
    const last = lastInsn(cfg, e.from);
    const frame = frames.before(cfg.blocks[e.to]!.firstInsn);
    if (e.fallthrough) {
      // The check's target is v itself when v has a framed label: two frames cannot share an offset.
      const v = blockLabel(cfg, e.to, code.frames);
      ed.insertAfter(last, wrap(probe, frame, v !== undefined && code.frames?.has(v) ? v : undefined));
    }
    if (!e.branch) return;
    const inV = branchTargets(last).filter((t) => cfg.blockOfNode[cfg.labelAt.get(t)!] === e.to);
    for (const t of new Set(inV)) ed.onBranch(last, t, wrap(probe, frame), frame);
  }
}
