/**
 * Partial-Duplication (seed 000 §3.1): the duplicated code keeps only the blocks that can still
 * lead to a probe. On the graph without backedges (the DAG):
 *   - a bottom block has no probe and no probe after it: a copy that reaches one goes on in the
 *     checking code;
 *   - a top block has no probe and no probe before it: it is not copied, the check that would jump
 *     to it goes, and each edge from a top block to a copied one gets a check instead.
 * Property 1 holds: per entry or backedge at most one check runs, as with full duplication.
 *
 * What the JVM adds to the paper: control may only move between the copies where no monitor is
 * held and no object is under construction, and a check cannot sit on an exception edge. A block
 * that would need such a move is copied after all (and with it everything after it, for a top
 * block), so the result is always a valid, maybe larger, duplication.
 */
import { Label, branchTargets, isLabel, type Frame, type Insn, type MethodCode, type Node, type TryCatch } from '../../bytecode/ir.js';
import { OP, isUnconditionalTransfer } from '../../bytecode/opcodes.js';
import { addCopiedTables, copyCode, type CodeCopy } from '../../bytecode/clone.js';
import { blockLabel, lastInsn, type BackEdge } from '../../analysis/cfg.js';
import { monitorDepths } from '../../analysis/monitors.js';
import { MethodEditor } from '../../edit/method-editor.js';
import { checkCode, checkJump, probeCode } from '../probes.js';
import { LayoutRefused, hasSubroutines, transferProblem, type LayoutContext } from './context.js';
import { copyEntry, leadingFramedLabel, maxSpill } from './duplicate.js';

