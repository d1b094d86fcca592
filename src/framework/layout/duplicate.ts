/**
 * Full-Duplication (seed 000 §2, Figures 1 and 2). The original code becomes the checking code,
 * with a check at the method entry and on every backedge; a copy of the whole method, the
 * duplicated code, carries the probes. A check that fires jumps to the same point in the
 * duplicated code, and every backedge of the duplicated code goes back through its check in the
 * checking code, so a sample runs probes along one acyclic path, and with interval 1 every check
 * fires and the probes see every event (the exhaustive profile).
 *
 *   entry check ─fire─▶ D.entry
 *   C: original code; backedge u→v goes to trampoline T(u→v)
 *   T(u→v): check ─fire─▶ D.v, else C.v            (shared by both copies' u→v)
 *   D: copy with probes; backedge u→v goes to [backedge probes] T(u→v)
 */
import { Label, branchTargets, isLabel, type Frame, type Insn, type MethodCode, type Node } from '../../bytecode/ir.js';
import { OP } from '../../bytecode/opcodes.js';
import { addCopiedTables, copyCode, copyTryCatch, type CodeCopy } from '../../bytecode/clone.js';
import { blockLabel, lastInsn, type BackEdge } from '../../analysis/cfg.js';
import { MethodEditor } from '../../edit/method-editor.js';
import { checkCode, checkJump, probeCode, spillSlots } from '../probes.js';
import { LayoutRefused, checkTransfers, hasSubroutines, type LayoutContext } from './context.js';

/**
 * How control first enters the duplicated code, put in front of the method: by default the
 * entry check (seed 000); in an out-of-line copy (twin.ts), a dispatch on the entry it was called for.
 */
export type EntryPlan = (ed: MethodEditor, dEntry: Label, copyLabel: (block: number) => Label) => void;

/** The entry check: sample from the method entry when it fires, else run the checking code. */
export function entryCheck(ctx: LayoutContext): EntryPlan {
  return (ed, dEntry) => {
    const framed = leadingFramedLabel(ctx.code);
    const cont = framed ?? new Label();
    if (!framed) ed.setFrame(cont, ctx.frames.entry());
    ed.prepend([...checkCode(ctx.cf.cp, ctx.trigger, dEntry, cont), ...(framed ? [] : [cont])]);
  };
}

/**
 * Where a backedge check that does not fire goes: by default the checking code's loop head; in an
 * out-of-line copy (twin.ts), code that hands the loop head back to the method (or, where the
 * method may not resume there, goes on at `checking`, the checking code's loop head).
 */
export type ResumePlan = (ed: MethodEditor, block: number, checking: Label) => Label;

