/**
 * Interfaces cannot have private fields, and public ones would show in getFields() of every
 * implementing class, so an interface's method identifiers live in a synthetic holder class
 * beside it, in the same package, with package-private fields. So do a class's when its <clinit>
 * has no room for their initialisation (static finals can be set only there).
 */
import { ClassFile } from '../../classfile/classfile.js';
import { ACC } from '../../classfile/model.js';
import { minimalClassBytes } from '../../classfile/minimal.js';
import { addMidFields, midInitCode, syntheticClinit, HOLDER_FIELD_ACCESS, type MidEntry } from './members.js';

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
