/**
 * Komorium's inserted code as fragments for the table writer (docs/non-object-ir.md, step 3): the
 * same instructions, in the same order, as entry.ts, counter.ts and calls.ts make on the object IR
 * for an extended method with the field counter, so that both pipelines give the same bytes and
 * constant pool (test/table-body.test.ts). Each function names its object twin; the protocol is in
 * docs/runtime-contract.md.
 */
import type { Fragment } from '../../../bytecode/fragment.js';
import { ENTRY, type Insertion } from '../../../bytecode/table-writer.js';
import { ITEM } from '../../../bytecode/stack-map.js';
import { OP } from '../../../bytecode/opcodes.js';
import { loadOpFor, returnOpFor } from '../../../bytecode/emit.js';
import { argSlots, parseMethodDescriptor, typeSize } from '../../../classfile/descriptor.js';
import { RT } from '../runtime-names.js';
import { FOR_CLASS_DESC, midChunks, type MidEntry } from '../members.js';
import { TC_FIELD } from './context.js';
import type { BodyRefs } from './body-refs.js';

/**
 * The insertions of one method, each made the same way: one shape for every insertion keeps the
 * writer's reads of them monomorphic, which object spreads of varying fields did not.
 */
export class Insertions {
  readonly list: Insertion[] = [];

  constructor(private readonly f: Fragment) {}

  /** The fragment built since the last one, before instruction `before`; `stack`: Insertion.stack. */
  add(before: number, stack: number, fallThrough = false, ownFrames: Insertion['ownFrames'] = undefined): void {
    const { bytes, frames } = this.f.finish();
    this.list.push({ before, bytes, stack, frames, ownFrames, fallThrough });
  }
}

/** What every fragment of one method needs: tc, the stack and its pointer are locals tc … tc + 2. */
export interface FragmentContext {
  f: Fragment;
  out: Insertions;
  refs: BodyRefs;
  tc: number;
  leaf: boolean;
  /** The method's identifier field (BodyOptions.mid). */
  mid: { owner: string; name: string };
  callbacks: boolean;
}

const PUSH_DESC = `(${RT.STACK_DESC}I${RT.MID_DESC})I`;
const GET_TC_DESC = `()${RT.TC_DESC}`;
const ENTER_DESC = `()${RT.STACK_DESC}`;
const EXIT_DESC = `(${RT.STACK_DESC}I)V`;
/** The slow path's descriptors: [leaf * 2 + with a line]. */
const TRIGGER_DESC = [`(${RT.STACK_DESC}I)V`, `(${RT.STACK_DESC}II)V`, `(${RT.STACK_DESC}I${RT.MID_DESC})V`, `(${RT.STACK_DESC}I${RT.MID_DESC}I)V`];

/**
 * Counter.piece with the field counter: `tc.instrCounter -= count`, and with `check` the sample when
 * it reaches zero; `line` is the slow path's line delta (Body.slowPathLine), or null without a line.
 */
export function counterPiece(c: FragmentContext, before: number, count: number, check: boolean, framed: boolean, line: number | null): void {
  const { f, refs, tc } = c;
  // The object pipeline makes the line's constant first.
  if (line !== null && (line < -32768 || line > 32767)) refs.cp.integerIndex(line);
  const counter = refs.counter;
  f.local(OP.ALOAD, tc).op(OP.DUP).ref(OP.GETFIELD, counter).pushInt(count).op(OP.ISUB);
  if (!check) {
    f.ref(OP.PUTFIELD, counter);
    return c.out.add(before, 3);
  }
  const skip = f.label(framed);
  f.op(OP.DUP_X1).ref(OP.PUTFIELD, counter).jump(OP.IFGT, skip);
  f.local(OP.ALOAD, tc).local(OP.ALOAD, tc + 1).local(OP.ILOAD, tc + 2);
  if (c.leaf) f.ref(OP.GETSTATIC, refs.field(c.mid.owner, c.mid.name, RT.MID_DESC));
  if (line !== null) f.pushInt(line);
  const name = c.leaf ? 'triggerSamplingLeaf' : 'triggerSampling';
  const desc = TRIGGER_DESC[(c.leaf ? 2 : 0) + (line !== null ? 1 : 0)]!;
  f.ref(OP.INVOKEVIRTUAL, refs.method(RT.TC, name, desc)).place(skip);
  c.out.add(before, 3 + (c.leaf ? 1 : 0) + (line !== null ? 1 : 0));
}

