/**
 * The constant pool entries Komorium's inserted code names in one class, each looked up once: the
 * table pipeline builds every fragment of a class with the indices found here, where the object
 * pipeline finds or adds an entry per instruction it makes. An entry is still added where the
 * object pipeline adds it, the first time a fragment needs it, so both give the same pool.
 */
import type { ConstantPool } from '../../../classfile/constant-pool.js';
import { RT } from '../runtime-names.js';
import { TC_FIELD } from './context.js';

export class BodyRefs {
  private readonly fields = new Map<string, number>();
  private readonly methods = new Map<string, number>();
  private counterRef = 0;
  private outStackRef = 0;
  private outSpRef = 0;

  constructor(readonly cp: ConstantPool) {}

  /** tc.instrCounter, which every piece names (a key per lookup cost more than the rest of a piece). */
  get counter(): number {
    return (this.counterRef ||= this.cp.fieldrefIndex(RT.TC, TC_FIELD.counter, 'I'));
  }

  get outStack(): number {
    return (this.outStackRef ||= this.cp.fieldrefIndex(RT.TC, TC_FIELD.outStack, RT.STACK_DESC));
  }

  get outSp(): number {
    return (this.outSpRef ||= this.cp.fieldrefIndex(RT.TC, TC_FIELD.outSp, 'I'));
  }

  field(owner: string, name: string, desc: string): number {
    const key = `${owner}.${name}:${desc}`;
    let i = this.fields.get(key);
    if (i === undefined) {
      i = this.cp.fieldrefIndex(owner, name, desc);
      this.fields.set(key, i);
    }
    return i;
  }

  /** A Methodref (an InterfaceMethodref with `isInterface`). */
  method(owner: string, name: string, desc: string, isInterface = false): number {
    const key = `${isInterface ? 'I' : 'M'}${owner}.${name}${desc}`;
    let i = this.methods.get(key);
    if (i === undefined) {
      i = isInterface ? this.cp.interfaceMethodrefIndex(owner, name, desc) : this.cp.methodrefIndex(owner, name, desc);
      this.methods.set(key, i);
    }
    return i;
  }
}