export function fullDuplication(ctx: LayoutContext, entry: EntryPlan = entryCheck(ctx), resume?: ResumePlan): MethodCode {
  const { cf, code, cfg, probes, trigger, base, frames } = ctx;
  if (hasSubroutines(code)) throw new LayoutRefused('jsr/ret subroutines');
  // A cycle closed only by an exception edge (javac's handler of a synchronized block covers its
  // own monitorexit) stays inside each copy: it runs only while exceptions are thrown.
  const backedges = cfg.backEdges.filter((e) => e.branch || e.fallthrough);
  const targets = new Set(backedges.map((e) => e.to));
  checkTransfers(ctx, targets);

  const cp = cf.cp;
  const copy = copyCode(code);
  const frameOfBlock = (b: number): Frame | null => frames.before(cfg.blocks[b]!.firstInsn);
  const ed = new MethodEditor(code);
  const spill = ed.reserveLocals(maxSpill(ctx));

  // Both copies need a label, with a frame, at the start of every backedge target.
  const cLabel = new Map<number, Label>();
  const dLabel = new Map<number, Label>();
  for (const v of targets) {
    const frame = frameOfBlock(v);
    const first = code.nodes[cfg.blocks[v]!.firstInsn] as Insn;
    let c = blockLabel(cfg, v, code.frames);
    let d: Label;
    if (c === undefined) {
      c = new Label();
      d = new Label();
      ed.insertBefore(first, [c]);
      ed.insertBefore(copy.insn(first)!, [d]);
    } else d = copy.label(c);
    if (!code.frames?.has(c)) {
      ed.setFrame(c, frame);
      ed.setFrame(d, frame);
    }
    cLabel.set(v, c);
    dLabel.set(v, d);
  }

  for (const e of backedges) redirect(e);

  // The entry, in front of everything (a loop back to offset 0 does not pass it again).
  const dEntry = copyEntry(ed, ctx, copy, probeCode(cp, base, probes.entry, null, spill));
  entry(ed, dEntry.label, (b) => dLabel.get(b)!);

  ed.append([...dEntry.prefix, ...copy.nodes]);
  for (const [b, calls] of probes.blocks) {
    ed.insertBefore(copy.insn(code.nodes[cfg.blocks[b]!.firstInsn] as Insn)!, probeCode(cp, base, calls, null, spill));
  }
  for (const [insn, calls] of probes.before) ed.insertBefore(copy.insn(insn)!, probeCode(cp, base, calls, insn, spill));

  for (const tc of copyTryCatch(code, copy, (tc) => copy.label(tc.handler))) ed.addTryCatch(tc, false);
  for (const [l, f] of copy.frames) ed.setFrame(l, f);
  addCopiedTables(code, copy);
  return ed.finish();

  /** u→v in both copies goes to the edge's trampoline (the copy's through its backedge probes). */
  function redirect(e: BackEdge): void {
    const v = e.to;
    const frame = frameOfBlock(v);
    const trampoline = new Label();
    ed.setFrame(trampoline, frame);
    ed.append([trampoline, ...checkJump(cp, trigger, dLabel.get(v)!, resume ? resume(ed, v, cLabel.get(v)!) : cLabel.get(v)!)]);
    let fromCopy = trampoline;
    const calls = probes.backedges.get(e);
    if (calls && calls.length > 0) {
      fromCopy = new Label();
      ed.setFrame(fromCopy, frame);
      ed.append([fromCopy, ...probeCode(cp, base, calls, null, spill), { op: OP.GOTO, target: trampoline }]);
    }
    const last = lastInsn(cfg, e.from);
    jumpOnEdge(ed, copy, last, v, trampoline, fromCopy, e);
  }

  function jumpOnEdge(editor: MethodEditor, c: CodeCopy, last: Insn, v: number, toC: Label, toD: Label, e: BackEdge): void {
    const inV = branchTargets(last).filter((t) => cfg.blockOfNode[cfg.labelAt.get(t)!] === v);
    const dLast = c.insn(last)!;
    if (e.branch) {
      for (const t of new Set(inV)) {
        editor.retarget(last, t, toC);
        editor.retarget(dLast, c.label(t), toD);
      }
    }
    if (e.fallthrough) {
      editor.insertAfter(last, [{ op: OP.GOTO, target: toC }]);
      editor.insertAfter(dLast, [{ op: OP.GOTO, target: toD }]);
    }
  }
}

/** The largest operand area a probe of this method sets aside. */
export function maxSpill(ctx: LayoutContext): number {
  let n = 0;
  for (const [insn, calls] of ctx.probes.before) n = Math.max(n, spillSlots(ctx.cf.cp, calls, insn));
  return n;
}

/**
 * Where a sample taken at the method entry enters the copy, and the code put in front of the copy:
 * the entry's probes behind a label with the entry frame; with no entry probe, the copy's own first
 * label when the original records a frame at offset 0 (a loop starting there, its frame maybe
 * wider than the descriptor's: Clojure's `(Object, Object, Object)` for `(Object, Object, ISeq)`).
 * Two different frames at one offset are not allowed, and the entry state is assignable to the
 * recorded one.
 */
export function copyEntry(ed: MethodEditor, ctx: LayoutContext, copy: CodeCopy, entryProbes: Node[]): { label: Label; prefix: Node[] } {
  const leading = leadingFramedLabel(ctx.code);
  if (entryProbes.length === 0 && leading) return { label: copy.label(leading), prefix: [] };
  const label = new Label();
  ed.setFrame(label, ctx.frames.entry());
  return { label, prefix: [label, ...entryProbes] };
}

/**
 * A label with a recorded frame in front of the first instruction (a loop that starts at offset
 * 0). Code put before the method must end with that label rather than a new one: two frames at
 * one offset are not allowed.
 */
export function leadingFramedLabel(code: MethodCode): Label | null {
  for (const n of code.nodes) {
    if (!isLabel(n)) return null;
    if (code.frames?.has(n)) return n;
  }
  return null;
}
