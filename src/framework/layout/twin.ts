/**
 * Full-Duplication with the duplicated code out of line (a placement seed 000 leaves open): the
 * method keeps only its checking code, and a check that fires calls a private static "twin" that
 * holds the whole full-dup layout of the method, entered at the point the check sampled from, and
 * returns the method's result. HotSpot then compiles the method as it was plus its checks: the
 * copy, its probes and their handlers live in the twin, which is compiled only if samples make it
 * hot, and which is too long for C2 to inline back into the check's slow path (encodeTwin). (Inside one method, every sample that reached compiled code had the copy compiled too:
 * Rhino's compiled code grew from 4.1 to 6.6 MB and its JIT time doubled; BENCHMARKS.md.)
 *
 *   m:    entry check ─fire─▶ r = twin(args, 0, P, R) ─▶ resume
 *         original code; backedge u→v ─▶ check ─fire─▶ r = twin(…, i, P, R with the locals at v) ─▶ resume
 *         resume (one per call): switch (P[0]) { 0: return r; j: restore the locals at v_j; goto C.v_j }
 *   twin: switch (entry) { 0: D.entry; i: restore the locals at v_i; goto D.v_i }
 *         then the duplicated code of the full-dup layout; a backedge u→v of the copy goes through
 *         its check to D.v, and when the check does not fire the twin stores the locals at v into
 *         P and R, sets P[0] = j and returns to m, which goes on at C.v (resume); where m may not
 *         go on at v (handBackSet) the twin goes on at its own C.v, the checking code.
 *
 * A sample is then one acyclic path, as in seed 000, and the twin runs only while sampling. (A
 * twin that ran the rest of the invocation in a checking copy of its own became as hot as m in
 * every long loop, and HotSpot compiled both: Rhino's C2 time went from 1.1 to 3.5 s.)
 *
 * The twin takes m's arguments (`this` first for an instance method), the entry number and the
 * locals live at the sampled loop head: primitives in a long[] after its slot 0, references in an
 * Object[] (allocated per sample, never on the checking path). Control moves only where full
 * duplication lets it (no monitor held, no object under construction); the call is outside every
 * try range, so an exception from the twin leaves m as it would have left m's own code.
 */
import type { ClassFile } from '../../classfile/classfile.js';
import type { ConstantPool } from '../../classfile/constant-pool.js';
import { ACC, type MemberInfo, type RawAttribute } from '../../classfile/model.js';
import { parseMethodDescriptor } from '../../classfile/descriptor.js';
import { Label, isLabel, type Frame, type Insn, type MethodCode, type Node, type VType } from '../../bytecode/ir.js';
import { codeLength, writeCode } from '../../bytecode/code-writer.js';
import { FREQ_INLINE_SIZE } from '../../bytecode/hotspot-limits.js';
import { encoderFrames } from '../../analysis/frames.js';
import { OP } from '../../bytecode/opcodes.js';
import { classNameOfVType, vtypeOfField } from '../../bytecode/vtypes.js';
import { blockLabel, lastInsn } from '../../analysis/cfg.js';
import { liveAtBlockStarts } from '../../analysis/liveness.js';
import { loopNesting } from '../../analysis/loop-nesting.js';
import { branchTargets } from '../../bytecode/ir.js';
import { MethodEditor, insertLocals } from '../../edit/method-editor.js';
import { invoke, load, loadOpFor, op, pushInt, returnOpFor, storeOpFor } from '../../bytecode/emit.js';
import { checkCode, checkJump } from '../probes.js';
import { LayoutRefused, checkTransfers, hasSubroutines, type LayoutContext } from './context.js';
import { fullDuplication, leadingFramedLabel, type EntryPlan, type ResumePlan } from './duplicate.js';
import { experiment } from '../../experiments.js';

const ENTRY_TYPES: readonly VType[] = ['I', '[J', '[Ljava/lang/Object;'];
/** KOMORIUM_TWIN=stay: the twin runs the rest of the invocation in a checking copy of its own (the earlier design, for measurements). */
const STAY = experiment('KOMORIUM_TWIN') === 'stay' || experiment('KOMORIUM_TWIN') === 'entry-only';
/**
 * KOMORIUM_TWIN=entry-only: as stay, and the method keeps no check on its backedges, so no transfer
 * path sits in its loops (a diagnosis of what those paths cost C2; a long loop of an invocation
 * that was not sampled at its entry is then never sampled).
 */
