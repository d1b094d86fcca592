/**
 * The code of a probe and of a check. A probe pushes its site's number (the class's first site
 * number, a static final int its static initializer set, plus the site's index) and calls each
 * handler; one that wants a call's receiver gets a copy of it from under the arguments. A check
 * is seed 000's counter-based trigger: a decrement of the runtime's counter and, when it reaches
 * zero, a call that starts a sample.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { parseMethodDescriptor, typeSize } from '../classfile/descriptor.js';
import type { Insn, Label, Node } from '../bytecode/ir.js';
import { Fmt, OP, OPCODE_FORMATS, OPCODE_NAMES, isArrayAccess } from '../bytecode/opcodes.js';
import { field, invoke, load, loadOpFor, op, pushInt, storeOpFor } from '../bytecode/emit.js';
import type { ProbeCall } from './sites.js';
import { burstCheck, burstGuard, isBurstTrigger, type BurstTrigger } from './burst.js';
import { experiment } from '../experiments.js';

export const SAMPLER = 'komorium/runtime/Sampler';

/** Where a class keeps its first site number. */
export interface SiteBase {
  owner: string;
  name: string;
}

/** How a check reads the trigger: the paper's one counter for all threads, one per thread, or bursty tracing (burst.ts). */
export type Trigger = 'global' | 'thread' | BurstTrigger;

/**
 * A kind's own flag (EventRequest.guard) as the trigger of a layout's checks: a check fires while
 * the runtime class's static boolean is true. For the kinds that sample on their own, whose
 * methods the exhaustive layout would push past HugeMethodLimit (class-transform.ts).
 */
export interface OwnFlag {
  owner: string;
  field: string;
}

/** What a layout's checks read: the framework's trigger or a kind's own flag. */
export type CheckTrigger = Trigger | OwnFlag;

function isOwnFlag(t: CheckTrigger): t is OwnFlag {
  return typeof t === 'object';
}

/** The own flag's check: jumps to `sample` while the flag is up, else falls through. */
function flagCheck(cp: ConstantPool, t: OwnFlag, sample: Label): Node[] {
  return [field(cp, OP.GETSTATIC, t.owner, t.field, 'Z'), { op: OP.IFNE, target: sample }];
}

export function pushSite(cp: ConstantPool, base: SiteBase, site: number): Insn[] {
  const first = field(cp, OP.GETSTATIC, base.owner, base.name, 'I');
  return site === 0 ? [first] : [first, pushInt(cp, site), op(OP.IADD)];
}

/** Slots a probe of `calls` at `insn` needs for the operands it sets aside. */
export function spillSlots(cp: ConstantPool, calls: readonly ProbeCall[], insn: Insn | null): number {
  if (insn !== null && calls.some((c) => c.operands === 'pass')) return storedValue(cp, insn)?.size ?? 0;
  if (insn === null || !calls.some((c) => c.receiver)) return 0;
  const args = parseMethodDescriptor(cp.memberRef(insn.cp!).desc).args;
  if (args.length === 0 || (args.length === 1 && typeSize(args[0]!) === 1)) return 0;
  return args.reduce((n, a) => n + typeSize(a), 0);
}

/**
 * The probe before `insn` (null at a method entry, a block start or a backedge). Calls that want
 * the receiver of a virtual call find it under the call's arguments, which go to the locals from
 * `spill` on while they are needed (spillSlots tells how many).
 */
export function probeCode(cp: ConstantPool, base: SiteBase, calls: readonly ProbeCall[], insn: Insn | null, spill: number): Node[] {
  const out: Node[] = [];
  const plain = (c: ProbeCall) => {
    out.push(...pushSite(cp, base, c.site), invoke(cp, OP.INVOKESTATIC, c.owner, c.handler, '(I)V'));
  };
  const withReceiver = calls.filter((c) => c.receiver);
  for (const c of calls) if (!c.receiver && !c.operands) plain(c);
  out.push(...operandProbe(cp, base, calls.filter((c) => c.operands), insn, spill));
  if (withReceiver.length === 0) return out;
  const args = parseMethodDescriptor(cp.memberRef(insn!.cp!).desc).args;
  const handlerCalls = (): Node[] =>
    withReceiver.flatMap((c, i) => [
      ...(i + 1 < withReceiver.length ? [op(OP.DUP)] : []),
      ...pushSite(cp, base, c.site),
      invoke(cp, OP.INVOKESTATIC, c.owner, c.handler, '(Ljava/lang/Object;I)V'),
    ]);
  if (args.length === 0) {
    out.push(op(OP.DUP), ...handlerCalls());
  } else if (args.length === 1 && typeSize(args[0]!) === 1) {
    // [r, a] → swap → [a, r] → dup_x1 → [r, a, r]
    out.push(op(OP.SWAP), op(OP.DUP_X1), ...handlerCalls());
  } else {
    const slots: number[] = [];
    let next = spill;
    for (const a of args) {
      slots.push(next);
      next += typeSize(a);
    }
    for (let i = args.length - 1; i >= 0; i--) out.push(load(storeOpFor(args[i]!), slots[i]!));
    out.push(op(OP.DUP), ...handlerCalls());
    args.forEach((a, i) => out.push(load(loadOpFor(a), slots[i]!)));
  }
  return out;
}

