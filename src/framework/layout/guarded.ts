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
import { guardCode, ownGuardCode, probeCode } from '../probes.js';
import type { ProbeCall } from '../sites.js';
import { leadingFramedLabel, maxSpill } from './duplicate.js';
import type { LayoutContext } from './context.js';

export function guardedLayout(ctx: LayoutContext, guard: boolean): MethodCode {
  const { cf, code, cfg, probes, trigger, base, frames } = ctx;
  const cp = cf.cp;
  const nodeIndex = new Map<Insn, number>();
  code.nodes.forEach((n, i) => nodeIndex.set(n as Insn, i));
  const ed = new MethodEditor(code);
  const spill = ed.reserveLocals(maxSpill(ctx));

  /**
   * The probe of `calls` at a point whose frame is `frame`: the calls the framework samples, behind
   * its check when guarded, then each kind's own guarded calls behind their flag (probes.ts
   * ownGuardCode). Each part ends at a label with that frame; the last one at `skip` when given
   * (a framed label that follows, since two frames cannot share an offset). [] in dead code, where
   * no frame is known for the labels.
   */
  const wrap = (calls: readonly ProbeCall[], insn: Insn | null, frame: Frame | null, skip?: Label): Node[] => {
    const parts = probeParts(calls);
    if (parts.length === 0) return [];
    const needsLabel = guard || parts.some((p) => p.guard !== undefined);
    if (!needsLabel) {
      const call = insn === null ? ctx.probeMethods?.call(calls) : null;
      return call ? [call] : probeCode(cp, base, calls, insn, spill);
    }
    if (frame === null && frames.needed) return [];
    const out: Node[] = [];
    parts.forEach((part, i) => {
      const probe = probeCode(cp, base, part.calls, insn, spill);
      if (part.guard === undefined && !guard) {
        out.push(...probe);
        return;
      }
      const last = i === parts.length - 1;
      const target = last && skip ? skip : new Label();
      if (target !== skip) ed.setFrame(target, frame);
      out.push(...(part.guard === undefined ? guardCode(cp, trigger, probe, target) : ownGuardCode(cp, part.calls[0]!.owner, part.guard, probe, target)));
      if (target !== skip) out.push(target);
    });
    return out;
  };
  const before = (insn: Insn, calls: readonly ProbeCall[]) => {
    ed.insertBefore(insn, wrap(calls, insn, frames.before(nodeIndex.get(insn)!)));
  };

  if (probes.entry.length > 0) {
    const framed = leadingFramedLabel(code);
    ed.prepend(wrap(probes.entry, null, frames.entry(), framed ?? undefined));
  }
  for (const [b, calls] of probes.blocks) {
    const first = code.nodes[cfg.blocks[b]!.firstInsn] as Insn;
    ed.insertBefore(first, wrap(calls, null, frames.before(nodeIndex.get(first)!)));
  }
  for (const [insn, calls] of probes.before) before(insn, calls);
  for (const [e, calls] of probes.backedges) onBackedge(e, calls);
  return ed.finish();

  function onBackedge(e: BackEdge, calls: readonly ProbeCall[]): void {
    const last = lastInsn(cfg, e.from);
    const frame = frames.before(cfg.blocks[e.to]!.firstInsn);
    if (e.fallthrough) {
      // The check's target is v itself when v has a framed label: two frames cannot share an offset.
      const v = blockLabel(cfg, e.to, code.frames);
      ed.insertAfter(last, wrap(calls, null, frame, v !== undefined && code.frames?.has(v) ? v : undefined));
    }
    if (!e.branch) return;
    const inV = branchTargets(last).filter((t) => cfg.blockOfNode[cfg.labelAt.get(t)!] === e.to);
    for (const t of new Set(inV)) ed.onBranch(last, t, wrap(calls, null, frame), frame);
  }
}

/** The calls of one probe point in parts: those the framework samples first, then one part per kind's own guard. */
function probeParts(calls: readonly ProbeCall[]): { guard?: string; calls: ProbeCall[] }[] {
  const plain = calls.filter((c) => c.guard === undefined);
  const parts: { guard?: string; calls: ProbeCall[] }[] = plain.length > 0 ? [{ calls: plain }] : [];
  for (const c of calls) {
    if (c.guard === undefined) continue;
    const part = parts.find((p) => p.guard === c.guard && p.calls[0]!.owner === c.owner);
    if (part) part.calls.push(c);
    else parts.push({ guard: c.guard, calls: [c] });
  }
  return parts;
}