const ENTRY_ONLY = experiment('KOMORIUM_TWIN') === 'entry-only';
/** KOMORIUM_TWIN=all-locals: every local the loop head's frame types travels, live or not (for measurements). */
const ALL_LOCALS = experiment('KOMORIUM_TWIN') === 'all-locals';

/** A local live at a transfer point: its slot in the method, its type, and where it travels. */
interface Carried {
  slot: number;
  type: VType;
  /** Index in the long[] (primitives, from 1: slot 0 names the point to resume at) or the Object[] (references). */
  index: number;
  primitive: boolean;
  /**
   * The frame types it `null` (Clojure clears locals with aconst_null): it travels as nothing and is
   * restored as aconst_null, since a value read back from the Object[] would be an Object, which the
   * loop head's frame does not accept there.
   */
  isNull: boolean;
  /**
   * Not live at the loop head (liveness.ts): nothing after it reads the value before writing one,
   * so it travels as nothing and is restored as a constant of its type (0 or null). The constant
   * keeps the loop head's recorded frame valid as it is, and every frame after it: marking the slot
   * top there instead would have to be carried into each later frame the slot reaches unwritten.
   */
  dead: boolean;
}

/** A backedge target control may move to the twin at: its block and the locals the twin gets there. */
interface TransferPoint {
  block: number;
  /**
   * The points whose loops contain this one's head, itself included (indices into the points),
   * and whether control can go from this head to each point's backedges; null when the method's
   * graph is irreducible already, and the twin may then hand back anywhere.
   */
  within: number[] | null;
  reaches: boolean[] | null;
  carried: Carried[];
  /** Length of the long[] this point needs (slot 0 included). */
  prims: number;
  refs: number;
}

export interface TwinRef {
  owner: string;
  name: string;
  desc: string;
  /** The owner is an interface: the call names an InterfaceMethodref. */
  isInterface: boolean;
}

/** Whether `m` can have an out-of-line copy: a twin cannot assign final fields (constructors, class initializers). */
export function canHaveTwin(cf: ClassFile, m: MemberInfo): boolean {
  if (m.name === '<init>' || m.name === '<clinit>') return false;
  // The JVM allows 255 argument slots; the twin takes `this` explicitly and three more.
  if (argumentSlots(m) + ENTRY_TYPES.length > 255) return false;
  // Interfaces hold private static methods from version 53 on.
  if ((cf.access & ACC.INTERFACE) !== 0 && cf.major < 53) return false;
  // The locals a transfer carries are known from stack map frames.
  return cf.major >= 50;
}

/**
 * The twin of `m`: its name, descriptor and member, and `typed`, the same member with `this` typed as
 * the class, which the analysis of m's code needs. The twin declares its receiver as Object, so that
 * its parameter types are m's own plus JDK types: a program that reflects over its methods meets no
 * new parameter type. (Groovy builds a class's method cache by resolving every parameter type of
 * every declared method; a twin taking its own closure class recursed until StackOverflowError.)
 */
export function twinOf(cf: ClassFile, m: MemberInfo): { ref: TwinRef; member: MemberInfo; typed: MemberInfo } {
  const isStatic = (m.access & ACC.STATIC) !== 0;
  const { args, ret } = parseMethodDescriptor(m.desc);
  const descWith = (receiver: string[]) => `(${[...receiver, ...args, ...ENTRY_TYPES].join('')})${ret}`;
  const desc = descWith(isStatic ? [] : ['Ljava/lang/Object;']);
  // Static and instance twins are named apart: an instance equals(Object) and a static
  // equals(Object, Object) of one class (sisu-plexus's ComponentDescriptor) would otherwise both get
  // (Object, Object, entry…)Z, and the JVM rejects the class as a duplicate method.
  const name = `${m.name}${isStatic ? '$static' : ''}$sample$komorium`;
  if (cf.methods.some((o) => o.name === name && o.desc === desc)) throw new LayoutRefused(`the class already declares ${name}${desc}`);
  const member = cf.newMember(ACC.PRIVATE | ACC.STATIC | ACC.SYNTHETIC, name, desc);
  const typed = { ...member, desc: descWith(isStatic ? [] : [`L${cf.thisClass};`]) };
  return { ref: { owner: cf.thisClass, name, desc, isInterface: (cf.access & ACC.INTERFACE) !== 0 }, member, typed };
}

