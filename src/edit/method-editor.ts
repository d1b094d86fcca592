/**
 * The shared way to change a method's code: insert instructions before or after a node, run code
 * on one control-flow edge, redirect a jump, add locals, give new branch targets their frames.
 * Edits are recorded against node objects and applied at once by `finish`, so a pass never
 * computes a position or an offset, and passes that edit the same method do not see each
 * other's insertions (ASM's rule: only the encoder resolves offsets).
 */
import { Label, isLabel, type Frame, type Insn, type MethodCode, type Node, type TryCatch, type VType } from '../bytecode/ir.js';
import { OP, isVarInsn, isWideVar } from '../bytecode/opcodes.js';

export class MethodEditor {
  private readonly before = new Map<Node, Node[]>();
  private readonly after = new Map<Node, Node[]>();
  private readonly head: Node[] = [];
  private readonly tail: Node[] = [];
  private readonly extraTries: { tc: TryCatch; first: boolean }[] = [];
  private nextLocal: number;
  private finished = false;

  constructor(readonly code: MethodCode) {
    this.nextLocal = code.maxLocals;
  }

  /** Code that runs just before `node` (after what earlier calls inserted there). */
  insertBefore(node: Node, nodes: readonly Node[]): void {
    push(this.before, node, nodes);
  }

  /** Code that runs just after `node` (after what earlier calls inserted there). */
  insertAfter(node: Node, nodes: readonly Node[]): void {
    push(this.after, node, nodes);
  }

  /** Code before everything, the method's entry (in front of a label at offset 0, so a loop back to it skips this). */
  prepend(nodes: readonly Node[]): void {
    this.head.push(...nodes);
  }

  /** Code after everything: stubs and copies reached only by jumps. */
  append(nodes: readonly Node[]): void {
    this.tail.push(...nodes);
  }

  /** Makes `insn` jump to `to` wherever it jumped to `from` (branch target, switch case or default). */
  retarget(insn: Insn, from: Label, to: Label): void {
    if (insn.target === from) insn.target = to;
    if (insn.dflt === from) insn.dflt = to;
    if (insn.targets) insn.targets = insn.targets.map((t) => (t === from ? to : t));
  }

  /**
   * Code that runs when `insn` jumps to `target`, and only then: the jump goes to a stub at the end
   * of the method that runs `nodes` and continues at `target`. `frame` is the frame at `target`
   * (null in code without stack map frames).
   */
  onBranch(insn: Insn, target: Label, nodes: readonly Node[], frame: Frame | null): Label {
    const stub = new Label();
    this.setFrame(stub, frame);
    this.append([stub, ...nodes, { op: OP.GOTO, target }]);
    this.retarget(insn, target, stub);
    return stub;
  }

  /** A local of `size` slots (2 for long and double) above every other; frames need not know it while it is only live in straight-line code. */
  newLocal(size: 1 | 2): number {
    const slot = this.nextLocal;
    this.nextLocal += size;
    return slot;
  }

  /** Several locals that stay free for reuse by the caller: the first slot of `size` consecutive ones. */
  reserveLocals(size: number): number {
    const slot = this.nextLocal;
    this.nextLocal += size;
    return slot;
  }

  /** insertLocals (below) on this editor's code, counting the new slots as taken. */
  insertLocals(at: number, types: readonly VType[]): boolean {
    if (!insertLocals(this.code, at, types)) return false;
    this.nextLocal += types.length;
    return true;
  }

  /** The stack map frame at `label` (a new branch target); null leaves it to the class file's version (no frames before 50). */
  setFrame(label: Label, frame: Frame | null): void {
    if (frame === null) return;
    this.code.frames ??= new Map();
    this.code.frames.set(label, frame);
  }

  /** An exception handler: first in the table (it wins over the method's own) or last. */
  addTryCatch(tc: TryCatch, first: boolean): void {
    this.extraTries.push({ tc, first });
  }

  /** Applies every edit and returns the code, with max_locals covering the new locals. */
  finish(): MethodCode {
    if (this.finished) throw new Error('MethodEditor.finish called twice');
    this.finished = true;
    const out: Node[] = [];
    const emit = (n: Node) => {
      const b = this.before.get(n);
      if (b) out.push(...b);
      out.push(n);
      const a = this.after.get(n);
      if (a) out.push(...a);
    };
    for (const n of this.head) emit(n);
    for (const n of this.code.nodes) emit(n);
    for (const n of this.tail) emit(n);
    this.code.nodes = out;
    const firsts = this.extraTries.filter((t) => t.first).map((t) => t.tc);
    const lasts = this.extraTries.filter((t) => !t.first).map((t) => t.tc);
    this.code.tryCatch = [...firsts, ...this.code.tryCatch, ...lasts];
    this.code.maxLocals = Math.max(this.code.maxLocals, this.nextLocal);
    return this.code;
  }
}

