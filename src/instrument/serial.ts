/**
 * Instrumentation adds methods and a <clinit>, which changes the serialVersionUID that Java
 * computes for a Serializable class that does not declare one, and so would break
 * deserialisation of data written by the uninstrumented program (GUIDE §3). Before rewriting,
 * the default value is computed from the original class, as java.io.ObjectStreamClass defines it,
 * and declared explicitly.
 */
import { createHash } from 'node:crypto';
import type { ClassFile } from '../classfile/classfile.js';
import { ACC, type RawAttribute } from '../classfile/model.js';
import { encodeMutf8 } from '../classfile/mutf8.js';
import { javaName } from '../classfile/names.js';

const CLASS_MODS = ACC.PUBLIC | ACC.FINAL | ACC.INTERFACE | ACC.ABSTRACT;
const FIELD_MODS = ACC.PUBLIC | ACC.PRIVATE | ACC.PROTECTED | ACC.STATIC | ACC.FINAL | ACC.VOLATILE | ACC.TRANSIENT;
const METHOD_MODS =
  ACC.PUBLIC | ACC.PRIVATE | ACC.PROTECTED | ACC.STATIC | ACC.FINAL | ACC.SYNCHRONIZED | ACC.NATIVE | ACC.ABSTRACT | ACC.STRICT;

class DataOut {
  private readonly parts: number[] = [];
  utf(s: string): void {
    const b = encodeMutf8(s);
    this.parts.push((b.length >> 8) & 0xff, b.length & 0xff, ...b);
  }
  int(v: number): void {
    this.parts.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** Class.getModifiers() of a member class comes from its own InnerClasses entry. */
function classModifiers(cf: ClassFile): number {
  const a = cf.attributes.find((x) => x.name === 'InnerClasses');
  if (a && a.info.length >= 2) {
    const n = (a.info[0] << 8) | a.info[1];
    for (let i = 0; i < n && 2 + i * 8 + 8 <= a.info.length; i++) {
      const o = 2 + i * 8;
      const inner = (a.info[o] << 8) | a.info[o + 1];
      if (inner !== 0 && cf.cp.className(inner) === cf.thisClass) return (a.info[o + 6] << 8) | a.info[o + 7];
    }
  }
  return cf.access;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function defaultSerialVersionUID(cf: ClassFile): bigint {
  const out = new DataOut();
  out.utf(javaName(cf.thisClass));
  const methods = cf.methods.filter((m) => m.name !== '<init>' && m.name !== '<clinit>');
  let classMods = classModifiers(cf) & CLASS_MODS;
  if ((classMods & ACC.INTERFACE) !== 0) {
    classMods = methods.length > 0 ? classMods | ACC.ABSTRACT : classMods & ~ACC.ABSTRACT;
  }
  out.int(classMods);
  for (const i of cf.interfaces.map((x) => javaName(x)).sort(byString)) out.utf(i);
  for (const f of [...cf.fields].sort((a, b) => byString(a.name, b.name))) {
    const mods = f.access & FIELD_MODS;
    if ((mods & ACC.PRIVATE) === 0 || (mods & (ACC.STATIC | ACC.TRANSIENT)) === 0) {
      out.utf(f.name);
      out.int(mods);
      out.utf(f.desc);
    }
  }
  if (cf.methods.some((m) => m.name === '<clinit>')) {
    out.utf('<clinit>');
    out.int(ACC.STATIC);
    out.utf('()V');
  }
  const ctors = cf.methods.filter((m) => m.name === '<init>').sort((a, b) => byString(a.desc, b.desc));
  for (const c of ctors) {
    const mods = c.access & METHOD_MODS;
    if ((mods & ACC.PRIVATE) === 0) {
      out.utf('<init>');
      out.int(mods);
      out.utf(javaName(c.desc));
    }
  }
  for (const m of methods.sort((a, b) => byString(a.name, b.name) || byString(a.desc, b.desc))) {
    const mods = m.access & METHOD_MODS;
    if ((mods & ACC.PRIVATE) === 0) {
      out.utf(m.name);
      out.int(mods);
      out.utf(javaName(m.desc));
    }
  }
  const sha = createHash('sha1').update(out.bytes()).digest();
  let hash = 0n;
  for (let i = 7; i >= 0; i--) hash = (hash << 8n) | BigInt(sha[i]);
  return BigInt.asIntN(64, hash);
}

/**
 * Declares `private static final long serialVersionUID` with the default value when the class is
 * Serializable (asked through `isSerializable`, which needs the hierarchy), not an enum or record,
 * and declares none. Returns the value added, or null.
 */
export function addSerialVersionUID(cf: ClassFile, isSerializable: () => boolean): bigint | null {
  if ((cf.access & (ACC.INTERFACE | ACC.ENUM)) !== 0) return null;
  if (cf.superClass === 'java/lang/Record' || cf.superClass === 'java/lang/Enum') return null;
  if (cf.fields.some((f) => f.name === 'serialVersionUID')) return null;
  if (!isSerializable()) return null;
  const value = defaultSerialVersionUID(cf);
  const index = cf.cp.longIndex(value);
  const info = Uint8Array.of((index >> 8) & 0xff, index & 0xff);
  const constantValue: RawAttribute = { nameIndex: cf.cp.utf8Index('ConstantValue'), name: 'ConstantValue', info };
  cf.fields.push(cf.newMember(ACC.PRIVATE | ACC.STATIC | ACC.FINAL | ACC.SYNTHETIC, 'serialVersionUID', 'J', [constantValue]));
  return value;
}
