/**
 * The shared way to change a method's code: insert instructions before or after a node, run code
 * on one control-flow edge, redirect a jump, add locals, give new branch targets their frames.
 * Edits are recorded against node objects and applied at once by `finish`, so a pass never
 * computes a position or an offset, and passes that edit the same method do not see each
 * other's insertions (ASM's rule: only the encoder resolves offsets).
 */
import { Label, isLabel, type Frame, type Insn, type MethodCode, type Node, type TryCatch } from '../bytecode/ir.js';
import { OP } from '../bytecode/opcodes.js';

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