/** The value a putfield or an array store sets aside while its object is passed: how to store and reload it, and its slots. */
function storedValue(cp: ConstantPool, insn: Insn): { store: number; load: number; size: number } | null {
  let desc: string;
  if (insn.op === OP.PUTFIELD) desc = cp.memberRef(insn.cp!).desc;
  else if (insn.op >= OP.IASTORE && insn.op <= OP.SASTORE) desc = ARRAY_STORE_TYPES[insn.op - OP.IASTORE]!;
  else return null;
  return { store: storeOpFor(desc), load: loadOpFor(desc), size: typeSize(desc) };
}

/** The element type each of iastore … sastore stores, as a descriptor. */
const ARRAY_STORE_TYPES = ['I', 'J', 'F', 'D', 'Ljava/lang/Object;', 'I', 'I', 'I'];

/**
 * The probe calls that get what a field or array instruction touches: the object (null for a
 * static field, or where it may be uninitialized) and, for an array, the index, copied from under
 * the stored value, which waits in the locals from `spill` on.
 */
function operandProbe(cp: ConstantPool, base: SiteBase, calls: readonly ProbeCall[], insn: Insn | null, spill: number): Node[] {
  if (calls.length === 0 || insn === null) return [];
  const array = isArrayAccess(insn.op);
  const desc = array ? '(Ljava/lang/Object;II)V' : '(Ljava/lang/Object;I)V';
  const call = (c: ProbeCall): Node[] => [...pushSite(cp, base, c.site), invoke(cp, OP.INVOKESTATIC, c.owner, c.handler, desc)];
  const objectless = insn.op === OP.GETSTATIC || insn.op === OP.PUTSTATIC || calls[0]!.operands === 'null';
  if (objectless && !array) return calls.flatMap((c) => [op(OP.ACONST_NULL), ...call(c)]);
  const value = storedValue(cp, insn);
  const each = calls.flatMap((c) => [op(array ? OP.DUP2 : OP.DUP), ...call(c)]);
  return value === null ? each : [load(value.store, spill), ...each, load(value.load, spill)];
}

const CHECK_FORM = experiment('KOMORIUM_CHECK_FORM');
// Experiment switch (measured in BENCHMARKS.md): the global check as a call of Sampler.tick().
const CALL_FORM = CHECK_FORM === 'call';

/**
 * Diagnosis switches (BENCHMARKS-hps.md, BENCHMARKS-framework.md), never for profiling:
 * KOMORIUM_CHECK_FORM=never makes every check of the framework's triggers a constant that never
 * fires (`iconst_0; ifne`), and never-padded pads that with nops to the real check's size. The
 * twins, transfers and resumes stay in the class, so the three builds split what checks that never
 * fire cost into running them, their bytes (inlining limits count them), and the rest of the layout.
 */
const PADDED = CHECK_FORM === 'never-padded';
const NEVER_FORM = CHECK_FORM === 'never' || PADDED;

/**
 * Bytes of the instructions a check is made of, by the operand formats of opcodes.ts. A check
 * holds only fixed-size instructions; any other format is a bug here, not a guess.
 */
function checkBytes(code: readonly Node[]): number {
  let n = 0;
  for (const x of code) {
    if (!('op' in x)) continue;
    const size = CHECK_INSN_BYTES[OPCODE_FORMATS[x.op] as Fmt];
    if (size === undefined) throw new Error(`checkBytes: ${OPCODE_NAMES[x.op]} in a check`);
    n += size;
  }
  return n;
}

const CHECK_INSN_BYTES: Partial<Record<Fmt, number>> = { [Fmt.NONE]: 1, [Fmt.S1]: 2, [Fmt.S2]: 3, [Fmt.CP2]: 3, [Fmt.BRANCH]: 3, [Fmt.INVOKEDYNAMIC]: 5 };

/** `real`'s never-firing stand-in: nops (when padded) and `iconst_0; <branch> target`. */
function neverCheck(real: readonly Node[], branch: number, target: Label, tail: readonly Node[]): Node[] {
  const pad = PADDED ? Math.max(0, checkBytes(real) - 4) : 0;
  return [...Array.from({ length: pad }, () => op(OP.NOP)), op(OP.ICONST_0), { op: branch, target }, ...tail];
}

/**
 * A check that jumps to `sample` when the trigger fires and otherwise falls through, to `cont`,
 * which the caller places right after this code (with the global trigger it is a branch target
 * and needs the frame of that point).
 */