/** CallSites.markCallLine: `stack[sp - 1] = <the identifier of the call's line>`. */
export function callLine(c: FragmentContext, before: number, mid: { owner: string; name: string }): void {
  const { f, tc } = c;
  f.local(OP.ALOAD, tc + 1).local(OP.ILOAD, tc + 2).op(OP.ICONST_1).op(OP.ISUB);
  f.ref(OP.GETSTATIC, c.refs.field(mid.owner, mid.name, RT.MID_DESC)).op(OP.IASTORE);
  c.out.add(before, 3);
}

/** The extra arguments of an extended call; `direct` (extended-direct) passes ~sp. */
export function extraArguments(c: FragmentContext, before: number, direct: boolean): void {
  const { f, tc } = c;
  f.local(OP.ALOAD, tc).local(OP.ALOAD, tc + 1).local(OP.ILOAD, tc + 2);
  if (direct) f.op(OP.ICONST_M1).op(OP.IXOR);
  c.out.add(before, direct ? 4 : 3);
}

/** A call-out (CallSites.callout, inline form): `tc.outStack = stack; tc.outSp = sp` before call `i`, `tc.outSp = -1` after it. */
export function callout(c: FragmentContext, i: number): void {
  writePublish(c);
  c.out.add(i, 2);
  writeUnpublish(c);
  c.out.add(i + 1, 2, true);
}

function writePublish({ f, refs, tc }: FragmentContext): void {
  f.local(OP.ALOAD, tc).local(OP.ALOAD, tc + 1).ref(OP.PUTFIELD, refs.outStack);
  f.local(OP.ALOAD, tc).local(OP.ILOAD, tc + 2).ref(OP.PUTFIELD, refs.outSp);
}

function writeUnpublish({ f, refs, tc }: FragmentContext): void {
  f.local(OP.ALOAD, tc).op(OP.ICONST_M1).ref(OP.PUTFIELD, refs.outSp);
}

/** The method being rewritten, for its entry. */
export interface EntryMethod {
  thisClass: string;
  name: string;
  desc: string;
  /** Class file version 49 on: `ldc` of a class. */
  ldcClass: boolean;
  /** Guards virtual dispatch (entry.ts emitDispatchCheck). */
  dispatchCheck: boolean;
  /** Whether the code has stack map frames to give the check's labels. */
  framed: boolean;
  /** The identifier the entry pushes (Body.entryMid). */
  entryMid: { owner: string; name: string };
}

/**
 * emitEntry for an extended method: the dispatch check, then, unless leaf, the push of the
 * identifier. A nop keeps the check's last label off the offset of a frame of the original code.
 */
export function entry(c: FragmentContext, m: EntryMethod): void {
  if (!m.dispatchCheck && c.leaf) return;
  const { f, refs, tc } = c;
  let stack = 0;
  let ownFrames: Insertion['ownFrames'];
  if (m.dispatchCheck) {
    ownFrames = dispatchCheck(c, m);
    const { ret } = parseMethodDescriptor(m.desc);
    const slots = 1 + argSlots(m.desc);
    const returned = ret === 'V' ? 0 : typeSize(ret);
    // The call-out's arguments; what it returns, under the unpublish's two words; getClass, dup and ldc.
    stack = Math.max(slots, returned + (c.callbacks ? 2 : 0), m.ldcClass ? 3 : 2);
  }
  if (!c.leaf) {
    f.local(OP.ALOAD, tc + 1).local(OP.ILOAD, tc + 2).ref(OP.GETSTATIC, refs.cp.fieldrefIndex(m.entryMid.owner, m.entryMid.name, RT.MID_DESC));
    f.ref(OP.INVOKESTATIC, refs.method(RT.TC, 'push', PUSH_DESC)).local(OP.ISTORE, tc + 2);
    stack = Math.max(stack, 3);
  } else f.op(OP.NOP);
  c.out.add(ENTRY, stack, false, ownFrames);
}