/** Slots of `m`'s arguments, `this` included. */
function argumentSlots(m: MemberInfo): number {
  const isStatic = (m.access & ACC.STATIC) !== 0;
  return (isStatic ? 0 : 1) + parseMethodDescriptor(m.desc).args.reduce((n, a) => n + (a === 'J' || a === 'D' ? 2 : 1), 0);
}

/** The transfer points of a method: the targets of its backedges, with the locals live there. */
export function transferPoints(ctx: LayoutContext): TransferPoint[] {
  const targets = [...new Set(ctx.cfg.backEdges.filter((e) => e.branch || e.fallthrough).map((e) => e.to))].sort((a, b) => a - b);
  checkTransfers(ctx, targets);
  const live = ALL_LOCALS ? null : liveAtBlockStarts(ctx.cfg, ctx.code.maxLocals);
  const nesting = loopNesting(ctx.cfg, targets);
  return targets.map((block, at) => {
    const frame = ctx.frames.before(ctx.cfg.blocks[block]!.firstInsn);
    if (frame === null) throw new LayoutRefused('a loop head without a known frame');
    // Only locals travel to the twin and back (Groovy keeps a list on the stack across a loop).
    if (frame.stack.length > 0) throw new LayoutRefused('a loop with values on the operand stack');
    const carried: Carried[] = [];
    let prims = 1;
    let refs = 0;
    frame.locals.forEach((type, slot) => {
      if (type === 'T' || typeof type !== 'string') return;
      const primitive = type.length === 1 && type !== 'N';
      if (type === 'U') throw new LayoutRefused('a loop before the superclass constructor ran');
      const dead = live !== null && live[block]![slot] === 0;
      if (type === 'N' || dead) carried.push({ slot, type, primitive, index: -1, isNull: type === 'N', dead });
      else carried.push({ slot, type, primitive, index: primitive ? prims++ : refs++, isNull: false, dead });
    });
    return { block, within: nesting?.within[at] ?? null, reaches: nesting?.reaches[at] ?? null, carried, prims, refs };
  });
}

/**
 * The points a twin entered from `from` (a point's index, or -1 for the method entry) may hand
 * back at. Control comes back into the method through a resume after that entry's call, which
 * jumps to the loop head handed back at; a jump into a loop from outside the loops around its head,
 * or one that closes a cycle no head dominates, makes the graph irreducible, and HotSpot then
 * compiles the method's loops worse though the resume never runs while the checks do not fire
 * (JFlex: 114 methods so, and 1.51 times its CPU time with the checks never firing, against 1.25
 * with reducible resumes; BENCHMARKS-framework.md). So a twin hands back at a head whose enclosing
 * loops all contain the point it was entered at, and which either encloses that point or cannot
 * reach it again (a later loop); from the method entry, at the outermost heads. Elsewhere it runs on
 * in its own checking code, unprofiled, to the next backedge where it may hand back.
 */
export function handBackSet(points: readonly TransferPoint[], from: number): Set<number> {
  const all = [...points.keys()];
  if (anyHandBack(points)) return new Set(all);
  const outermost = (j: number) => points[j]!.within!.length === 1;
  if (from < 0) return new Set(all.filter(outermost));
  const around = points[from]!.within!;
  return new Set(all.filter((j) => points[j]!.within!.every((k) => k === j || around.includes(k)) && (around.includes(j) || !points[j]!.reaches![from])));
}

/** Whether the resumes of every call may share one block per head: the method's graph was irreducible already. */
function anyHandBack(points: readonly TransferPoint[]): boolean {
  return points.some((p) => p.within === null);
}

