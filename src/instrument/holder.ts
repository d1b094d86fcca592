/**
 * Interfaces cannot have private fields, and public ones would show in getFields() of every
 * implementing class, so an interface's method identifiers live in a synthetic holder class
 * beside it, in the same package, with package-private fields. So do a class's when its <clinit>
 * has no room for their initialisation (static finals can be set only there).
 */
import { ClassFile } from '../classfile/classfile.js';
import { ACC } from '../classfile/model.js';
import { encodeMutf8 } from '../classfile/mutf8.js';
import { addMidFields, midInitCode, syntheticClinit, HOLDER_FIELD_ACCESS, type MidEntry } from './members.js';

/** The smallest valid class file: a name, a superclass, nothing else. */
export function minimalClassBytes(name: string, superName: string, major: number, minor: number, access: number): Uint8Array {
  const out: number[] = [];
  const u1 = (v: number) => out.push(v & 0xff);
  const u2 = (v: number) => out.push((v >> 8) & 0xff, v & 0xff);
  const utf8 = (s: string) => {
    const b = encodeMutf8(s);
    u1(1);
    u2(b.length);
    for (const x of b) out.push(x);
  };
  u2(0xcafe);
  u2(0xbabe);
  u2(minor);
  u2(major);
  u2(5);
  utf8(name);
  u1(7);
  u2(1);
  utf8(superName);
  u1(7);
  u2(3);
  u2(access);
  u2(2);
  u2(4);
  u2(0);
  u2(0);
  u2(0);
  u2(0);
  return Uint8Array.from(out);
}

export function buildHolderClass(
  owner: ClassFile,
  holderName: string,
  javaName: string,
  source: string | null,
  mids: MidEntry[],
): Uint8Array {
  const bytes = minimalClassBytes(holderName, 'java/lang/Object', owner.major, owner.minor, ACC.FINAL | ACC.SUPER | ACC.SYNTHETIC);
  const cf = ClassFile.parse(bytes, `${holderName}.class`);
  addMidFields(cf, HOLDER_FIELD_ACCESS, mids);
  cf.methods.push(syntheticClinit(cf, () => midInitCode(cf, holderName, javaName, source, mids)));
  return cf.toBytes();
}