/** entry.ts emitDispatchCheck; its frames when the method has frames. */
function dispatchCheck(c: FragmentContext, m: EntryMethod): Insertion['ownFrames'] {
  const { f, refs, tc } = c;
  const direct = f.label();
  const exact = f.label();
  const body = f.label();
  const { args, ret } = parseMethodDescriptor(m.desc);
  f.local(OP.ILOAD, tc + 2).jump(OP.IFLT, direct).local(OP.ALOAD, 0);
  f.ref(OP.INVOKEVIRTUAL, refs.method('java/lang/Object', 'getClass', RT.CLASS_METHOD_DESC));
  if (m.ldcClass) f.op(OP.DUP).ldc(refs.cp.classIndex(m.thisClass)).jump(OP.IF_ACMPEQ, exact);
  f.local(OP.ALOAD, 0).ref(OP.INVOKEVIRTUAL, refs.method(m.thisClass, RT.CLASS_METHOD, RT.CLASS_METHOD_DESC)).jump(OP.IF_ACMPEQ, body);
  if (c.callbacks) writePublish(c);
  loadArguments(f, m.desc, false);
  f.ref(OP.INVOKEVIRTUAL, refs.cp.methodrefIndex(m.thisClass, m.name, m.desc));
  if (c.callbacks) writeUnpublish(c);
  f.op(returnOpFor(ret));
  const directAt = f.offset;
  f.place(direct).local(OP.ILOAD, tc + 2).op(OP.ICONST_M1).op(OP.IXOR).local(OP.ISTORE, tc + 2);
  let exactAt = -1;
  if (m.ldcClass) {
    f.jump(OP.GOTO, body);
    exactAt = f.offset;
    f.place(exact).op(OP.POP);
  }
  const bodyAt = f.offset;
  f.place(body);
  if (!m.framed) return undefined;
  const locals = entryLocals(m.thisClass, args);
  const frames = [{ at: directAt, locals, stack: [] as string[] }];
  if (exactAt >= 0) frames.push({ at: exactAt, locals, stack: ['java/lang/Class'] });
  frames.push({ at: bodyAt, locals, stack: [] });
  return frames;
}

/** The extended method's implicit initial frame: `this`, the arguments, tc, stack and sp. */
function entryLocals(thisClass: string, args: readonly string[]): (number | string)[] {
  const out: (number | string)[] = [thisClass];
  for (const a of args) out.push(verificationType(a));
  out.push(RT.TC, RT.STACK_DESC, ITEM.Integer);
  return out;
}

function verificationType(desc: string): number | string {
  switch (desc[0]) {
    case 'L':
      return desc.slice(1, -1);
    case '[':
      return desc;
    case 'F':
      return ITEM.Float;
    case 'J':
      return ITEM.Long;
    case 'D':
      return ITEM.Double;
    default:
      return ITEM.Integer;
  }
}

/**
 * members.ts wrapperCode as bytes: `tc = TC.getTC(); stack = tc.enter(); sp = tc.enterSp; r =
 * ext(args…, tc, stack, sp); tc.exit(stack, sp); return r`, straight-line, so without frames. The
 * code's bytes, its max_stack and max_locals.
 */
