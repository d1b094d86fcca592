/**
 * Komorium's field counter and check (counter.ts, Counter.piece with --counter field, not leaf, no
 * source line) built as a Fragment for the table writer: the first piece of the body passes on the
 * non-object pipeline (docs/non-object-ir.md, step 3). The runtime's members are resolved once per
 * class, when first needed, in the order the object pipeline adds them, so that both give the same
 * constant pool and Code bytes (test/table-writer.test.ts).
 */
import type { ConstantPool } from '../../../classfile/constant-pool.js';
import { Fragment } from '../../../bytecode/fragment.js';
import { OP } from '../../../bytecode/opcodes.js';
import { RT } from '../runtime-names.js';
import { TC_FIELD } from './context.js';

/** The runtime members a class's counters name, and one fragment builder for them. */
export class CounterRefs {
  private counterRef = -1;
  private sampleRef = -1;
  /** Reset per method, once its fragments are written. */
  readonly fragment: Fragment;

  constructor(readonly cp: ConstantPool) {
    this.fragment = new Fragment(cp);
  }

  get counter(): number {
    if (this.counterRef < 0) this.counterRef = this.cp.fieldrefIndex(RT.TC, TC_FIELD.counter, 'I');
    return this.counterRef;
  }

  get sample(): number {
    if (this.sampleRef < 0) this.sampleRef = this.cp.methodrefIndex(RT.TC, 'triggerSampling', `(${RT.STACK_DESC}I)V`);
    return this.sampleRef;
  }
}

/**
 * The counter update of a piece of `n` instructions, with its check when `check`: tc, the stack and
 * its pointer in locals `tc`, `tc + 1`, `tc + 2`. `framed`: the check's skip label needs a frame.
 */
export function counterFragment(refs: CounterRefs, n: number, check: boolean, framed: boolean, tc: number): { bytes: Uint8Array; frames: number[] } {
  const f = refs.fragment;
  f.local(OP.ALOAD, tc).op(OP.DUP).ref(OP.GETFIELD, refs.counter).pushInt(n).op(OP.ISUB);
  if (!check) return f.ref(OP.PUTFIELD, refs.counter).finish();
  const skip = f.label(framed);
  f.op(OP.DUP_X1).ref(OP.PUTFIELD, refs.counter).jump(OP.IFGT, skip);
  f.local(OP.ALOAD, tc).local(OP.ALOAD, tc + 1).local(OP.ILOAD, tc + 2);
  return f.ref(OP.INVOKEVIRTUAL, refs.sample).place(skip).finish();
}
