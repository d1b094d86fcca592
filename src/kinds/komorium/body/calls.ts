/**
 * Komorium's call sites (seed 002 §4.1, §4.3): a call to a method with an extended version passes
 * the thread context and the reified stack; an interface call goes through the interface's
 * companion when the receiver implements it; a constructor in another package goes through its
 * factory or its protected extended version; every other call is a call-out, around which the
 * reified stack is published so that a callback from uninstrumented code continues it. Which
 * call is which is decided in ../calls.ts, from the class hierarchy.
 */
import type { ClassFile } from '../../../classfile/classfile.js';
import type { MemberInfo } from '../../../classfile/model.js';
import { parseMethodDescriptor, typeSize } from '../../../classfile/descriptor.js';
import { Label, isLabel, type Frame, type Insn, type MethodCode, type VType } from '../../../bytecode/ir.js';
import { OP } from '../../../bytecode/opcodes.js';
import { field, invoke, load, loadOpFor, op, storeOpFor } from '../../../bytecode/emit.js';
import { simulateFrames } from '../../../analysis/frames.js';
import { RT, extendDescriptor, extendedName, factoryDescriptor } from '../runtime-names.js';
import { decideCall, otherPackageInit, type ProgramView } from '../calls.js';
import { companionName } from '../companion.js';
import { TC_FIELD, type Body } from './context.js';
import type { Counter } from './counter.js';

/** What otherPackageConstructors found: how each such call is made, and the `new`/`dup` it replaces. */
export interface Factories {
  sites: Map<Insn, 'super' | 'factory'>;
  /**
   * What replaces a `new` and its `dup`, made once the entry is emitted: the constant pool grows in
   * the order instructions are made, and the same input must give the same bytes.
   */
  replace: Map<Insn, () => Insn[]>;
  /** The `new`s whose uninitialized instances no longer exist. */
  gone: Set<Insn>;
}

export class CallSites {
  /** The call line last stored into this frame's slot on the straight-line path to here (callLines). */
  private storedLine: number | undefined;

  constructor(
    private readonly b: Body,
    private readonly counter: Counter,
    private readonly factories: Factories,
  ) {}

  /** A label: another path may reach the code after it, with another line in the slot. */
  atLabel(): void {
    this.storedLine = undefined;
  }

  /** `stack[sp - 1] = <this method's identifier for the call's line>` (BodyOptions.callLines). */
  private markCallLine(nodeIndex: number): void {
    const { b } = this;
    if (b.callLines.size < 2) return;
    const line = b.lineAt(nodeIndex);
    const mid = b.callLines.get(line);
    if (mid === undefined || line === this.storedLine) return;
    this.storedLine = line;
    b.out.push(
      load(OP.ALOAD, b.stackVar),
      load(OP.ILOAD, b.spVar),
      op(OP.ICONST_1),
      op(OP.ISUB),
      field(b.cp, OP.GETSTATIC, mid.owner, mid.name, RT.MID_DESC),
      op(OP.IASTORE),
    );
  }

