/**
 * The bytecode of a basic block named by a profile site (method key and bytecode index), read from
 * the original classes the user gives (`report --classes app.jar`): for kinds whose records are
 * blocks, so that a report can show what a block does and which source lines it covers. The blocks
 * are the framework's (src/analysis/cfg.ts), found again in the same code the instrumenter read.
 */
import { ClassFile } from '../classfile/classfile.js';
import { javaName } from '../classfile/names.js';
import { readCode } from '../bytecode/code-reader.js';
import { isLabel, type Insn, type Label } from '../bytecode/ir.js';
import { buildCfg } from '../analysis/cfg.js';
import { lineOfEachInsn } from '../framework/sites.js';
import { SITES_FIELD } from '../framework/class-transform.js';
import { formatOperands, mnemonic } from '../inspect/listing.js';
import { readInput } from '../jar/index.js';
import { KomoriumError } from '../errors.js';
import type { SiteEntry } from '../profile/document.js';

export interface BlockCode {
  /** `offset: mnemonic operands`, one per instruction. */
  text: string[];
  /** The source lines the block's instructions are on (empty without a LineNumberTable). */
  lines: number[];
}

export type BlockCodeLookup = (site: SiteEntry) => BlockCode | null;

/** A lookup over the classes of the given jars or folders; null for a site whose class is not among them. */
export async function blockCodeFrom(paths: readonly string[]): Promise<BlockCodeLookup> {
  const classes = new Map<string, { data: Uint8Array; from: string }>();
  for (const p of paths) {
    for (const e of (await readInput(p)).entries) {
      if (e.isClass && !e.name.startsWith('META-INF/')) classes.set(e.name.slice(0, -'.class'.length), { data: e.data, from: p });
    }
  }
  const methods = new Map<string, Map<number, BlockCode> | null>();
  return (site) => {
    const m = site.method;
    const key = `${m.className}.${m.name}${m.descriptor}`;
    if (!methods.has(key)) methods.set(key, blocksOf(classes.get(m.className), m.className, m.name, m.descriptor));
    return methods.get(key)?.get(site.bci) ?? null;
  };
}

/** Every reachable block of one method, by the bytecode index of its first instruction. */
function blocksOf(found: { data: Uint8Array; from: string } | undefined, className: string, name: string, desc: string): Map<number, BlockCode> | null {
  if (!found) return null;
  const cf = ClassFile.parse(found.data, `${found.from}!${className}.class`);
  if (cf.fields.some((f) => f.name === SITES_FIELD)) {
    throw new KomoriumError(`${found.from}: class ${javaName(className)} is instrumented: --classes needs the original classes, whose bytecode indices the profile names`);
  }
  const member = cf.methods.find((x) => x.name === name && x.desc === desc);
  const attr = member?.attributes.find((a) => a.name === 'Code');
  if (!member || !attr) return null;
  const code = readCode(cf, member, attr, true);
  const cfg = buildCfg(code);
  const lines = lineOfEachInsn(code);
  // A label's offset is the offset of the instruction it stands before.
  const labelOffset = new Map<Label, number>();
  let pending: Label[] = [];
  for (const n of code.nodes) {
    if (isLabel(n)) pending.push(n);
    else {
      for (const l of pending) labelOffset.set(l, code.offsets!.get(n)!);
      pending = [];
    }
  }
  const labelName = (l: Label) => `${labelOffset.get(l) ?? '?'}`;
  const out = new Map<number, BlockCode>();
  for (const b of cfg.blocks) {
    const insns = b.insns.map((i) => code.nodes[i]!).filter((n): n is Insn => !isLabel(n));
    if (insns.length === 0) continue;
    const text = insns.map((n) => {
      const ops = formatOperands(cf, n, labelName);
      return `${String(code.offsets!.get(n)).padStart(5)}: ${ops === '' ? mnemonic(n) : `${mnemonic(n).padEnd(15)} ${ops}`}`;
    });
    const blockLines = [...new Set(insns.map((n) => lines.get(n) ?? -1).filter((l) => l >= 0))].sort((a, b) => a - b);
    out.set(code.offsets!.get(insns[0]!)!, { text, lines: blockLines });
  }
  return out;
}