export function partialDuplication(ctx: LayoutContext): MethodCode {
  const { cf, code, cfg, probes, trigger, base, frames } = ctx;
  if (hasSubroutines(code)) throw new LayoutRefused('jsr/ret subroutines');
  const n = cfg.blocks.length;
  // As in duplicate.ts, a cycle closed only by an exception edge stays inside each copy.
  const backEdges = cfg.backEdges.filter((e) => e.branch || e.fallthrough);
  const back = new Set(backEdges.map((e) => `${e.from}>${e.to}`));
  const isBack = (u: number, v: number) => back.has(`${u}>${v}`);
  const dagSucc = cfg.blocks.map((b) => [...new Set([...b.successors, ...b.handlers])].filter((v) => !isBack(b.index, v)));
  const depths = monitorDepths(cfg);
  const safe = (b: number) => transferProblem(ctx, b, depths) === null;

  const instrumented = probedBlocks(ctx);
  const retained = new Array<boolean>(n).fill(false);
  const top = new Array<boolean>(n).fill(false);
  classify();

  // The checking code, before anything is edited: labels and frames at the blocks control moves to.
  const copy = copyCode(code, (i) => retained[cfg.blockOfNode[i]!]!);
  const ed = new MethodEditor(code);
  const spill = ed.reserveLocals(maxSpill(ctx));
  const frameOfBlock = (b: number): Frame | null => frames.before(cfg.blocks[b]!.firstInsn);
  // Frames as read: setFrame adds to code.frames as the layout goes.
  const recorded = new Set(code.frames?.keys() ?? []);
  const cLabels = new Map<number, Label>();
  const dLabels = new Map<number, Label>();
  /** The checking code's label at block b, made (with its frame) where there is none. */
  const cLabel = (b: number): Label => {
    let l = cLabels.get(b);
    if (l) return l;
    l = blockLabel(cfg, b, recorded);
    const first = code.nodes[cfg.blocks[b]!.firstInsn] as Insn;
    if (l === undefined) {
      l = new Label();
      ed.insertBefore(first, [l]);
    }
    if (!recorded.has(l)) ed.setFrame(l, frameOfBlock(b));
    cLabels.set(b, l);
    return l;
  };
  /** The copy's label at retained block b. */
  const dLabel = (b: number): Label => {
    let l = dLabels.get(b);
    if (l) return l;
    const c = blockLabel(cfg, b, recorded);
    const first = code.nodes[cfg.blocks[b]!.firstInsn] as Insn;
    if (c !== undefined) l = copy.label(c);
    else {
      l = new Label();
      ed.insertBefore(copy.insn(first)!, [l]);
    }
    if (c === undefined || !recorded.has(c)) ed.setFrame(l, frameOfBlock(b));
    dLabels.set(b, l);
    return l;
  };

  // Edges of the copy into blocks that were not copied continue in the checking code.
  for (const b of cfg.blocks) {
    if (!retained[b.index]) continue;
    const last = lastInsn(cfg, b.index);
    const dLast = copy.insn(last)!;
    for (const t of new Set(branchTargets(last))) {
      const v = cfg.blockOfNode[cfg.labelAt.get(t)!]!;
      if (!retained[v] && !isBack(b.index, v)) ed.retarget(dLast, copy.label(t), cLabel(v));
    }
    const next = b.index + 1;
    const fallsThrough = !isUnconditionalTransfer(last.op) && next < n;
    if (fallsThrough && !retained[next] && !isBack(b.index, next)) ed.insertAfter(dLast, [{ op: OP.GOTO, target: cLabel(next) }]);
  }

  for (const e of backEdges) redirect(e);

  // Edges from the top region into the copied code carry the check the top region's entry lost.
  for (const b of cfg.blocks) {
    if (!top[b.index] || !cfg.reachable[b.index]) continue;
    const last = lastInsn(cfg, b.index);
    for (const t of new Set(branchTargets(last))) {
      const v = cfg.blockOfNode[cfg.labelAt.get(t)!]!;
      if (retained[v] && !isBack(b.index, v)) {
        const cont = new Label();
        ed.setFrame(cont, frameOfBlock(v));
        ed.onBranch(last, t, [...checkCode(cf.cp, trigger, dLabel(v), cont), cont], frameOfBlock(v));
      }
    }
    const next = b.index + 1;
    if (!isUnconditionalTransfer(last.op) && next < n && retained[next] && !isBack(b.index, next)) {
      const cont = cLabel(next);
      ed.insertAfter(last, [...checkJump(cf.cp, trigger, dLabel(next), cont)]);
    }
  }

  // The entry check, unless the method starts in the top region.
  if (retained[0]) {
    const dEntry = copyEntry(ed, ctx, copy, probeCode(cf.cp, base, probes.entry, null, spill));
    const framed = leadingFramedLabel(code);
    const cont = framed ?? new Label();
    if (!framed) ed.setFrame(cont, frames.entry());
    ed.prepend([...checkCode(cf.cp, trigger, dEntry.label, cont), ...(framed ? [] : [cont])]);
    // The copy starts with block 0's copy, where the entry's probes lead.
    ed.append(dEntry.prefix);
  }
  ed.append(copy.nodes);
  for (const [b, calls] of probes.blocks) {
    if (retained[b]) ed.insertBefore(copy.insn(code.nodes[cfg.blocks[b]!.firstInsn] as Insn)!, probeCode(cf.cp, base, calls, null, spill));
  }
  for (const [insn, calls] of probes.before) {
    const d = copy.insn(insn);
    if (d) ed.insertBefore(d, probeCode(cf.cp, base, calls, insn, spill));
  }
  for (const tc of copiedTries(ed, copy)) ed.addTryCatch(tc, false);
  for (const [l, f] of copy.frames) ed.setFrame(l, f);
  addCopiedTables(code, copy);
  return ed.finish();

  /** top, bottom, retained; then the JVM's corrections, until nothing changes. */
  function classify(): void {
    const fromProbe = reachFrom(instrumented);
    const toProbe = reachTo(instrumented);
    for (let b = 0; b < n; b++) {
      retained[b] = cfg.reachable[b]! && (instrumented[b]! || (fromProbe[b]! && toProbe[b]!));
      top[b] = cfg.reachable[b]! && !fromProbe[b]!;
    }
    for (let changed = true; changed; ) {
      changed = false;
      for (let u = 0; u < n; u++) {
        for (const v of dagSucc[u]!) {
          // copy → checking code (a bottom block), and top → copy checks: only where control may move.
          const needsMove = (retained[u]! && !retained[v]! && !top[v]!) || (top[u]! && retained[v]!);
          if (!needsMove) continue;
          const viaHandler = cfg.blocks[u]!.handlers.includes(v);
          if (retained[u] && !retained[v]) {
            if (safe(v)) continue;
            retainFrom(v);
          } else if (viaHandler || !safe(v)) {
            // A check cannot sit on an exception edge, nor jump in where control may not move: copy u too.
            retainFrom(u);
          } else continue;
          changed = true;
        }
      }
      for (const e of backEdges) {
        // A backedge of the copy to a block that was not copied continues in the checking code there.
        if (retained[e.from] && !retained[e.to] && !safe(e.to)) {
          retainFrom(e.to);
          changed = true;
        }
      }
    }
  }

  /** Copies `b` and every block after it in the DAG (they are then no longer top or bottom). */
  function retainFrom(b: number): void {
    const work = [b];
    while (work.length > 0) {
      const x = work.pop()!;
      if (retained[x] || !cfg.reachable[x]) continue;
      retained[x] = true;
      top[x] = false;
      work.push(...dagSucc[x]!);
    }
  }

  function reachFrom(seed: boolean[]): boolean[] {
    const seen = [...seed];
    const work = seed.flatMap((s, i) => (s ? [i] : []));
    while (work.length > 0) for (const v of dagSucc[work.pop()!]!) if (!seen[v]) (seen[v] = true), work.push(v);
    return seen;
  }

  function reachTo(seed: boolean[]): boolean[] {
    const preds: number[][] = Array.from({ length: n }, () => []);
    dagSucc.forEach((ss, u) => ss.forEach((v) => preds[v]!.push(u)));
    const seen = [...seed];
    const work = seed.flatMap((s, i) => (s ? [i] : []));
    while (work.length > 0) for (const u of preds[work.pop()!]!) if (!seen[u]) (seen[u] = true), work.push(u);
    return seen;
  }

  /** A backedge: its check (trampoline) when its target was copied; the copy's side goes back to the checking code. */
  function redirect(e: BackEdge): void {
    const last = lastInsn(cfg, e.from);
    const inV = new Set(branchTargets(last).filter((t) => cfg.blockOfNode[cfg.labelAt.get(t)!] === e.to));
    const dLast = retained[e.from] ? copy.insn(last)! : undefined;
    let toC: Label = cLabel(e.to);
    let toD: Label = toC;
    if (retained[e.to]) {
      const trampoline = new Label();
      ed.setFrame(trampoline, frameOfBlock(e.to));
      ed.append([trampoline, ...checkJump(cf.cp, trigger, dLabel(e.to), cLabel(e.to))]);
      toC = toD = trampoline;
    }
    const calls = probes.backedges.get(e);
    if (dLast && calls && calls.length > 0) {
      const stub = new Label();
      ed.setFrame(stub, frameOfBlock(e.to));
      ed.append([stub, ...probeCode(cf.cp, base, calls, null, spill), { op: OP.GOTO, target: toD }]);
      toD = stub;
    }
    if (e.branch) {
      for (const t of inV) {
        if (retained[e.to]) ed.retarget(last, t, toC);
        if (dLast) ed.retarget(dLast, copy.label(t), toD);
      }
    }
    if (e.fallthrough) {
      if (retained[e.to]) ed.insertAfter(last, [{ op: OP.GOTO, target: toC }]);
      if (dLast) ed.insertAfter(dLast, [{ op: OP.GOTO, target: toD }]);
    }
  }

  /**
   * The copy's exception table: each try range cut to the runs of copied code it covers; the
   * handler is the copy's, or the checking code's where the handler was not copied.
   */
  function copiedTries(editor: MethodEditor, c: CodeCopy): TryCatch[] {
    const out: TryCatch[] = [];
    const copied = (i: number) => retained[cfg.blockOfNode[i]!]! && i < code.nodes.length;
    for (const tc of code.tryCatch) {
      const from = cfg.labelAt.get(tc.start)!;
      const to = cfg.labelAt.get(tc.end)!;
      const h = cfg.blockOfNode[cfg.labelAt.get(tc.handler)!]!;
      const handler = retained[h] ? c.label(tc.handler) : cLabel(h);
      for (let i = from; i < to; ) {
        if (!copied(i)) {
          i++;
          continue;
        }
        let j = i;
        while (j < to && copied(j)) j++;
        out.push({ ...tc, start: edgeLabel(editor, c, code.nodes[i]!, 'before'), end: edgeLabel(editor, c, code.nodes[j - 1]!, 'after'), handler });
        i = j;
      }
    }
    return out;
  }
}

/** A label in the copy just before or just after the copy of node i. */
function edgeLabel(ed: MethodEditor, c: CodeCopy, original: Node, where: 'before' | 'after'): Label {
  const node = c.node(original)!;
  if (where === 'before' && isLabel(node)) return node;
  const l = new Label();
  if (where === 'before') ed.insertBefore(node, [l]);
  else ed.insertAfter(node, [l]);
  return l;
}



/** Blocks with a probe (an entry probe is in block 0, a backedge probe in the edge's source). */
function probedBlocks(ctx: LayoutContext): boolean[] {
  const { cfg, code, probes } = ctx;
  const out = new Array<boolean>(cfg.blocks.length).fill(false);
  if (probes.entry.length > 0) out[0] = true;
  const index = new Map<Node, number>();
  code.nodes.forEach((nd, i) => index.set(nd, i));
  for (const insn of probes.before.keys()) out[cfg.blockOfNode[index.get(insn)!]!] = true;
  for (const b of probes.blocks.keys()) out[b] = true;
  for (const e of probes.backedges.keys()) out[e.from] = true;
  return out;
}