  rewrite(n: Insn, nodeIndex: number): void {
    const { b } = this;
    const { cp, out, stats } = b;
    if (n.op === OP.INVOKEDYNAMIC) {
      this.markCallLine(nodeIndex);
      this.callout(n);
      return;
    }
    const ref = cp.memberRef(n.cp!);
    let decision = decideCall(
      { op: n.op, owner: ref.owner, name: ref.name, desc: ref.desc, isInterface: ref.isInterface, caller: b.cf.thisClass },
      b.program,
    );
    // On the instrumented JDK no JDK call is inert: String.hashCode() counts, and must sit under its caller.
    if (decision === 'plain' && b.options.countedJdk) decision = 'callout';
    // A call that can reach instrumented code: its frames go above this one's.
    if (decision !== 'plain') this.markCallLine(nodeIndex);
    if (decision === 'extended' || decision === 'extended-direct') {
      stats.extendedCalls++;
      if (b.local) out.push(...this.counter.store());
      out.push(load(OP.ALOAD, b.tcVar), load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar));
      if (decision === 'extended-direct') out.push(op(OP.ICONST_M1), op(OP.IXOR));
      const ext = extendDescriptor(ref.desc);
      const name = extendedName(ref.name);
      out.push({ op: n.op, cp: cp.methodIndex(ref.owner, name, ext, ref.isInterface) });
      if (b.local) out.push(...this.counter.reload());
      return;
    }
    if (decision === 'other-package-init') {
      const how = this.factories.sites.get(n);
      if (how === undefined) {
        this.callout(n);
        return;
      }
      stats.extendedCalls++;
      out.push(load(OP.ALOAD, b.tcVar), load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar));
      if (how === 'factory') out.push(invoke(cp, OP.INVOKESTATIC, ref.owner, RT.FACTORY_METHOD, factoryDescriptor(ref.owner, ref.desc)));
      else out.push({ op: OP.INVOKESPECIAL, cp: cp.methodrefIndex(ref.owner, ref.name, extendDescriptor(ref.desc)) });
      return;
    }
    if (decision === 'companion') {
      // Its branches need frames; in dead code, where the analysis has none, a call-out does.
      const before = b.frameBefore(nodeIndex);
      if (before === null) this.callout(n);
      else this.companionCall(n, ref, before, nodeIndex);
      return;
    }
    if (decision === 'callout') this.callout(n);
    else out.push(n);
  }

  /**
   * An interface call whose receiver may implement the interface's companion (companion.ts). The
   * receiver sits below the arguments, so they are stored into fresh locals above every other one:
   *
   *     <store args, receiver>; aload r; instanceof I$$komoriumCalls; ifeq OTHER
   *     aload r; instanceof java/lang/reflect/Proxy; ifne OTHER
   *     aload r; <load args>; aload tc; aload stack; iload sp; invokeinterface I$$komoriumCalls.m$komorium
   *     goto DONE
   *   OTHER: aload r; <load args>; <call-out of the original invoke>
   *   DONE:
   */
  private companionCall(n: Insn, ref: { owner: string; name: string; desc: string }, before: Frame | undefined, nodeIndex: number): void {
    const { b } = this;
    const { cp, out, stats } = b;
    const declaring = b.program.hierarchy.resolveMethod(ref.owner, ref.name, ref.desc, n.op === OP.INVOKEINTERFACE).declaringClass!;
    const companion = companionName(declaring);
    const { args, ret } = parseMethodDescriptor(ref.desc);
    const slots: number[] = [];
    let next = b.spillBase;
    for (const t of args) {
      slots.push(next);
      next += typeSize(t);
    }
    const receiverSlot = next;
    b.spillTop = Math.max(b.spillTop, receiverSlot + 1);
    for (let j = args.length - 1; j >= 0; j--) out.push(load(storeOpFor(args[j]!), slots[j]!));
    out.push(load(OP.ASTORE, receiverSlot));
    const reload = (): Insn[] => [load(OP.ALOAD, receiverSlot), ...args.map((t, j) => load(loadOpFor(t), slots[j]!))];
    const other = new Label();
    const done = new Label();
    stats.extendedCalls++;
    out.push(
      load(OP.ALOAD, receiverSlot),
      { op: OP.INSTANCEOF, cp: cp.classIndex(companion) },
      { op: OP.IFEQ, target: other },
      // A JDK proxy of an instrumented class's interfaces (Spring AOP) implements the companion too, and
      // its handler must see the original method, or advice matched by name would be skipped.
      load(OP.ALOAD, receiverSlot),
      { op: OP.INSTANCEOF, cp: cp.classIndex('java/lang/reflect/Proxy') },
      { op: OP.IFNE, target: other },
      ...reload(),
    );
    if (b.local) out.push(...this.counter.store());
    out.push(
      load(OP.ALOAD, b.tcVar),
      load(OP.ALOAD, b.stackVar),
      load(OP.ILOAD, b.spVar),
      invoke(cp, OP.INVOKEINTERFACE, companion, extendedName(ref.name), extendDescriptor(ref.desc), true),
    );
    if (b.local) out.push(...this.counter.reload());
    out.push({ op: OP.GOTO, target: done }, other, ...reload());
    this.callout(n);
    out.push(done);
    // DONE's frame has the stored operands; a label of the original code at the same offset has its own.
    const following = b.code.nodes[nodeIndex + 1];
    if (following !== undefined && isLabel(following)) out.push(op(OP.NOP));
    if (b.newFrames && before) {
      const f = b.adapt(before);
      const locals = f.locals.slice();
      while (locals.length < b.spillBase) locals.push('T');
      const operands = f.stack.slice(f.stack.length - args.length - 1);
      args.forEach((t, j) => {
        locals.push(operands[j + 1]!);
        if (typeSize(t) === 2) locals.push('T');
      });
      locals.push(operands[0]!);
      const stack = f.stack.slice(0, f.stack.length - args.length - 1);
      b.newFrames.set(other, { locals, stack });
      b.newFrames.set(done, { locals: locals.slice(), stack: ret === 'V' ? stack : [...stack, verificationTypeOf(ret)] });
    }
  }

  /** A call that stays as it is, keeping the counter and the reified stack in step around it. */
  callout(n: Insn): void {
    const { b } = this;
    const { cp, out, stats } = b;
    if (b.local) {
      // Uninstrumented code may call back into instrumented code, which counts in tc.instrCounter.
      if (b.options.callbacks) {
        stats.callouts++;
        out.push(
          load(OP.ILOAD, b.cntVar),
          load(OP.ISTORE, b.syncVar),
          load(OP.ALOAD, b.tcVar),
          load(OP.ILOAD, b.cntVar),
          load(OP.ALOAD, b.stackVar),
          load(OP.ILOAD, b.spVar),
          invoke(cp, OP.INVOKESTATIC, RT.TC, 'callOut', `(${RT.TC_DESC}I${RT.STACK_DESC}I)V`),
          n,
          load(OP.ALOAD, b.tcVar),
          invoke(cp, OP.INVOKESTATIC, RT.TC, 'callBack', `(${RT.TC_DESC})I`),
          op(OP.DUP),
          load(OP.ISTORE, b.syncVar),
          load(OP.ISTORE, b.cntVar),
        );
      } else {
        out.push(...this.counter.store(), n, ...this.counter.reload());
      }
      return;
    }
    if (!b.options.callbacks) {
      out.push(n);
      return;
    }
    stats.callouts++;
    out.push(...publishStack(b), n, ...unpublishStack(b));
  }
}

