/**
 * The bursty-tracing triggers (seed 001 §4.1, Figure 4; Hirzel and Chilimbi, FDDO-4 2001): a check
 * at every method entry and backedge of the checking code counts down a sparse phase of
 * `komorium.burst.sparsity` checks, then the next `komorium.burst.length` checks run the
 * duplicated, profiling code, across calls and returns. The runtime's komorium.runtime.Burst
 * holds the two counters; what a check costs while nothing is sampled is the mechanism:
 *
 * - counter: the software counters themselves, decremented at every check (the paper's software
 *   baseline: a load, a subtraction and a store);
 * - flag, volatile: a timer thread arms a static boolean for `komorium.burst.awake` ms of every
 *   `komorium.burst.period` ms, and only armed checks count (a plain field the JIT may hoist out of
 *   a loop without calls, or a volatile one it must read at every check);
 * - indy: the same timer re-links one MutableCallSite, bound by an invokedynamic at every check,
 *   between constant false and constant true: compiled code folds the disarmed check away, and
 *   every switch deoptimizes the code that depends on the call site.
 *
 * The armed path of every timer mechanism calls Burst.tick(), which runs the software counters.
 */
import type { ClassFile } from '../classfile/classfile.js';
import type { ConstantPool } from '../classfile/constant-pool.js';
import type { Label, Node } from '../bytecode/ir.js';
import { OP } from '../bytecode/opcodes.js';
import { field, invoke, op } from '../bytecode/emit.js';
import { experiment } from '../experiments.js';

export const BURST_MECHANISMS = ['counter', 'flag', 'volatile', 'indy'] as const;
export type BurstMechanism = (typeof BURST_MECHANISMS)[number];
export type BurstTrigger = `burst-${BurstMechanism}`;
export const BURST_TRIGGERS: readonly BurstTrigger[] = BURST_MECHANISMS.map((m) => `burst-${m}` as const);
/** What `--trigger burst` means: the mechanism that won the measurements of BENCHMARKS-hps.md. */
export const DEFAULT_BURST_TRIGGER: BurstTrigger = 'burst-counter';

const BURST = 'komorium/runtime/Burst';
/**
 * Experiment switch (BENCHMARKS-hps.md): the counter's check as a call of Burst.tick(), 6 bytes of
 * bytecode instead of 18, which C1 and C2 inline (it is under MaxInlineSize) and the interpreter calls.
 */
const CALL_FORM = experiment('KOMORIUM_CHECK_FORM') === 'call';
const FLAG = 'komorium/runtime/BurstFlag';
const VOLATILE = 'komorium/runtime/BurstVolatile';
const INDY = 'komorium/runtime/BurstIndy';
/** invokedynamic needs class files of Java 7 (version 51) or later. */
const INDY_MIN_MAJOR = 51;

export function isBurstTrigger(t: string): t is BurstTrigger {
  return (BURST_TRIGGERS as readonly string[]).includes(t);
}

/**
 * The invokedynamic constant of each class prepared for `burst-indy`. The layouts hand checks only
 * the constant pool, and the pool cannot reach the class's BootstrapMethods attribute, so the
 * class transform prepares the class first (prepareClass) and the checks find the constant here.
 */
const indyConstant = new WeakMap<ConstantPool, number>();

/**
 * Readies a class for checks of `trigger` and returns the trigger its checks use: burst-indy adds
 * its bootstrap method to the class, or, in a class file too old for invokedynamic, becomes
 * burst-volatile (the same timer arms both).
 */
export function prepareClass(cf: ClassFile, trigger: BurstTrigger): BurstTrigger {
  if (trigger !== 'burst-indy') return trigger;
  if (cf.major < INDY_MIN_MAJOR) return 'burst-volatile';
  const cp = cf.cp;
  const handle = cp.methodHandleIndex(
    6, // REF_invokeStatic
    cp.methodrefIndex(INDY, 'bootstrap', '(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/CallSite;'),
  );
  indyConstant.set(cp, cp.invokeDynamicIndex(bootstrapEntry(cf, handle), 'armed', '()Z'));
  return trigger;
}

