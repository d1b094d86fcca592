/**
 * Helpers shared by the decoder, the encoder and the frame simulator for verification types
 * (JVMS 4.10.1.2) in the IR's VType form.
 */
import { parseMethodDescriptor } from '../classfile/descriptor.js';
import { ACC } from '../classfile/model.js';
import type { VType } from './ir.js';

/** The verification type of a value of field type `desc` (boolean, byte, char and short are int). */
export function vtypeOfField(desc: string): VType {
  switch (desc.charCodeAt(0)) {
    case 0x5a /* Z */:
    case 0x42 /* B */:
    case 0x43 /* C */:
    case 0x53 /* S */:
    case 0x49 /* I */:
      return 'I';
    default:
      // F, J, D, L…; and [… are their own verification types.
      return desc;
  }
}

/** Object_variable_info's CONSTANT_Class name as a VType: 'Lx/Y;', or an array descriptor as-is. */
export function vtypeOfClassName(name: string): string {
  return name.charCodeAt(0) === 0x5b /* [ */ ? name : `L${name};`;
}

/** The CONSTANT_Class name for an object VType ('Lx/Y;' → 'x/Y', arrays as-is). */
export function classNameOfVType(t: string): string {
  return t.charCodeAt(0) === 0x4c /* L */ ? t.slice(1, -1) : t;
}

export function isCategory2(t: VType): boolean {
  return t === 'J' || t === 'D';
}

/**
 * The locals of the implicit initial frame (JVMS 4.10.1.6), as verification type entries in which
 * a long or double is one entry (the StackMapTable's compressed form).
 */
export function initialLocalEntries(cf: { thisClass: string }, method: { access: number; name: string; desc: string }): VType[] {
  const out: VType[] = [];
  if ((method.access & ACC.STATIC) === 0) {
    out.push(method.name === '<init>' && cf.thisClass !== 'java/lang/Object' ? 'U' : vtypeOfClassName(cf.thisClass));
  }
  for (const a of parseMethodDescriptor(method.desc).args) out.push(vtypeOfField(a));
  return out;
}

/** Entries (long/double as one) → one VType per slot (long/double followed by 'T'). */
export function expandLocals(entries: readonly VType[]): VType[] {
  const out: VType[] = [];
  for (const t of entries) {
    out.push(t);
    if (t === 'J' || t === 'D') out.push('T');
  }
  return out;
}

/**
 * One VType per slot → entries. Throws (a bug in whoever built the frame) when a long or double is
 * followed by anything but 'T'; a long or double in the last slot is accepted as taking two.
 */
export function compressLocals(locals: readonly VType[]): VType[] {
  const out: VType[] = [];
  for (let i = 0; i < locals.length; i++) {
    const t = locals[i]!;
    out.push(t);
    if (t === 'J' || t === 'D') {
      if (i + 1 < locals.length && locals[i + 1] !== 'T') {
        throw new Error(`malformed frame: ${t} in local ${i} is followed by ${describeVType(locals[i + 1]!)}, not T`);
      }
      i++;
    }
  }
  return out;
}

export function describeVType(t: VType): string {
  return typeof t === 'string' ? t : 'uninitialized(new)';
}