/**
 * Makes room for new locals at slot `at` (typed `types`, one entry per slot, 'T' for the second
 * slot of a long or double): every local from `at` on moves up, in the instructions, the stack
 * map frames, the local variable tables and the type annotations. Applied at once. Returns false,
 * changing nothing, when a long or double lives in slot `at - 1` and `at` (kotlinc's $default
 * methods reuse a one-slot argument so), which no renumbering can split (shiftLocals moves it).
 */
export function insertLocals(code: MethodCode, at: number, types: readonly VType[]): boolean {
  if (straddles(code, at)) return false;
  shiftLocals(code, at, types, null);
  return true;
}

function straddles(code: MethodCode, at: number): boolean {
  return code.nodes.some((x) => !isLabel(x) && x.var === at - 1 && isWideVar(x.op));
}

/**
 * insertLocals that also handles a long or double straddling slot `at - 1` and `at`: it moves to
 * two slots of its own past every other local, in the instructions, the frames and the local
 * variable tables (`cp` tells their long and double entries). Returns that slot, or -1.
 */
export function shiftLocals(code: MethodCode, at: number, types: readonly VType[], cp: { utf8(i: number): string } | null): number {
  const n = types.length;
  const straddle = cp !== null && straddles(code, at) ? code.maxLocals + n : -1;
  for (const x of code.nodes) {
    if (isLabel(x)) continue;
    if (isVarInsn(x.op) && x.var! >= at) x.var! += n;
    else if (straddle >= 0 && x.var === at - 1 && isWideVar(x.op)) x.var = straddle;
  }
  if (code.frames) for (const [l, f] of code.frames) code.frames.set(l, shiftFrame(f, at, types, straddle));
  for (const slot of code.attributes) {
    if (slot.kind === 'LocalVariableTable' || slot.kind === 'LocalVariableTypeTable') {
      for (const e of slot.entries) {
        if (e.index >= at) e.index += n;
        else if (straddle >= 0 && e.index === at - 1 && /^[JD]$/.test(cp!.utf8(e.descIndex))) e.index = straddle;
      }
    } else if (slot.kind === 'RuntimeVisibleTypeAnnotations' || slot.kind === 'RuntimeInvisibleTypeAnnotations') {
      for (const a of slot.annotations) for (const r of a.ranges ?? []) if (r.index >= at) r.index += n;
    }
  }
  code.maxLocals += n + (straddle >= 0 ? 2 : 0);
  return straddle;
}

/**
 * A frame with `types` inserted at slot `at`, as shiftLocals renumbers the code: the locals from
 * `at` on move up, and a long or double straddling `at - 1` and `at` moves to slot `straddle`.
 */
export function shiftFrame(f: Frame, at: number, types: readonly VType[], straddle: number): Frame {
  const before = f.locals.slice(0, at);
  const after = f.locals.slice(at);
  const last = before[at - 1];
  const wide = before.length === at && (last === 'J' || last === 'D') ? last : null;
  if (wide) {
    if (straddle < 0) throw new Error(`frame with ${wide} in slot ${at - 1}, but no instruction puts it there`);
    before[at - 1] = 'T';
    if (after.length > 0) after[0] = 'T';
  }
  while (before.length < at) before.push('T');
  const locals = [...before, ...types, ...after];
  if (wide) {
    while (locals.length < straddle) locals.push('T');
    locals.push(wide, 'T');
  }
  return { locals, stack: f.stack.slice() };
}

function push(map: Map<Node, Node[]>, key: Node, nodes: readonly Node[]): void {
  const list = map.get(key);
  if (list) list.push(...nodes);
  else map.set(key, [...nodes]);
}

/** The first instruction at or after node index `i`, with the labels in front of it. */
export function insnAtOrAfter(code: MethodCode, i: number): Insn | undefined {
  for (let j = i; j < code.nodes.length; j++) {
    const n = code.nodes[j]!;
    if (!isLabel(n)) return n;
  }
  return undefined;
}