/**
 * The method's own code: the original with a check at the entry and on every backedge, each
 * calling the twin when it fires, and the resume after the call.
 */
export function checksCallingTwin(ctx: LayoutContext, twin: TwinRef, points: readonly TransferPoint[], sharedRestores = false): MethodCode {
  const { cf, code, cfg, trigger, frames, method } = ctx;
  if (hasSubroutines(code)) throw new LayoutRefused('jsr/ret subroutines');
  const cp = cf.cp;
  const ed = new MethodEditor(code);
  const recorded = new Set(code.frames?.keys() ?? []);
  const ret = parseMethodDescriptor(method.desc).ret;
  const isStatic = (method.access & ACC.STATIC) !== 0;
  const args = parseMethodDescriptor(method.desc).args;
  const callTwin = () => invoke(cp, OP.INVOKESTATIC, twin.owner, twin.name, twin.desc, twin.isInterface);
  // Every call gets arrays that fit any point, since the twin may come back at any of them.
  const temps = ed.reserveLocals(2);
  const prims = Math.max(1, ...points.map((p) => p.prims));
  const refs = Math.max(0, ...points.map((p) => p.refs));
  const arrays = (): Node[] => [
    pushInt(cp, prims), { op: OP.NEWARRAY, n: 11 }, load(OP.ASTORE, temps),
    pushInt(cp, refs), { op: OP.ANEWARRAY, cp: cp.classIndex('java/lang/Object') }, load(OP.ASTORE, temps + 1),
  ];
  const passArrays = () => [load(OP.ALOAD, temps), load(OP.ALOAD, temps + 1)];
  // Each call has a resume of its own, to the loop heads its twin may hand back at (handBackSet).
  const resumes: { label: Label; from: number; heads: Set<number> }[] = [];
  const resumeFor = (from: number): Label => {
    const label = new Label();
    resumes.push({ label, from, heads: handBackSet(points, from) });
    return label;
  };

  // Entry: the arguments as they came.
  const entryStub = new Label();
  ed.setFrame(entryStub, frames.entry());
  const callArgs: Node[] = [];
  let slot = 0;
  if (!isStatic) callArgs.push(load(OP.ALOAD, slot++));
  for (const a of args) {
    callArgs.push(load(loadOpFor(a), slot));
    slot += a === 'J' || a === 'D' ? 2 : 1;
  }
  // Without a loop, or when it stays (KOMORIUM_TWIN=stay), the twin always returns the method's
  // result: the entry passes no arrays, and no call needs the resume.
  const handsBack = points.length > 0 && !STAY;
  const afterTwin = (from: number): Node[] => (handsBack ? [{ op: OP.GOTO, target: resumeFor(from) }] : [op(returnOpFor(ret))]);
  if (!handsBack) ed.append([entryStub, ...callArgs, op(OP.ICONST_0), op(OP.ACONST_NULL), op(OP.ACONST_NULL), callTwin(), ...afterTwin(-1)]);
  else ed.append([entryStub, ...arrays(), ...callArgs, op(OP.ICONST_0), ...passArrays(), callTwin(), ...afterTwin(-1)]);
  const framed = leadingFramedLabel(code);
  const cont = framed ?? new Label();
  if (!framed) ed.setFrame(cont, frames.entry());
  ed.prepend([...checkCode(cp, trigger, entryStub, cont), ...(framed ? [] : [cont])]);

  // Backedges: through a check to the twin, entered at the loop head.
  const heads = (ENTRY_ONLY ? [] : points).map((p, i) => {
    const frame = frames.before(cfg.blocks[p.block]!.firstInsn)!;
    const v = headLabel(p.block);
    const stub = new Label();
    ed.setFrame(stub, frame);
    ed.append([stub, ...arrays(), ...carryOut(p, i + 1), callTwin(), ...afterTwin(i)]);
    // One check per loop head, shared by its backedges (Rhino's interpreter loop has 132 `continue`s to one head).
    const trampoline = new Label();
    ed.setFrame(trampoline, frame);
    ed.append([trampoline, ...checkJump(cp, trigger, stub, v)]);
    for (const e of cfg.backEdges) {
      if (e.to !== p.block || (!e.branch && !e.fallthrough)) continue;
      const last = lastInsn(cfg, e.from);
      if (e.branch) {
        for (const t of new Set(branchTargets(last).filter((x) => cfg.blockOfNode[cfg.labelAt.get(x)!] === p.block))) ed.retarget(last, t, trampoline);
      }
      if (e.fallthrough) ed.insertAfter(last, [{ op: OP.GOTO, target: trampoline }]);
    }
    return v;
  });

  if (!handsBack) return ed.finish();
  // Resume: return the twin's result, or go on at the loop head the twin stopped before.
  const afterCall: Frame = { locals: [...Array<VType>(temps).fill('T'), '[J', '[Ljava/lang/Object;'], stack: ret === 'V' ? [] : [vtypeOfField(ret)] };
  // The restores: by default each call's own, as its resume's cases. Shared (a method that would
  // otherwise cross HugeMethodLimit: Rhino's interpretLoop), one block per head for the calls made
  // inside its loop (dominated by the head, so the jump back is one more backedge of that loop), and
  // one more for the calls made in the loops around it but not in it, which the head cannot reach
  // (dominated by those loops' heads, and in no cycle through this one); each call's resume then
  // only reads P[0] and picks among them. Shared, Sunflow at interval 1,000 lost what the reducible
  // resumes had gained (1.92 against 1.74 times its CPU time; BENCHMARKS-framework.md).
  const drop = (): Node[] => (ret === 'V' ? [] : [op(ret === 'J' || ret === 'D' ? OP.POP2 : OP.POP)]);
  const restores = new Map<string, Label>();
  const irreducible = anyHandBack(points);
  let calls = 0;
  const restoreBlock = (j: number, inside: boolean, call: number): Label => {
    const key = `${j}${inside || irreducible ? 'i' : 'o'}${sharedRestores ? '' : `@${call}`}`;
    let l = restores.get(key);
    if (!l) {
      l = new Label();
      ed.setFrame(l, afterCall);
      ed.append([l, ...drop(), ...restoreLocals(cp, points[j]!, temps, (s) => s), { op: OP.GOTO, target: heads[j]! }]);
      restores.set(key, l);
    }
    return l;
  };
  for (const { label, from, heads: may } of resumes) {
    const done = new Label();
    ed.setFrame(label, afterCall);
    ed.setFrame(done, afterCall);
    const around = from < 0 ? [] : (points[from]!.within ?? []);
    const call = calls++;
    const cases = [...may].sort((x, y) => x - y).map((j) => ({ key: j + 1, target: restoreBlock(j, around.includes(j), call) }));
    ed.append([label, load(OP.ALOAD, temps), op(OP.ICONST_0), op(OP.LALOAD), op(OP.L2I)]);
    ed.append([{ op: OP.LOOKUPSWITCH, dflt: done, keys: cases.map((c) => c.key), targets: cases.map((c) => c.target) }, done, op(returnOpFor(ret))]);
  }
  return ed.finish();

  function headLabel(block: number): Label {
    let l = blockLabel(cfg, block, recorded);
    if (l === undefined) {
      l = new Label();
      ed.insertBefore(code.nodes[cfg.blocks[block]!.firstInsn] as Insn, [l]);
    }
    if (!recorded.has(l)) ed.setFrame(l, frames.before(cfg.blocks[block]!.firstInsn));
    return l;
  }

  /** The twin's arguments for entry `entry` at point `p`: neutral arguments, the entry, the locals in the arrays. */
  function carryOut(p: TransferPoint, entry: number): Node[] {
    const out = storeLocals(cp, p, temps, (s) => s);
    // The twin's own arguments get their values from the arrays too: pass neutral ones.
    if (!isStatic) out.push(op(OP.ACONST_NULL));
    for (const a of args) out.push(neutral(a));
    out.push(pushInt(cp, entry), ...passArrays());
    return out;
  }
}