/** The index of a BootstrapMethods entry calling `handle` with no arguments, appended when absent. */
function bootstrapEntry(cf: ClassFile, handle: number): number {
  let attr = cf.attributes.find((a) => a.name === 'BootstrapMethods');
  if (!attr) {
    attr = { nameIndex: cf.cp.utf8Index('BootstrapMethods'), name: 'BootstrapMethods', info: new Uint8Array([0, 0]) };
    cf.attributes.push(attr);
  }
  const b = attr.info;
  const n = (b[0]! << 8) | b[1]!;
  let p = 2;
  for (let i = 0; i < n; i++) {
    const ref = (b[p]! << 8) | b[p + 1]!;
    const args = (b[p + 2]! << 8) | b[p + 3]!;
    if (ref === handle && args === 0) return i;
    p += 4 + 2 * args;
  }
  const grown = new Uint8Array(b.length + 4);
  grown.set(b);
  grown[0] = ((n + 1) >> 8) & 0xff;
  grown[1] = (n + 1) & 0xff;
  grown[b.length] = (handle >> 8) & 0xff;
  grown[b.length + 1] = handle & 0xff;
  attr.info = grown;
  return n;
}

/** The instruction that leaves, for a timer mechanism, whether the checks are armed. */
function armed(cp: ConstantPool, m: Exclude<BurstMechanism, 'counter'>): Node {
  if (m === 'indy') {
    const k = indyConstant.get(cp);
    if (k === undefined) throw new Error('burst-indy: the class was not prepared (prepareClass)');
    return { op: OP.INVOKEDYNAMIC, cp: k };
  }
  return field(cp, OP.GETSTATIC, m === 'flag' ? FLAG : VOLATILE, 'armed', 'Z');
}

function mechanismOf(t: BurstTrigger): BurstMechanism {
  return t.slice('burst-'.length) as BurstMechanism;
}

/**
 * Jumps to `sample` when the check starts or continues a burst; otherwise jumps to `cont` when
 * `jump`, else falls through (the caller places `cont` right after).
 */
export function burstCheck(cp: ConstantPool, t: BurstTrigger, sample: Label, cont: Label, jump: boolean): Node[] {
  const m = mechanismOf(t);
  if (m === 'counter' && CALL_FORM) return [invoke(cp, OP.INVOKESTATIC, BURST, 'tick', '()Z'), { op: OP.IFNE, target: sample }, ...(jump ? [{ op: OP.GOTO, target: cont }] : [])];
  const slow = [invoke(cp, OP.INVOKESTATIC, BURST, m === 'counter' ? 'take' : 'tick', '()Z'), { op: OP.IFNE, target: sample }];
  const head: Node[] = m === 'counter' ? [...decrement(cp), { op: OP.IFGT, target: cont }] : [armed(cp, m), { op: OP.IFEQ, target: cont }];
  return [...head, ...slow, ...(jump ? [{ op: OP.GOTO, target: cont }] : [])];
}

/** A guard (no-dup): `probe` runs only when the check samples, else control goes to `skip`, placed right after. */
export function burstGuard(cp: ConstantPool, t: BurstTrigger, probe: readonly Node[], skip: Label): Node[] {
  const m = mechanismOf(t);
  const head: Node[] = m === 'counter' ? [...decrement(cp), { op: OP.IFGT, target: skip }] : [armed(cp, m), { op: OP.IFEQ, target: skip }];
  return [...head, invoke(cp, OP.INVOKESTATIC, BURST, m === 'counter' ? 'take' : 'tick', '()Z'), { op: OP.IFEQ, target: skip }, ...probe];
}

/** `Burst.counter -= 1`, leaving the new value on the stack. */
function decrement(cp: ConstantPool): Node[] {
  return [field(cp, OP.GETSTATIC, BURST, 'counter', 'I'), op(OP.ICONST_1), op(OP.ISUB), op(OP.DUP), field(cp, OP.PUTSTATIC, BURST, 'counter', 'I')];
}