/** `tc.outStack = stack; tc.outSp = sp`: a callback from the code called next continues this stack. */
export function publishStack(b: Body): Insn[] {
  if (b.options.compact) {
    return [load(OP.ALOAD, b.tcVar), load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar), invoke(b.cp, OP.INVOKESTATIC, RT.TC, 'publish', `(${RT.TC_DESC}${RT.STACK_DESC}I)V`)];
  }
  return [
    load(OP.ALOAD, b.tcVar),
    load(OP.ALOAD, b.stackVar),
    field(b.cp, OP.PUTFIELD, RT.TC, TC_FIELD.outStack, RT.STACK_DESC),
    load(OP.ALOAD, b.tcVar),
    load(OP.ILOAD, b.spVar),
    field(b.cp, OP.PUTFIELD, RT.TC, TC_FIELD.outSp, 'I'),
  ];
}

/** `tc.outSp = -1`: the call returned. */
export function unpublishStack(b: Body): Insn[] {
  return [load(OP.ALOAD, b.tcVar), op(OP.ICONST_M1), field(b.cp, OP.PUTFIELD, RT.TC, TC_FIELD.outSp, 'I')];
}

/** The verification type of a value of field descriptor `desc` on the operand stack. */
function verificationTypeOf(desc: string): VType {
  return 'ZBCSI'.includes(desc[0]!) ? 'I' : desc;
}

