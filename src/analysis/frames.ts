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
import { OP } from '../bytecode/opcodes.js';
import { parseMethodDescriptor } from '../classfile/descriptor.js';
import { CONSTANT } from '../classfile/model.js';
import { KomoriumError, UnresolvedTypeError } from '../errors.js';
import { branchTargets, isUnconditionalTransfer } from './blocks.js';

/** What frame analysis reads of a class (ClassFile satisfies it). */
export interface FrameClass {
  thisClass: string;
  cp: {
    tag(i: number): number;
    className(i: number): string;
    memberRef(i: number): { name: string; desc: string };
    dynamic(i: number): { desc: string };
  };
}

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

const ACC_STATIC = 0x0008;
const THROWABLE = 'Ljava/lang/Throwable;';

/** An instruction that cannot be interpreted in the given state (invalid code or wrong frames). */
class InterpretError extends Error {}

// ---------------------------------------------------------------- types

export function isCategory2(v: VType): boolean {
  return v === 'J' || v === 'D';
}

/** A reference verification type: null, an object or array type (not uninitialized ones). */
export function isReference(v: VType): boolean {
  return typeof v === 'string' && (v === 'N' || v.startsWith('L') || v.startsWith('['));
}

/** Field descriptor → verification type (boolean, byte, char, short are int). */
export function vtypeOfDescriptor(desc: string): VType {
  switch (desc[0]) {
    case 'Z': case 'B': case 'C': case 'S': case 'I': return 'I';
    case 'F': return 'F';
    case 'J': return 'J';
    case 'D': return 'D';
    case 'L': case '[': return desc;
    default: throw new InterpretError(`bad field descriptor '${desc}'`);
  }
}

/** A CONSTANT_Class name (internal name, or descriptor for arrays) → verification type. */
export function vtypeOfClassName(name: string): VType {
  return name.startsWith('[') ? name : `L${name};`;
}

function internalName(objectType: string): string {
  return objectType.startsWith('L') ? objectType.substring(1, objectType.length - 1) : objectType;
}

const descCache = new Map<string, { args: VType[]; ret: VType | null }>();
function methodTypes(desc: string): { args: VType[]; ret: VType | null } {
  let t = descCache.get(desc);
  if (t === undefined) {
    const d = parseMethodDescriptor(desc);
    t = { args: d.args.map(vtypeOfDescriptor), ret: d.ret === 'V' ? null : vtypeOfDescriptor(d.ret) };
    descCache.set(desc, t);
  }
  return t;
}

/** The frame at method entry (JVMS 4.10.1.6): this ('U' in <init> except Object's), then the arguments. */
export function entryFrame(cf: FrameClass, method: FrameMethod): Frame {
  const locals: VType[] = [];
  if ((method.access & ACC_STATIC) === 0) {
    locals.push(method.name === '<init>' && cf.thisClass !== 'java/lang/Object' ? 'U' : `L${cf.thisClass};`);
  }
  for (const a of methodTypes(method.desc).args) {
    locals.push(a);
    if (isCategory2(a)) locals.push('T');
  }
  return { locals, stack: [] };
}

// ---------------------------------------------------------------- interpreter

const NEWARRAY_TYPES: Record<number, string> = { 4: '[Z', 5: '[C', 6: '[F', 7: '[D', 8: '[B', 9: '[S', 10: '[I', 11: '[J' };

