/**
 * Verification-type frames (JVMS 4.10.1) of a method's code, two ways:
 *
 * simulateFrames: the frame before every node, by interpreting instructions forward in a straight
 *   line from the method's entry frame or from the nearest preceding recorded stack map frame.
 *   No merging, so no class hierarchy: exact wherever the recorded frames are exact, which is what
 *   a transform needs to give a frame to a new branch target in code whose control flow is
 *   otherwise unchanged.
 * computeFrames: a full data-flow analysis from the entry frame with merges at join points through
 *   the class hierarchy, for code whose control flow a transform changed.
 *
 * Verification types are VType strings (ir.ts): 'T', 'I', 'F', 'J', 'D', 'N' (null), 'U'
 * (uninitializedThis), field descriptors for references, and the NEW Insn for uninitialized(new).
 * Stacks hold one entry per value; locals hold a long/double at n and 'T' at n+1.
 * jsr pushes a returnAddress, which a VType cannot express; it is modelled as 'T' (jsr only occurs
 * in class files < 50, which carry no frames, so such a value is never encoded).
 */
import { isLabel, type Frame, type Insn, type Label, type MethodCode, type Node, type VType } from '../bytecode/ir.js';
import { branchTargets } from '../bytecode/ir.js';
import { OP, isUnconditionalTransfer } from '../bytecode/opcodes.js';
import { classNameOfVType, expandLocals, initialLocalEntries, isCategory2, vtypeOfClassName } from '../bytecode/vtypes.js';
import { KomoriumError, UnresolvedTypeError } from '../errors.js';
import { InterpretError, describe, execute, type FrameClass } from './interpreter.js';
import { javaName } from '../classfile/names.js';

export { execute, type FrameClass } from './interpreter.js';

/** What frame analysis reads of a method (MemberInfo satisfies it). */
export interface FrameMethod {
  access: number;
  name: string;
  desc: string;
}

/** The hierarchy query a merge needs (ClassHierarchy satisfies it). Throws an error with `missingClass` when a class is absent. */
export interface MergeHierarchy {
  commonSuperclass(a: string, b: string): string;
}

const THROWABLE = 'Ljava/lang/Throwable;';

/** A reference verification type: null, an object or array type (not uninitialized ones). */
export function isReference(v: VType): boolean {
  return typeof v === 'string' && (v === 'N' || v.startsWith('L') || v.startsWith('['));
}

/** The frame at method entry (JVMS 4.10.1.6): this ('U' in <init> except Object's), then the arguments. */
export function entryFrame(cf: FrameClass, method: FrameMethod): Frame {
  return { locals: expandLocals(initialLocalEntries(cf, method)), stack: [] };
}

/** Trailing 'T' locals carry no information; a 'T' that is the second half of a long/double stays. */
export function trimLocals(locals: VType[]): VType[] {
  let n = locals.length;
  while (n > 0 && locals[n - 1] === 'T' && !(n >= 2 && isCategory2(locals[n - 2]!))) n--;
  return n === locals.length ? locals : locals.slice(0, n);
}

function methodName(method: FrameMethod): string {
  return `${method.name}${method.desc}`;
}

/** "offset 12" when the instruction was read at a known offset, else "instruction #k". */
function position(nodes: readonly Node[], i: number): string {
  for (let j = i - 1; j >= 0 && isLabel(nodes[j]!); j--) {
    const l = nodes[j] as Label;
    if (l.origOffset >= 0) return `offset ${l.origOffset}`;
  }
  let k = 0;
  for (let j = 0; j < i; j++) if (!isLabel(nodes[j]!)) k++;
  return `instruction #${k}`;
}

// ---------------------------------------------------------------- straight-line simulation

/**
 * The frame before each node (labels included: the frame at that position), or null where it is
 * not known: after an unconditional transfer (goto, return, athrow, switch, ret, and jsr, whose
 * return point follows a subroutine) until the next label with a recorded frame. At a label with a
 * recorded frame the recorded frame is taken, as the verifier does. Frames at consecutive nodes
 * without an instruction between them are the same object; callers must not modify them.
 */
