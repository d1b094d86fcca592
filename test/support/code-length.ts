import type { ClassFile } from '../../src/classfile/classfile.js';
import { codeLength } from '../../src/bytecode/code-writer.js';

/** The code_length of `cf`'s method `name` (of descriptor `desc`, when given); throws when there is none. */
export function methodCodeLength(cf: ClassFile, name: string, desc?: string): number {
  const m = cf.methods.find((x) => x.name === name && (desc === undefined || x.desc === desc));
  if (!m) throw new Error(`${cf.thisClass} has no ${name}${desc ?? ''}`);
  const code = m.attributes.find((a) => a.name === 'Code');
  if (!code) throw new Error(`${cf.thisClass}.${name}${desc ?? ''} has no Code attribute`);
  return codeLength(code);
}