/** Stack effect of the arithmetic and conversion opcodes: [values popped, type pushed]. */
const SIMPLE: Record<number, [number, VType | null]> = {};
{
  const set = (ops: number[], pops: number, push: VType | null) => ops.forEach((o) => (SIMPLE[o] = [pops, push]));
  set([OP.IADD, OP.ISUB, OP.IMUL, OP.IDIV, OP.IREM, OP.ISHL, OP.ISHR, OP.IUSHR, OP.IAND, OP.IOR, OP.IXOR], 2, 'I');
  set([OP.LADD, OP.LSUB, OP.LMUL, OP.LDIV, OP.LREM, OP.LAND, OP.LOR, OP.LXOR, OP.LSHL, OP.LSHR, OP.LUSHR], 2, 'J');
  set([OP.FADD, OP.FSUB, OP.FMUL, OP.FDIV, OP.FREM], 2, 'F');
  set([OP.DADD, OP.DSUB, OP.DMUL, OP.DDIV, OP.DREM], 2, 'D');
  set([OP.INEG, OP.L2I, OP.F2I, OP.D2I, OP.I2B, OP.I2C, OP.I2S, OP.ARRAYLENGTH, OP.INSTANCEOF], 1, 'I');
  set([OP.LNEG, OP.I2L, OP.F2L, OP.D2L], 1, 'J');
  set([OP.FNEG, OP.I2F, OP.L2F, OP.D2F], 1, 'F');
  set([OP.DNEG, OP.I2D, OP.L2D, OP.F2D], 1, 'D');
  set([OP.LCMP, OP.FCMPL, OP.FCMPG, OP.DCMPL, OP.DCMPG], 2, 'I');
  set([OP.IALOAD, OP.BALOAD, OP.CALOAD, OP.SALOAD], 2, 'I');
  set([OP.LALOAD], 2, 'J');
  set([OP.FALOAD], 2, 'F');
  set([OP.DALOAD], 2, 'D');
  set([OP.IASTORE, OP.LASTORE, OP.FASTORE, OP.DASTORE, OP.AASTORE, OP.BASTORE, OP.CASTORE, OP.SASTORE], 3, null);
  set([OP.IFEQ, OP.IFNE, OP.IFLT, OP.IFGE, OP.IFGT, OP.IFLE, OP.IFNULL, OP.IFNONNULL], 1, null);
  set([OP.IF_ICMPEQ, OP.IF_ICMPNE, OP.IF_ICMPLT, OP.IF_ICMPGE, OP.IF_ICMPGT, OP.IF_ICMPLE, OP.IF_ACMPEQ, OP.IF_ACMPNE], 2, null);
  set([OP.TABLESWITCH, OP.LOOKUPSWITCH, OP.MONITORENTER, OP.MONITOREXIT, OP.ATHROW], 1, null);
  set([OP.IRETURN, OP.LRETURN, OP.FRETURN, OP.DRETURN, OP.ARETURN], 1, null);
  set([OP.NOP, OP.GOTO, OP.RETURN, OP.IINC, OP.RET], 0, null);
  set([OP.ACONST_NULL], 0, 'N');
  set([OP.ICONST_M1, OP.ICONST_0, OP.ICONST_1, OP.ICONST_2, OP.ICONST_3, OP.ICONST_4, OP.ICONST_5, OP.BIPUSH, OP.SIPUSH], 0, 'I');
  set([OP.LCONST_0, OP.LCONST_1], 0, 'J');
  set([OP.FCONST_0, OP.FCONST_1, OP.FCONST_2], 0, 'F');
  set([OP.DCONST_0, OP.DCONST_1], 0, 'D');
  set([OP.JSR], 0, 'T');
}

/** The short local forms (iload_0 …) as [base op, var]; the reader canonicalizes them, a hand-built IR may not. */
function canonicalVar(insn: Insn): [number, number | undefined] {
  const op = insn.op;
  if (op >= OP.ILOAD_0 && op <= OP.ALOAD_3) return [OP.ILOAD + ((op - OP.ILOAD_0) >> 2), (op - OP.ILOAD_0) & 3];
  if (op >= OP.ISTORE_0 && op <= OP.ASTORE_3) return [OP.ISTORE + ((op - OP.ISTORE_0) >> 2), (op - OP.ISTORE_0) & 3];
  if (op === OP.GOTO_W) return [OP.GOTO, undefined];
  if (op === OP.JSR_W) return [OP.JSR, undefined];
  if (op === OP.LDC_W) return [OP.LDC, undefined];
  return [op, insn.var];
}