export function simulateFrames(cf: FrameClass, method: FrameMethod, code: MethodCode): (Frame | null)[] {
  const nodes = code.nodes;
  const out: (Frame | null)[] = new Array(nodes.length);
  const entry = entryFrame(cf, method);
  let locals: VType[] | null = entry.locals;
  let stack: VType[] = entry.stack;
  let snapshot: Frame | null = null;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (isLabel(n)) {
      const recorded = code.frames?.get(n);
      if (recorded !== undefined) {
        locals = recorded.locals.slice();
        stack = recorded.stack.slice();
        snapshot = null;
      }
    }
    if (locals === null) {
      out[i] = null;
      continue;
    }
    snapshot ??= { locals: trimLocals(locals.slice()), stack: stack.slice() };
    out[i] = snapshot;
    if (isLabel(n)) continue;
    try {
      execute(cf, n, locals, stack);
    } catch (e) {
      throw wrapError(e, cf, method, nodes, i, 'frame simulation');
    }
    snapshot = null;
    if (isUnconditionalTransfer(n.op) || n.op === OP.JSR || n.op === OP.JSR_W) locals = null;
  }
  return out;
}

function wrapError(e: unknown, cf: FrameClass, method: FrameMethod, nodes: readonly Node[], i: number, what: string): Error {
  if (e instanceof InterpretError) {
    return new KomoriumError(
      `${javaName(cf.thisClass)}.${methodName(method)}: ${what} failed at ${position(nodes, i)}: ${e.message}`,
    );
  }
  return e as Error;
}

// ---------------------------------------------------------------- full data-flow analysis

export interface ComputedFrames {
  /** A frame for every label that needs one: branch and switch targets, handlers, code after an unconditional transfer. */
  frames: Map<Label, Frame>;
  /** The frame before every reachable instruction (node index), undefined for unreachable ones. */
  before: (Frame | undefined)[];
  /**
   * Node indices of unreachable instructions. Their frame-needing positions get the entry frame's
   * locals and an empty stack; dead code that does not verify from that frame (say, it pops) must be
   * replaced by the caller (ASM's cure: nop … nop athrow, with [java/lang/Throwable] on the stack).
   */
  unreachable: number[];
  /** Node indices of instructions that need a frame but have no label in front of them (only in dead code). */
  unlabeled: number[];
}

/**
 * Frames by data-flow analysis (worklist over instructions) from the entry frame. Merges: locals
 * of equal type stay, two references meet at hierarchy.commonSuperclass (arrays of references
 * element-wise), anything else becomes 'T'; stacks must agree in height and category. A handler's
 * frame is the merge of the locals before every instruction in its try ranges with a stack of its
 * catch type (java/lang/Throwable for "any"). Throws UnresolvedTypeError when a merge needs a class
 * the hierarchy does not have, and KomoriumError for jsr/ret code (class files < 50 need no frames).
 */
export function computeFrames(cf: FrameClass, method: FrameMethod, code: MethodCode, hierarchy: MergeHierarchy): Map<Label, Frame> {
  return computeFramesDetailed(cf, method, code, hierarchy).frames;
}