export function checkCode(cp: ConstantPool, trigger: CheckTrigger, sample: Label, cont: Label): Node[] {
  if (NEVER_FORM && !isOwnFlag(trigger)) return neverCheck(realCheckCode(cp, trigger, sample, cont), OP.IFNE, sample, []);
  return realCheckCode(cp, trigger, sample, cont);
}

function realCheckCode(cp: ConstantPool, trigger: CheckTrigger, sample: Label, cont: Label): Node[] {
  if (isOwnFlag(trigger)) return flagCheck(cp, trigger, sample);
  if (isBurstTrigger(trigger)) return burstCheck(cp, trigger, sample, cont, false);
  if (CALL_FORM && trigger === 'global') return [invoke(cp, OP.INVOKESTATIC, SAMPLER, 'tick', '()Z'), { op: OP.IFNE, target: sample }];
  if (trigger === 'thread') {
    return [invoke(cp, OP.INVOKESTATIC, SAMPLER, 'tickThread', '()Z'), { op: OP.IFNE, target: sample }];
  }
  return [
    ...decrement(cp),
    { op: OP.IFGT, target: cont },
    invoke(cp, OP.INVOKESTATIC, SAMPLER, 'take', '()Z'),
    { op: OP.IFNE, target: sample },
  ];
}

/** A check whose both outcomes jump: to `sample`, or to `cont` (a backedge's trampoline). */
export function checkJump(cp: ConstantPool, trigger: CheckTrigger, sample: Label, cont: Label): Node[] {
  if (NEVER_FORM && !isOwnFlag(trigger)) return neverCheck(realCheckCode(cp, trigger, sample, cont), OP.IFNE, sample, [{ op: OP.GOTO, target: cont }]);
  if (isOwnFlag(trigger)) return [...flagCheck(cp, trigger, sample), { op: OP.GOTO, target: cont }];
  if (isBurstTrigger(trigger)) return burstCheck(cp, trigger, sample, cont, true);
  if (CALL_FORM && trigger === 'global') {
    return [invoke(cp, OP.INVOKESTATIC, SAMPLER, 'tick', '()Z'), { op: OP.IFNE, target: sample }, { op: OP.GOTO, target: cont }];
  }
  if (trigger === 'thread') {
    return [invoke(cp, OP.INVOKESTATIC, SAMPLER, 'tickThread', '()Z'), { op: OP.IFNE, target: sample }, { op: OP.GOTO, target: cont }];
  }
  return [
    ...decrement(cp),
    { op: OP.IFGT, target: cont },
    invoke(cp, OP.INVOKESTATIC, SAMPLER, 'take', '()Z'),
    { op: OP.IFNE, target: sample },
    { op: OP.GOTO, target: cont },
  ];
}

/** A guard (no-dup): `probe` runs only when the trigger fires, else control goes to `skip`, which the caller places right after. */
export function guardCode(cp: ConstantPool, trigger: CheckTrigger, probe: readonly Node[], skip: Label): Node[] {
  if (NEVER_FORM && !isOwnFlag(trigger)) return neverCheck(realGuardCode(cp, trigger, [], skip), OP.IFEQ, skip, probe);
  return realGuardCode(cp, trigger, probe, skip);
}

function realGuardCode(cp: ConstantPool, trigger: CheckTrigger, probe: readonly Node[], skip: Label): Node[] {
  if (isOwnFlag(trigger)) return ownGuardCode(cp, trigger.owner, trigger.field, probe, skip);
  if (isBurstTrigger(trigger)) return burstGuard(cp, trigger, probe, skip);
  if (CALL_FORM && trigger === 'global') return [invoke(cp, OP.INVOKESTATIC, SAMPLER, 'tick', '()Z'), { op: OP.IFEQ, target: skip }, ...probe];
  if (trigger === 'thread') {
    return [invoke(cp, OP.INVOKESTATIC, SAMPLER, 'tickThread', '()Z'), { op: OP.IFEQ, target: skip }, ...probe];
  }
  return [
    ...decrement(cp),
    { op: OP.IFGT, target: skip },
    invoke(cp, OP.INVOKESTATIC, SAMPLER, 'take', '()Z'),
    { op: OP.IFEQ, target: skip },
    ...probe,
  ];
}

/**
 * A kind's own guard (EventRequest.guard): `probe` runs only while the static boolean `field` of
 * `owner` is true, else control goes to `skip`, which the caller places right after.
 */
export function ownGuardCode(cp: ConstantPool, owner: string, fieldName: string, probe: readonly Node[], skip: Label): Node[] {
  return [field(cp, OP.GETSTATIC, owner, fieldName, 'Z'), { op: OP.IFEQ, target: skip }, ...probe];
}

/** `Sampler.counter -= 1`, leaving the new value on the stack. */
function decrement(cp: ConstantPool): Insn[] {
  return [
    field(cp, OP.GETSTATIC, SAMPLER, 'counter', 'I'),
    op(OP.ICONST_1),
    op(OP.ISUB),
    op(OP.DUP),
    field(cp, OP.PUTSTATIC, SAMPLER, 'counter', 'I'),
  ];
}