/**
 * Executes one instruction on (locals, stack), in place. Assumes verifiable code: it checks only
 * what it must to keep its own state consistent (stack depth, category-2 alignment).
 */
export function execute(cf: FrameClass, insn: Insn, locals: VType[], stack: VType[]): void {
  const pop = (): VType => {
    if (stack.length === 0) throw new InterpretError('operand stack underflow');
    return stack.pop()!;
  };
  // Pops `words` stack words (a long/double is 2) as whole values, bottom first.
  const popWords = (words: number): VType[] => {
    const vals: VType[] = [];
    let w = 0;
    while (w < words) {
      const v = pop();
      w += isCategory2(v) ? 2 : 1;
      vals.unshift(v);
    }
    if (w !== words) throw new InterpretError('category-2 value split by a stack manipulation');
    return vals;
  };
  const [op, v] = canonicalVar(insn);
  const simple = SIMPLE[op];
  if (simple !== undefined) {
    for (let k = 0; k < simple[0]; k++) pop();
    if (simple[1] !== null) stack.push(simple[1]);
    return;
  }
  switch (op) {
    case OP.LDC:
    case OP.LDC2_W: {
      const i = insn.cp!;
      switch (cf.cp.tag(i)) {
        case CONSTANT.Integer: stack.push('I'); break;
        case CONSTANT.Float: stack.push('F'); break;
        case CONSTANT.Long: stack.push('J'); break;
        case CONSTANT.Double: stack.push('D'); break;
        case CONSTANT.String: stack.push('Ljava/lang/String;'); break;
        case CONSTANT.Class: stack.push('Ljava/lang/Class;'); break;
        case CONSTANT.MethodType: stack.push('Ljava/lang/invoke/MethodType;'); break;
        case CONSTANT.MethodHandle: stack.push('Ljava/lang/invoke/MethodHandle;'); break;
        case CONSTANT.Dynamic: stack.push(vtypeOfDescriptor(cf.cp.dynamic(i).desc)); break;
        default: throw new InterpretError(`ldc of constant pool entry ${i} with tag ${cf.cp.tag(i)}`);
      }
      return;
    }
    case OP.ILOAD: stack.push('I'); return;
    case OP.LLOAD: stack.push('J'); return;
    case OP.FLOAD: stack.push('F'); return;
    case OP.DLOAD: stack.push('D'); return;
    case OP.ALOAD: {
      const t = locals[v!];
      if (t === undefined) throw new InterpretError(`aload ${v} of an undefined local`);
      stack.push(t);
      return;
    }
    case OP.ISTORE: case OP.LSTORE: case OP.FSTORE: case OP.DSTORE: case OP.ASTORE:
      setLocal(locals, v!, pop());
      return;
    case OP.AALOAD: {
      pop();
      const arr = pop();
      if (arr === 'N') stack.push('N');
      else if (typeof arr === 'string' && arr.startsWith('[')) stack.push(vtypeOfDescriptor(arr.substring(1)));
      else throw new InterpretError(`aaload on ${describe(arr)}`);
      return;
    }
    case OP.POP: popWords(1); return;
    case OP.POP2: popWords(2); return;
    case OP.DUP: { const a = popWords(1); stack.push(...a, ...a); return; }
    case OP.DUP_X1: { const a = popWords(1); const b = popWords(1); stack.push(...a, ...b, ...a); return; }
    case OP.DUP_X2: { const a = popWords(1); const b = popWords(2); stack.push(...a, ...b, ...a); return; }
    case OP.DUP2: { const a = popWords(2); stack.push(...a, ...a); return; }
    case OP.DUP2_X1: { const a = popWords(2); const b = popWords(1); stack.push(...a, ...b, ...a); return; }
    case OP.DUP2_X2: { const a = popWords(2); const b = popWords(2); stack.push(...a, ...b, ...a); return; }
    case OP.SWAP: { const a = popWords(1); const b = popWords(1); stack.push(...a, ...b); return; }
    case OP.GETSTATIC: stack.push(vtypeOfDescriptor(cf.cp.memberRef(insn.cp!).desc)); return;
    case OP.PUTSTATIC: pop(); return;
    case OP.GETFIELD: pop(); stack.push(vtypeOfDescriptor(cf.cp.memberRef(insn.cp!).desc)); return;
    case OP.PUTFIELD: pop(); pop(); return;
    case OP.INVOKEVIRTUAL: case OP.INVOKESPECIAL: case OP.INVOKESTATIC: case OP.INVOKEINTERFACE: case OP.INVOKEDYNAMIC: {
      const ref = op === OP.INVOKEDYNAMIC ? { name: '', desc: cf.cp.dynamic(insn.cp!).desc } : cf.cp.memberRef(insn.cp!);
      const t = methodTypes(ref.desc);
      for (let k = 0; k < t.args.length; k++) pop();
      if (op !== OP.INVOKESTATIC && op !== OP.INVOKEDYNAMIC) {
        const receiver = pop();
        if (op === OP.INVOKESPECIAL && ref.name === '<init>') {
          // The object is initialized now: every copy of the uninitialized value becomes the class type.
          let init: VType;
          if (receiver === 'U') init = `L${cf.thisClass};`;
          else if (typeof receiver !== 'string') init = vtypeOfClassName(cf.cp.className(receiver.cp!));
          else throw new InterpretError(`<init> called on ${describe(receiver)}`);
          for (let k = 0; k < locals.length; k++) if (locals[k] === receiver) locals[k] = init;
          for (let k = 0; k < stack.length; k++) if (stack[k] === receiver) stack[k] = init;
        }
      }
      if (t.ret !== null) stack.push(t.ret);
      return;
    }
    case OP.NEW: stack.push(insn); return;
    case OP.NEWARRAY: {
      pop();
      const t = NEWARRAY_TYPES[insn.n!];
      if (t === undefined) throw new InterpretError(`newarray with type code ${insn.n}`);
      stack.push(t);
      return;
    }
    case OP.ANEWARRAY: pop(); stack.push('[' + vtypeOfClassName(cf.cp.className(insn.cp!))); return;
    case OP.CHECKCAST: pop(); stack.push(vtypeOfClassName(cf.cp.className(insn.cp!))); return;
    case OP.MULTIANEWARRAY:
      for (let k = 0; k < insn.n!; k++) pop();
      stack.push(cf.cp.className(insn.cp!));
      return;
    default:
      throw new InterpretError(`unsupported opcode ${op}`);
  }
}

