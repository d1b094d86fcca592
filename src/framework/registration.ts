/**
 * The static initializer code that registers a class's methods and sites with the runtime
 * (Sites.forClass) and keeps the first site number in a static final int, which the JIT treats as
 * a constant once the class is initialized.
 */
import type { ConstantPool } from '../classfile/constant-pool.js';
import { javaName } from '../classfile/names.js';
import type { Insn } from '../bytecode/ir.js';
import { OP } from '../bytecode/opcodes.js';
import { field, invoke, pushInt, pushString } from '../bytecode/emit.js';
import type { SiteBase } from './probes.js';
import type { SiteTable } from './sites.js';

const SITES = 'komorium/runtime/Sites';
const STRING = 'Ljava/lang/String;';
/** Characters per ldc: a CONSTANT_Utf8 holds at most 65,535 bytes, and a character takes up to 3. */
const CHUNK = 20_000;

export function registrationCode(
  cp: ConstantPool,
  className: string,
  source: string | null,
  table: SiteTable,
  layout: string,
  base: SiteBase,
): Insn[] {
  return [
    pushString(cp, javaName(className)),
    pushString(cp, source),
    ...longString(cp, table.packedMethods()),
    ...longString(cp, table.packedSites()),
    pushInt(cp, table.rows.length),
    pushString(cp, layout),
    invoke(cp, OP.INVOKESTATIC, SITES, 'forClass', `(${STRING}${STRING}${STRING}${STRING}I${STRING})I`),
    field(cp, OP.PUTSTATIC, base.owner, base.name, 'I'),
  ];
}

/** A string of any length: constants of at most CHUNK characters joined with String.concat. */
function longString(cp: ConstantPool, s: string): Insn[] {
  const out: Insn[] = [pushString(cp, s.slice(0, CHUNK))];
  for (let i = CHUNK; i < s.length; i += CHUNK) {
    out.push(pushString(cp, s.slice(i, i + CHUNK)), invoke(cp, OP.INVOKEVIRTUAL, 'java/lang/String', 'concat', `(${STRING})${STRING}`));
  }
  return out;
}