/**
 * Calls of constructors in another package (decideCall 'other-package-init'), by what the stack
 * shows (the recorded frames, or a straight-line simulation where the method has none), decided
 * on the code as read:
 *  - 'super': `super(…)` or `this(…)` on uninitializedThis, of a public or protected constructor:
 *    its extended version is protected, so the call passes the extra arguments;
 *  - 'factory': `new C; dup; <args>; invokespecial C.<init>` of a constructor with a factory
 *    becomes `getstatic C.komorium$new; pop; <args>; <tc, stack, sp>; invokestatic
 *    C.komorium$new`, which leaves the same initialized C on the stack. Only where the stack shows
 *    exactly that shape: the instance is made by a `new` directly followed by `dup`, the two
 *    copies are the only ones on the stack until the call, and no local ever holds one.
 * Any other call stays a call-out to the original constructor.
 */
export function otherPackageConstructors(
  cf: ClassFile,
  method: MemberInfo,
  code: MethodCode,
  framesBefore: (Frame | null)[] | null,
  program: ProgramView,
): Factories {
  const cp = cf.cp;
  const nodes = code.nodes;
  const sites = new Map<Insn, 'super' | 'factory'>();
  const replace = new Map<Insn, () => Insn[]>();
  const gone = new Set<Insn>();
  const candidates: { i: number; n: Insn; desc: string; owner: string; reach: { factory: boolean; inherited: boolean } }[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (isLabel(n) || n.op !== OP.INVOKESPECIAL) continue;
    const ref = cp.memberRef(n.cp!);
    if (ref.name !== '<init>') continue;
    const site = { op: n.op, owner: ref.owner, name: ref.name, desc: ref.desc, isInterface: ref.isInterface, caller: cf.thisClass };
    if (decideCall(site, program) !== 'other-package-init') continue;
    candidates.push({ i, n, desc: ref.desc, owner: ref.owner, reach: otherPackageInit(site, program) });
  }
  if (candidates.length === 0) return { sites, replace, gone };
  // Without stack map frames (older class files, straight-line methods) the shapes come from a
  // simulation, which knows nothing after a jump: such sites stay call-outs.
  const shapes = framesBefore ?? simulateFrames(cf, method, code);
  let index: Map<Insn, number> | null = null;
  let inLocals: Set<VType> | null = null;
  for (const { i, n, desc, owner, reach } of candidates) {
    const stack = shapes[i]?.stack;
    const argc = parseMethodDescriptor(desc).args.length;
    if (!stack || stack.length < argc + 1) continue;
    const made = stack[stack.length - 1 - argc]!;
    if (made === 'U') {
      if (reach.inherited) sites.set(n, 'super');
      continue;
    }
    if (!reach.factory || typeof made === 'string' || made.op !== OP.NEW || stack[stack.length - 2 - argc] !== made) continue;
    if (index === null) {
      index = new Map();
      inLocals = new Set();
      for (let j = 0; j < nodes.length; j++) {
        const x = nodes[j]!;
        if (!isLabel(x) && x.op === OP.NEW) index.set(x, j);
        for (const v of shapes[j]?.locals ?? []) if (typeof v !== 'string') inLocals.add(v);
      }
    }
    const at = index.get(made);
    const dup = at === undefined ? undefined : nodes[at + 1];
    if (at === undefined || dup === undefined || isLabel(dup) || dup.op !== OP.DUP || inLocals!.has(made)) continue;
    let shaped = true;
    for (let j = at + 1; j <= i && shaped; j++) {
      const f = shapes[j];
      if (f) shaped = f.stack.filter((v) => v === made).length === (j === at + 1 ? 1 : 2);
    }
    if (!shaped) continue;
    sites.set(n, 'factory');
    gone.add(made);
    // Both at the `new`: no position between it and the `dup` (where MaxPath may put a check)
    // has anything on the stack that the frames, once filtered, do not show.
    replace.set(made, () => [field(cp, OP.GETSTATIC, owner, RT.FACTORY_INIT_FIELD, 'I'), op(OP.POP)]);
    replace.set(dup, () => []);
  }
  return { sites, replace, gone };
}