/** Stores into local n, invalidating a long/double whose half it overwrites (JVMS 4.10.1.7). */
function setLocal(locals: VType[], n: number, v: VType): void {
  const top = isCategory2(v) ? n + 1 : n;
  while (locals.length <= top) locals.push('T');
  if (n > 0 && isCategory2(locals[n - 1]!)) locals[n - 1] = 'T';
  locals[n] = v;
  if (top > n) locals[top] = 'T';
}

function describe(v: VType): string {
  if (typeof v !== 'string') return 'an uninitialized object';
  return { T: 'top', I: 'int', F: 'float', J: 'long', D: 'double', N: 'null', U: 'uninitializedThis' }[v] ?? v;
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
      `${cf.thisClass.replace(/\//g, '.')}.${methodName(method)}: ${what} failed at ${position(nodes, i)}: ${e.message}`,
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
  const where = `${cf.thisClass.replace(/\//g, '.')}.${methodName(method)}`;
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
      return vtypeOfClassName(hierarchy.commonSuperclass(internalName(a), internalName(b))) as string;
    } catch (e) {
      const missing = (e as { missingClass?: unknown }).missingClass;
      if (typeof missing === 'string') {
        throw new UnresolvedTypeError(
          cf.thisClass,
          methodName(method),
          missing,
          `merging frames at ${position(nodes, at)} (${a.replace(/\//g, '.')} and ${b.replace(/\//g, '.')})`,
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
