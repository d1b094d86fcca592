/**
 * A call site that passes the reified stack (calls.ts, CallSites.rewrite for an extended call, field
 * counter) on the non-object pipeline (docs/non-object-ir.md, step 3): the three extra arguments as
 * a fragment before the invoke, and the invoke written again for the extended callee. Each callee's
 * extended method reference is made once per class, where the object pipeline looks it up at every
 * call site; the first is made where the object pipeline makes it, so both give the same pool.
 */
import type { ConstantPool } from '../../../classfile/constant-pool.js';
import type { Fragment } from '../../../bytecode/fragment.js';
import { OP } from '../../../bytecode/opcodes.js';
import { extendDescriptor, extendedName } from '../runtime-names.js';

const NOT_YET = -1;
const CONSTRUCTOR = -2;

/** The extended method reference of each method reference a class's calls name. */
export class ExtendedRefs {
  private readonly byRef = new Map<number, number>();

  constructor(readonly cp: ConstantPool) {}

  /** The Methodref or InterfaceMethodref of the extended method of method reference `ref`. */
  of(ref: number): number {
    let e = this.byRef.get(ref);
    if (e === undefined || e < 0) {
      const r = this.cp.memberRef(ref);
      const name = extendedName(r.name);
      const desc = extendDescriptor(r.desc);
      e = this.cp.methodIndex(r.owner, name, desc, r.isInterface);
      this.byRef.set(ref, e);
    }
    return e;
  }

  /** Whether method reference `ref` names a method, not a constructor (which has no extended name). */
  isMethod(ref: number): boolean {
    const e = this.byRef.get(ref);
    if (e !== undefined) return e !== CONSTRUCTOR;
    const method = this.cp.memberRef(ref).name !== '<init>';
    // Known, but not made yet: `of` makes it when a call needs it, where the object pipeline would.
    this.byRef.set(ref, method ? NOT_YET : CONSTRUCTOR);
    return method;
  }
}

/** The thread context, the stack and its pointer (locals tc … tc + 2), the extended callee's last arguments. */
export function extraArguments(f: Fragment, tc: number): { bytes: Uint8Array; frames: number[] } {
  return f.local(OP.ALOAD, tc).local(OP.ALOAD, tc + 1).local(OP.ILOAD, tc + 2).finish();
}

/**
 * Invoke `op` of method reference `ref` as a call of its extended method: an invokeinterface's
 * count of argument words (`count` as read) grows by the three arguments.
 */
export function extendedInvoke(refs: ExtendedRefs, f: Fragment, op: number, ref: number, count: number): Uint8Array {
  const e = refs.of(ref);
  return (op === OP.INVOKEINTERFACE ? f.invokeInterface(e, count + 3) : f.ref(op, e)).finish().bytes;
}
