/**
 * The calling convention at the entry and the exits of a body (seed 002 §4.1, §4.3): the guard of
 * virtual dispatch, taking the thread context and the reified stack in a method instrumented in
 * place, pushing the method's identifier, and, in place, giving the stack back before each return.
 * The protocol is in docs/runtime-contract.md.
 */
import { parseMethodDescriptor } from '../../../classfile/descriptor.js';
import { Label } from '../../../bytecode/ir.js';
import { OP } from '../../../bytecode/opcodes.js';
import { field, invoke, load, op, returnOpFor } from '../../../bytecode/emit.js';
import { RT } from '../runtime-names.js';
import { extendedEntryFrame, loadArgs } from '../members.js';
import { TC_FIELD, type Body } from './context.js';
import type { Counter } from './counter.js';
import { publishStack, unpublishStack } from './calls.js';

/** Everything before the original code: before every label, so that a loop whose header is the first instruction does not push again. */
export function emitEntry(b: Body, counter: Counter): void {
  const { cp, out } = b;
  if (b.options.dispatchCheck) emitDispatchCheck(b);
  const bodyStart = out[out.length - 1];
  if (b.inPlace) {
    out.push(
      invoke(cp, OP.INVOKESTATIC, RT.TC, b.options.tcGetter ?? 'getTC', `()${RT.TC_DESC}`),
      load(OP.ASTORE, b.tcVar),
      load(OP.ALOAD, b.tcVar),
      invoke(cp, OP.INVOKEVIRTUAL, RT.TC, 'enter', `()${RT.STACK_DESC}`),
      load(OP.ASTORE, b.stackVar),
      load(OP.ALOAD, b.tcVar),
      field(cp, OP.GETFIELD, RT.TC, TC_FIELD.enterSp, 'I'),
      op(OP.DUP),
      load(OP.ISTORE, b.sp0Var),
      load(OP.ISTORE, b.spVar),
    );
  }
  if (!b.leaf) {
    out.push(load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.spVar), b.entryMid(), invoke(cp, OP.INVOKESTATIC, RT.TC, 'push', `(${RT.STACK_DESC}I${RT.MID_DESC})I`), load(OP.ISTORE, b.spVar));
  }
  counter.atEntry();
  // The dispatch check's label must not share an offset with a frame of the original code.
  if (bodyStart !== undefined && out[out.length - 1] === bodyStart) out.push(op(OP.NOP));
}

/** In place, before a return: `tc.exit(stack, sp0)` gives the reified stack back. */
export function emitInPlaceExit(b: Body): void {
  b.out.push(load(OP.ALOAD, b.tcVar), load(OP.ALOAD, b.stackVar), load(OP.ILOAD, b.sp0Var), invoke(b.cp, OP.INVOKEVIRTUAL, RT.TC, 'exit', `(${RT.STACK_DESC}I)V`));
}

/**
 * The guard of an extended method that virtual dispatch may reach although the receiver's class
 * overrides the original method without being instrumented (a class a loader defined at run time,
 * a mock; GUIDE §3 "Call sites"). Such a class inherits the extended method and the synthetic
 * `komorium$class()`, which every instrumented class declares, returning itself; so when
 * `this.komorium$class() != this.getClass()` the receiver's class is not instrumented, and the
 * original method is called virtually (a call-out): the JVM then picks the override, or this
 * class's wrapper, which re-enters here directly. A receiver of exactly this class is tested
 * first, without a virtual call (which costs where the call site is megamorphic). A direct entry
 * (wrapper, super.m()) passes ~sp and skips the check:
 *
 *     iload sp; iflt DIRECT
 *     aload_0; invokevirtual getClass
 *     dup; ldc ThisClass; if_acmpeq EXACT                      (class files >= 49)
 *     aload_0; invokevirtual komorium$class; if_acmpeq BODY
 *     <publish stack> aload_0; <args>; invokevirtual m(A)R; <unpublish>; xreturn
 *   DIRECT: iload sp; iconst_m1; ixor; istore sp; goto BODY
 *   EXACT: pop
 *   BODY: …
 *
 * getClass() is a native call until the JIT compiles the method (about 100 ns interpreted), so
 * it is called once.
 */
function emitDispatchCheck(b: Body): void {
  const { cf, cp, out, method } = b;
  const direct = new Label();
  const exact = new Label();
  const body = new Label();
  const exactCheck = cf.major >= 49; // ldc of a class needs version 49
  out.push(load(OP.ILOAD, b.spVar), { op: OP.IFLT, target: direct }, load(OP.ALOAD, 0), invoke(cp, OP.INVOKEVIRTUAL, 'java/lang/Object', 'getClass', RT.CLASS_METHOD_DESC));
  if (exactCheck) out.push(op(OP.DUP), { op: OP.LDC, cp: cp.classIndex(cf.thisClass) }, { op: OP.IF_ACMPEQ, target: exact });
  out.push(load(OP.ALOAD, 0), invoke(cp, OP.INVOKEVIRTUAL, cf.thisClass, RT.CLASS_METHOD, RT.CLASS_METHOD_DESC), { op: OP.IF_ACMPEQ, target: body });
  if (b.options.callbacks) out.push(...publishStack(b));
  out.push(...loadArgs(method.desc, false), invoke(cp, OP.INVOKEVIRTUAL, cf.thisClass, method.name, method.desc));
  if (b.options.callbacks) out.push(...unpublishStack(b));
  out.push(op(returnOpFor(parseMethodDescriptor(method.desc).ret)), direct, load(OP.ILOAD, b.spVar), op(OP.ICONST_M1), op(OP.IXOR), load(OP.ISTORE, b.spVar));
  if (exactCheck) out.push({ op: OP.GOTO, target: body }, exact, op(OP.POP));
  out.push(body);
  if (b.newFrames) {
    const entry = extendedEntryFrame(cf, method);
    b.newFrames.set(direct, entry);
    if (exactCheck) b.newFrames.set(exact, { locals: entry.locals.slice(), stack: ['Ljava/lang/Class;'] });
    b.newFrames.set(body, { locals: entry.locals.slice(), stack: [] });
  }
}