/**
 * The twin's code, from its own copy of the method's code: room for the three extra arguments
 * after the method's, then the full-dup layout entered through a dispatch on the entry number,
 * whose checks that do not fire hand the loop head back to the method (the resume).
 * `ctx.frames` must describe the twin as `typed` (twinOf): its entry frame has the extra arguments.
 */
export function twinBody(ctx: LayoutContext, method: MemberInfo, points: readonly TransferPoint[]): MethodCode {
  const k = argumentSlots(method);
  if (!insertLocals(ctx.code, k, ENTRY_TYPES)) throw new LayoutRefused('a long or double straddles the last argument slot');
  const shift = (slot: number) => (slot >= k ? slot + ENTRY_TYPES.length : slot);
  const cp = ctx.cf.cp;
  const ret = parseMethodDescriptor(method.desc).ret;
  const dispatch: EntryPlan = (ed, dEntry, copyLabel) => {
    const restores: Node[] = [];
    const cases = points.map((p) => {
      const l = new Label();
      ed.setFrame(l, ctx.frames.entry());
      restores.push(l, ...restoreLocals(cp, p, k + 1, shift), { op: OP.GOTO, target: copyLabel(p.block) });
      return l;
    });
    // Nothing jumps to the checking code's first instruction: it needs a frame of its own.
    const framed = leadingFramedLabel(ctx.code);
    const start = framed ?? new Label();
    if (!framed) ed.setFrame(start, ctx.frames.entry());
    // The receiver arrives as Object (twinOf); every frame of the copies has it as the class.
    const receiver: Node[] =
      (method.access & ACC.STATIC) === 0 ? [load(OP.ALOAD, 0), { op: OP.CHECKCAST, cp: cp.classIndex(ctx.cf.thisClass) }, load(OP.ASTORE, 0)] : [];
    ed.prepend([
      ...receiver,
      load(OP.ILOAD, k),
      { op: OP.TABLESWITCH, low: 0, dflt: dEntry, targets: [dEntry, ...cases] },
      ...restores,
      ...(framed ? [] : [start]),
    ]);
  };
  const resumeLabels = new Map<number, Label>();
  // Entries 0 (the method entry) and i + 1 (point i) may hand back at the points of these sets.
  const mayHandBack = [-1, ...points.keys()].map((from) => handBackSet(points, from));
  const handBack: ResumePlan = (ed, block, checking) => {
    let l = resumeLabels.get(block);
    if (l) return l;
    const i = points.findIndex((p) => p.block === block);
    const p = points[i]!;
    const frame = ctx.frames.before(ctx.cfg.blocks[block]!.firstInsn);
    l = new Label();
    ed.setFrame(l, frame);
    const marker = [load(OP.ALOAD, k + 1), op(OP.ICONST_0), pushInt(cp, i + 1), op(OP.I2L), op(OP.LASTORE)];
    const result = ret === 'V' ? [] : [neutral(ret)];
    ed.append([l, ...storeLocals(cp, p, k + 1, shift), ...marker, ...result, op(returnOpFor(ret))]);
    if (mayHandBack.some((set) => !set.has(i))) {
      // Entered where the method may not resume at this head: on in the twin's checking copy.
      const gate = new Label();
      ed.setFrame(gate, frame);
      const targets = mayHandBack.map((set) => (set.has(i) ? l! : checking));
      ed.append([gate, load(OP.ILOAD, k), { op: OP.TABLESWITCH, low: 0, dflt: checking, targets }]);
      l = gate;
    }
    resumeLabels.set(block, l);
    return l;
  };
  return fullDuplication(ctx, dispatch, STAY ? undefined : handBack);
}