export function computeFramesDetailed(
  cf: FrameClass,
  method: FrameMethod,
  code: MethodCode,
  hierarchy: MergeHierarchy,
): ComputedFrames {
  const nodes = code.nodes;
  const n = nodes.length;
  const where = `${javaName(cf.thisClass)}.${methodName(method)}`;
  for (const node of nodes) {
    if (!isLabel(node) && (node.op === OP.JSR || node.op === OP.JSR_W || node.op === OP.RET)) {
      throw new KomoriumError(
        `${where}: cannot compute stack map frames for code with jsr/ret subroutines ` +
          `(they only occur in class files before version 50, which need no frames)`,
      );
    }
  }
  // Label → node index of the first instruction at or after it.
  const insnAt = new Int32Array(n + 1).fill(-1);
  for (let i = n - 1; i >= 0; i--) insnAt[i] = isLabel(nodes[i]!) ? insnAt[i + 1]! : i;
  const labelPos = new Map<Label, number>();
  nodes.forEach((node, i) => {
    if (isLabel(node)) labelPos.set(node, i);
  });
  const target = (l: Label): number => {
    const p = labelPos.get(l);
    if (p === undefined) throw new KomoriumError(`${where}: a branch refers to a label that is not in the code`);
    const t = insnAt[p]!;
    if (t < 0) throw new KomoriumError(`${where}: a branch target is past the last instruction`);
    return t;
  };
  const nextInsn = (i: number) => insnAt[i + 1]!;

  // Handlers covering each instruction: [handler instruction, catch type].
  const handlersOf: [number, VType][][] = Array.from({ length: n }, () => []);
  for (const tc of code.tryCatch) {
    const from = labelPos.get(tc.start);
    const to = labelPos.get(tc.end);
    if (from === undefined || to === undefined) throw new KomoriumError(`${where}: a try range refers to a label that is not in the code`);
    const h = target(tc.handler);
    const type = tc.catchType === null ? THROWABLE : vtypeOfClassName(tc.catchType);
    for (let i = from; i < to; i++) if (!isLabel(nodes[i]!)) handlersOf[i]!.push([h, type]);
  }

  const mergeRef = (a: string, b: string, at: number): string => {
    if (a === 'N') return b;
    if (b === 'N') return a;
    try {
      return vtypeOfClassName(hierarchy.commonSuperclass(classNameOfVType(a), classNameOfVType(b))) as string;
    } catch (e) {
      const missing = (e as { missingClass?: unknown }).missingClass;
      if (typeof missing === 'string') {
        throw new UnresolvedTypeError(
          cf.thisClass,
          methodName(method),
          missing,
          `merging frames at ${position(nodes, at)} (${javaName(a)} and ${javaName(b)})`,
        );
      }
      throw e;
    }
  };
  const mergeType = (a: VType, b: VType, onStack: boolean, at: number): VType => {
    if (a === b) return a;
    if (isReference(a) && isReference(b)) return mergeRef(a as string, b as string, at);
    if (onStack) {
      throw new KomoriumError(`${where}: incompatible stack values ${describe(a)} and ${describe(b)} meet at ${position(nodes, at)}`);
    }
    return 'T';
  };
  // Merges `incoming` into the state before instruction j; returns the new state, or null when unchanged.
  const merge = (old: Frame, incoming: Frame, j: number): Frame | null => {
    if (old.stack.length !== incoming.stack.length) {
      throw new KomoriumError(`${where}: stack heights ${old.stack.length} and ${incoming.stack.length} meet at ${position(nodes, j)}`);
    }
    let locals: VType[] | null = null;
    const len = Math.max(old.locals.length, incoming.locals.length);
    for (let k = 0; k < len; k++) {
      const a = old.locals[k] ?? 'T';
      const m = a === 'T' ? 'T' : mergeType(a, incoming.locals[k] ?? 'T', false, j);
      if (m !== a) {
        locals ??= old.locals.slice();
        locals[k] = m;
      }
    }
    let stack: VType[] | null = null;
    for (let k = 0; k < old.stack.length; k++) {
      const a = old.stack[k]!;
      const m = mergeType(a, incoming.stack[k]!, true, j);
      if (m !== a) {
        stack ??= old.stack.slice();
        stack[k] = m;
      }
    }
    if (locals === null && stack === null) return null;
    return { locals: locals ?? old.locals, stack: stack ?? old.stack };
  };

  const before: (Frame | undefined)[] = new Array(n);
  const queued = new Uint8Array(n);
  const work: number[] = [];
  const flow = (j: number, incoming: Frame) => {
    const old = before[j];
    const next = old === undefined ? { locals: incoming.locals.slice(), stack: incoming.stack.slice() } : merge(old, incoming, j);
    if (next === null) return;
    before[j] = next;
    if (!queued[j]) {
      queued[j] = 1;
      work.push(j);
    }
  };
  const entry = entryFrame(cf, method);
  const first = insnAt[0]!;
  if (first >= 0) flow(first, entry);
  while (work.length > 0) {
    const i = work.pop()!;
    queued[i] = 0;
    const insn = nodes[i] as Insn;
    const state = before[i]!;
    for (const [h, type] of handlersOf[i]!) flow(h, { locals: state.locals, stack: [type] });
    const locals = state.locals.slice();
    const stack = state.stack.slice();
    try {
      execute(cf, insn, locals, stack);
    } catch (e) {
      throw wrapError(e, cf, method, nodes, i, 'frame computation');
    }
    const after: Frame = { locals, stack };
    // HotSpot checks handlers against the frame after an instruction too; only <init> changes locals without a store.
    if (insn.op === OP.INVOKESPECIAL && handlersOf[i]!.length > 0) {
      for (const [h, type] of handlersOf[i]!) flow(h, { locals, stack: [type] });
    }
    for (const t of branchTargets(insn)) flow(target(t), after);
    if (!isUnconditionalTransfer(insn.op)) {
      const j = nextInsn(i);
      if (j < 0) throw new KomoriumError(`${where}: execution falls off the end of the code`);
      flow(j, after);
    }
  }

  // Positions that need a frame: targets, handlers, and instructions after an unconditional transfer.
  const needs = new Set<number>();
  const referenced = new Set<Label>();
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    if (isLabel(node)) continue;
    for (const t of branchTargets(node)) {
      needs.add(target(t));
      referenced.add(t);
    }
    if (isUnconditionalTransfer(node.op)) {
      const j = nextInsn(i);
      if (j >= 0) needs.add(j);
    }
  }
  for (const tc of code.tryCatch) {
    needs.add(target(tc.handler));
    referenced.add(tc.handler);
  }

  const frames = new Map<Label, Frame>();
  const unreachable: number[] = [];
  const unlabeled: number[] = [];
  for (let i = 0; i < n; i++) if (!isLabel(nodes[i]!) && before[i] === undefined) unreachable.push(i);
  const deadFrame: Frame = { locals: trimLocals(entry.locals), stack: [] };
  for (const i of [...needs].sort((a, b) => a - b)) {
    // One frame per position, on the label a recorded frame used, else a label that is referenced, else the first one.
    const run: Label[] = [];
    for (let j = i - 1; j >= 0 && isLabel(nodes[j]!); j--) run.unshift(nodes[j] as Label);
    if (run.length === 0) {
      unlabeled.push(i);
      continue;
    }
    const label = run.find((l) => code.frames?.has(l)) ?? run.find((l) => referenced.has(l)) ?? run[0]!;
    const f = before[i];
    frames.set(label, f === undefined ? { locals: deadFrame.locals.slice(), stack: [] } : { locals: trimLocals(f.locals.slice()), stack: f.stack.slice() });
  }
  return { frames, before, unreachable, unlabeled };
}

/**
 * The frames the encoder asks for when it widens a far conditional branch (code-writer.ts
 * frameAt): the frame after the branch, by straight-line simulation of `code` from its recorded
 * frames. `code` is the code being encoded, so it must carry frames at its own branch targets.
 */
export function encoderFrames(cf: FrameClass, method: FrameMethod, code: MethodCode): (label: Label, branch: Insn, nodeIndex: number) => Frame {
  let simulated: (Frame | null)[] | null = null;
  return (_label, branch, nodeIndex) => {
    simulated ??= simulateFrames(cf, method, code);
    const before = simulated[nodeIndex];
    if (!before) throw new KomoriumError(`${javaName(cf.thisClass)}.${methodName(method)}: no frame is known before a branch that needs widening`);
    const frame = { locals: before.locals.slice(), stack: before.stack.slice() };
    execute(cf, branch, frame.locals, frame.stack);
    return frame;
  };
}