export function wrapper(
  f: Fragment,
  refs: BodyRefs,
  m: { thisClass: string; isInterface: boolean; isStatic: boolean; desc: string; extName: string; extDesc: string },
  direct: boolean,
  tcGetter: string,
): StraightCode {
  const { ret } = parseMethodDescriptor(m.desc);
  const k = argSlots(m.desc) + (m.isStatic ? 0 : 1);
  f.ref(OP.INVOKESTATIC, refs.method(RT.TC, tcGetter, GET_TC_DESC)).local(OP.ASTORE, k).local(OP.ALOAD, k);
  f.ref(OP.INVOKEVIRTUAL, refs.method(RT.TC, 'enter', ENTER_DESC)).local(OP.ASTORE, k + 1).local(OP.ALOAD, k);
  f.ref(OP.GETFIELD, refs.field(RT.TC, TC_FIELD.enterSp, 'I')).local(OP.ISTORE, k + 2);
  loadArguments(f, m.desc, m.isStatic);
  f.local(OP.ALOAD, k).local(OP.ALOAD, k + 1).local(OP.ILOAD, k + 2);
  if (direct) f.op(OP.ICONST_M1).op(OP.IXOR);
  f.ref(m.isStatic ? OP.INVOKESTATIC : OP.INVOKESPECIAL, refs.cp.methodIndex(m.thisClass, m.extName, m.extDesc, m.isInterface));
  f.local(OP.ALOAD, k).local(OP.ALOAD, k + 1).local(OP.ILOAD, k + 2);
  f.ref(OP.INVOKEVIRTUAL, refs.method(RT.TC, 'exit', EXIT_DESC)).op(returnOpFor(ret));
  const returned = ret === 'V' ? 0 : typeSize(ret);
  return { bytes: f.finish().bytes, maxStack: Math.max(k + 3 + (direct ? 1 : 0), returned + 3), maxLocals: k + 3 };
}

/** members.ts loadArgs as bytes: `this` (unless static) and every argument of `desc`. */
function loadArguments(f: Fragment, desc: string, isStatic: boolean): void {
  let slot = 0;
  if (!isStatic) f.local(OP.ALOAD, slot++);
  for (const a of parseMethodDescriptor(desc).args) {
    f.local(loadOpFor(a), slot);
    slot += typeSize(a);
  }
}

/** What a straight-line method's Code attribute needs besides its (empty) tables. */
export interface StraightCode {
  bytes: Uint8Array;
  maxStack: number;
  maxLocals: number;
}

/**
 * The synthetic <clinit> of class-transform.ts as bytes: members.ts midInitCode, then `return`. The
 * constant pool entries are made in midInitCode's order, so both give the same pool.
 */
export function midInit(f: Fragment, m: { owner: string; javaName: string; source: string | null; mids: readonly MidEntry[] }): StraightCode {
  const cp = f.cp;
  const chunks = midChunks(m.mids);
  for (const { start, end, packed } of chunks) {
    f.ldc(cp.stringIndex(m.javaName));
    if (m.source === null) f.op(OP.ACONST_NULL);
    else f.ldc(cp.stringIndex(m.source));
    f.ldc(cp.stringIndex(packed)).ref(OP.INVOKESTATIC, cp.methodrefIndex(RT.MID, 'forClass', FOR_CLASS_DESC));
    for (let i = start; i < end; i++) {
      f.op(OP.DUP).pushInt(i - start).op(OP.IADD).ref(OP.PUTSTATIC, cp.fieldrefIndex(m.owner, m.mids[i]!.field, RT.MID_DESC));
    }
    f.op(OP.POP);
  }
  f.op(OP.RETURN);
  // Three strings; or the first identifier, its copy and an offset.
  return { bytes: f.finish().bytes, maxStack: chunks.length > 0 ? 3 : 0, maxLocals: 0 };
}

/** class-transform.ts classMethod's code as bytes: `ldc thisClass; areturn`, or `aconst_null; areturn`. */
export function classMethodCode(f: Fragment, classIndex: number | null): StraightCode {
  if (classIndex === null) f.op(OP.ACONST_NULL);
  else f.ldc(classIndex);
  f.op(OP.ARETURN);
  return { bytes: f.finish().bytes, maxStack: 1, maxLocals: 1 };
}