/**
 * The twin's Code attribute, at least FREQ_INLINE_SIZE + 1 bytes long. A check that fired while
 * its method was profiled gets its call of the twin compiled in, and C2 inlined every twin of up
 * to 325 bytes into it, with the twin's probes and their handlers: the code that runs once per
 * interval then sat in every compiled copy of the method, and spent C2's inlining budget
 * (DesiredMethodLimit, NodeCountInliningCutoff) that the method's own callees had used before
 * (BENCHMARKS-framework.md, "Where the cost of sampling went"). A shorter twin gets more entries in
 * its dispatch switch, all going where entry 0 goes: bytes, no instruction that runs.
 */
export function encodeTwin(cf: ClassFile, member: MemberInfo, code: MethodCode): RawAttribute {
  const encode = () => writeCode(cf, member, code, { frameAt: encoderFrames(cf, member, code) });
  let attr = encode();
  const dispatch = code.nodes.find((n): n is Insn => !isLabel(n) && n.op === OP.TABLESWITCH)!;
  while (codeLength(attr) <= FREQ_INLINE_SIZE) {
    const missing = FREQ_INLINE_SIZE + 1 - codeLength(attr);
    dispatch.targets!.push(...Array<Label>(Math.ceil(missing / 4)).fill(dispatch.dflt!));
    attr = encode();
  }
  return attr;
}

