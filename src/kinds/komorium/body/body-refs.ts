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
  private readonly fields: Refs = new Map();
  private readonly methods: Refs = new Map();
  private readonly interfaceMethods: Refs = new Map();
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

  /** A Fieldref that fragments of this class name more than once. */
  field(owner: string, name: string, desc: string): number {
    return lookup(this.fields, owner, name, desc, () => this.cp.fieldrefIndex(owner, name, desc));
  }

  /**
   * A Methodref (an InterfaceMethodref with `isInterface`) that fragments of this class name more
   * than once; one named once (a wrapper's extended method) is found in the pool directly.
   */
  method(owner: string, name: string, desc: string, isInterface = false): number {
    return lookup(isInterface ? this.interfaceMethods : this.methods, owner, name, desc, () => this.cp.methodIndex(owner, name, desc, isInterface));
  }
}

type Refs = Map<string, Map<string, Map<string, number>>>;

/**
 * refs[owner][name][desc], made by `make` the first time. Nested maps rather than one keyed by
 * `owner.name:desc`: a key built per lookup had to be hashed whole each time, which made this
 * lookup cost more than the pool's own (54 ms of a cold guava run).
 */
function lookup(refs: Refs, owner: string, name: string, desc: string, make: () => number): number {
  let byName = refs.get(owner);
  if (byName === undefined) refs.set(owner, (byName = new Map()));
  let byDesc = byName.get(name);
  if (byDesc === undefined) byName.set(name, (byDesc = new Map()));
  let i = byDesc.get(desc);
  if (i === undefined) byDesc.set(desc, (i = make()));
  return i;
}
