/**
 * A second copy of (part of) a method's code, for transforms that duplicate code (seed 000): new
 * labels and instructions with every reference between them mapped, and the tables that refer to
 * positions (exception ranges, stack map frames, line numbers, local variables) copied for the
 * new positions. A jump to a label outside the copied part keeps its original target, which is
 * how the copy leaves for the original code.
 */
import { Label, isLabel, type Frame, type Insn, type LineNumber, type LocalVar, type MethodCode, type Node, type TryCatch, type VType } from './ir.js';

export interface CodeCopy {
  nodes: Node[];
  /** The copy of `l`, or `l` itself when it lies outside the copied part. */
  label(l: Label): Label;
  /** The copy of an instruction in the copied part. */
  insn(i: Insn): Insn | undefined;
  /** The copy of a node (label or instruction) in the copied part. */
  node(n: Node): Node | undefined;
  /** Frames of the copied labels, uninitialized(new) types naming the copied `new`s. */
  frames: Map<Label, Frame>;
  /** Line numbers of the copied labels. */
  lines: LineNumber[];
  /** LocalVariableTable / LocalVariableTypeTable entries whose whole range was copied. */
  localVars: Map<'LocalVariableTable' | 'LocalVariableTypeTable', LocalVar[]>;
}

/** Copies the nodes whose index `include` accepts (all when omitted). */
export function copyCode(code: MethodCode, include: (i: number) => boolean = () => true): CodeCopy {
  const labels = new Map<Label, Label>();
  const insns = new Map<Insn, Insn>();
  const nodes: Node[] = [];
  code.nodes.forEach((n, i) => {
    if (!include(i)) return;
    if (isLabel(n)) {
      const l = new Label();
      labels.set(n, l);
      nodes.push(l);
    } else {
      const c: Insn = { ...n };
      insns.set(n, c);
      nodes.push(c);
    }
  });
  const label = (l: Label) => labels.get(l) ?? l;
  for (const c of insns.values()) {
    if (c.target) c.target = label(c.target);
    if (c.dflt) c.dflt = label(c.dflt);
    if (c.targets) c.targets = c.targets.map(label);
  }
  const vtype = (v: VType): VType => (typeof v === 'string' ? v : (insns.get(v) ?? v));
  const frames = new Map<Label, Frame>();
  for (const [l, f] of code.frames ?? []) {
    const c = labels.get(l);
    if (c) frames.set(c, { locals: f.locals.map(vtype), stack: f.stack.map(vtype) });
  }
  const lines: LineNumber[] = [];
  const localVars = new Map<'LocalVariableTable' | 'LocalVariableTypeTable', LocalVar[]>();
  for (const slot of code.attributes) {
    if (slot.kind === 'LineNumberTable') {
      for (const e of slot.entries) if (labels.has(e.start)) lines.push({ start: labels.get(e.start)!, line: e.line });
    } else if (slot.kind === 'LocalVariableTable' || slot.kind === 'LocalVariableTypeTable') {
      const copied = slot.entries
        .filter((e) => labels.has(e.start) && labels.has(e.end))
        .map((e) => ({ ...e, start: labels.get(e.start)!, end: labels.get(e.end)! }));
      localVars.set(slot.kind, copied);
    }
  }
  return {
    nodes,
    label,
    insn: (i) => insns.get(i),
    node: (n) => (isLabel(n) ? labels.get(n) : insns.get(n)),
    frames,
    lines,
    localVars,
  };
}

/** Copies of the exception table entries whose range was copied, with `handler` choosing each copy's handler. */
export function copyTryCatch(code: MethodCode, copy: CodeCopy, handler: (tc: TryCatch) => Label): TryCatch[] {
  const out: TryCatch[] = [];
  for (const tc of code.tryCatch) {
    const start = copy.label(tc.start);
    const end = copy.label(tc.end);
    if (start === tc.start || end === tc.end) continue;
    out.push({ ...tc, start, end, handler: handler(tc) });
  }
  return out;
}

/** Adds a copy's line numbers and local variable entries to the code's tables. */
export function addCopiedTables(code: MethodCode, copy: CodeCopy): void {
  for (const slot of code.attributes) {
    if (slot.kind === 'LineNumberTable') slot.entries.push(...copy.lines);
    else if (slot.kind === 'LocalVariableTable' || slot.kind === 'LocalVariableTypeTable') {
      slot.entries.push(...(copy.localVars.get(slot.kind) ?? []));
    }
  }
}