/** Stores the locals carried at `p` into the arrays in slots `at` (long[]) and `at + 1` (Object[]). */
function storeLocals(cp: ConstantPool, p: TransferPoint, at: number, slotOf: (slot: number) => number): Node[] {
  const out: Node[] = [];
  for (const c of p.carried) {
    if (c.isNull || c.dead) continue;
    out.push(load(OP.ALOAD, c.primitive ? at : at + 1), pushInt(cp, c.index));
    out.push(...(c.primitive ? widen(cp, c, slotOf(c.slot)) : [load(OP.ALOAD, slotOf(c.slot))]));
    out.push(op(c.primitive ? OP.LASTORE : OP.AASTORE));
  }
  return out;
}

/** Loads the locals carried at `p` back from the arrays in slots `at` and `at + 1`. */
function restoreLocals(cp: ConstantPool, p: TransferPoint, at: number, slotOf: (slot: number) => number): Node[] {
  const out: Node[] = [];
  for (const c of p.carried) {
    if (c.isNull || c.dead) {
      // 'N' and reference types get aconst_null, a primitive its zero (loadOpFor's default is a reference).
      out.push(neutral(c.type as string), load(storeOpFor(c.type as string), slotOf(c.slot)));
      continue;
    }
    out.push(load(OP.ALOAD, c.primitive ? at : at + 1), pushInt(cp, c.index), op(c.primitive ? OP.LALOAD : OP.AALOAD));
    out.push(...narrow(cp, c, slotOf(c.slot)));
  }
  return out;
}

function widen(cp: ConstantPool, c: Carried, slot: number): Node[] {
  switch (c.type) {
    case 'I':
      return [load(OP.ILOAD, slot), op(OP.I2L)];
    case 'F':
      return [load(OP.FLOAD, slot), invoke(cp, OP.INVOKESTATIC, 'java/lang/Float', 'floatToRawIntBits', '(F)I'), op(OP.I2L)];
    case 'J':
      return [load(OP.LLOAD, slot)];
    default:
      return [load(OP.DLOAD, slot), invoke(cp, OP.INVOKESTATIC, 'java/lang/Double', 'doubleToRawLongBits', '(D)J')];
  }
}

function narrow(cp: ConstantPool, c: Carried, slot: number): Node[] {
  switch (c.type) {
    case 'I':
      return [op(OP.L2I), load(OP.ISTORE, slot)];
    case 'F':
      return [op(OP.L2I), invoke(cp, OP.INVOKESTATIC, 'java/lang/Float', 'intBitsToFloat', '(I)F'), load(OP.FSTORE, slot)];
    case 'J':
      return [load(OP.LSTORE, slot)];
    case 'D':
      return [invoke(cp, OP.INVOKESTATIC, 'java/lang/Double', 'longBitsToDouble', '(J)D'), load(OP.DSTORE, slot)];
    default:
      return [{ op: OP.CHECKCAST, cp: cp.classIndex(classNameOfVType(c.type as string)) }, load(OP.ASTORE, slot)];
  }
}

/** A value of type `desc` that stands for "no value". */
function neutral(desc: string): Node {
  switch (loadOpFor(desc)) {
    case OP.ILOAD:
      return op(OP.ICONST_0);
    case OP.LLOAD:
      return op(OP.LCONST_0);
    case OP.FLOAD:
      return op(OP.FCONST_0);
    case OP.DLOAD:
      return op(OP.DCONST_0);
    default:
      return op(OP.ACONST_NULL);
  }
}

export type { Frame };
