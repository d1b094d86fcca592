/**
 * A javap-like text listing of a class: header, fields, methods with their flags and, for each
 * method with code, its instructions (offsets, labels, operands resolved through the constant
 * pool), exception table, line numbers, local variables and stack map frames (shown at the labels
 * they belong to). Offsets come from the encoder's layout, so the listing of transformed code shows
 * where each instruction will be written.
 */
import type { ClassFile } from '../classfile/classfile.js';
import { ACC, CONSTANT, type MemberInfo } from '../classfile/model.js';
import { readCode } from '../bytecode/code-reader.js';
import { iincForm, layoutCode, varForm, type CodeLayout } from '../bytecode/code-writer.js';
import { isLabel, type Frame, type Insn, type Label, type MethodCode, type VType } from '../bytecode/ir.js';
import { NEWARRAY_TYPES, OP, OPCODE_NAMES, implicitVarOpcode, invertCondition } from '../bytecode/opcodes.js';
import { KomoriumError } from '../errors.js';

/** A basic block as node indices of MethodCode.nodes (end exclusive), e.g. from src/analysis/blocks.ts. */
export interface ListingBlock {
  start: number;
  end: number;
  insnCount: number;
}

export interface ListingOptions {
  /** Basic blocks to mark in each method's instruction list. */
  blocks?: (code: MethodCode, method: MemberInfo) => ListingBlock[];
  /** Which methods to list (default: all). */
  methods?: (m: MemberInfo) => boolean;
  /** Show the frames at their labels (default true). */
  frames?: boolean;
  /** Show LineNumberTable / LocalVariableTable sections (default true). */
  debugTables?: boolean;
}

const CLASS_FLAGS: [number, string][] = [
  [ACC.PUBLIC, 'public'], [ACC.FINAL, 'final'], [ACC.ABSTRACT, 'abstract'], [ACC.SYNTHETIC, 'synthetic'],
  [ACC.ANNOTATION, 'annotation'], [ACC.ENUM, 'enum'], [ACC.MODULE, 'module'],
];
const FIELD_FLAGS: [number, string][] = [
  [ACC.PUBLIC, 'public'], [ACC.PRIVATE, 'private'], [ACC.PROTECTED, 'protected'], [ACC.STATIC, 'static'],
  [ACC.FINAL, 'final'], [ACC.VOLATILE, 'volatile'], [ACC.TRANSIENT, 'transient'], [ACC.SYNTHETIC, 'synthetic'],
  [ACC.ENUM, 'enum'],
];
const METHOD_FLAGS: [number, string][] = [
  [ACC.PUBLIC, 'public'], [ACC.PRIVATE, 'private'], [ACC.PROTECTED, 'protected'], [ACC.STATIC, 'static'],
  [ACC.FINAL, 'final'], [ACC.SYNCHRONIZED, 'synchronized'], [ACC.BRIDGE, 'bridge'], [ACC.VARARGS, 'varargs'],
  [ACC.NATIVE, 'native'], [ACC.ABSTRACT, 'abstract'], [ACC.STRICT, 'strictfp'], [ACC.SYNTHETIC, 'synthetic'],
];

function flags(access: number, table: [number, string][]): string {
  const words = table.filter(([bit]) => (access & bit) !== 0).map(([, w]) => w);
  return words.length > 0 ? words.join(' ') + ' ' : '';
}

const REF_KINDS = ['', 'getField', 'getStatic', 'putField', 'putStatic', 'invokeVirtual', 'invokeStatic', 'invokeSpecial', 'newInvokeSpecial', 'invokeInterface'];

/** A constant-pool entry as an ldc operand or bootstrap argument. */
export function formatConstant(cf: ClassFile, index: number): string {
  const cp = cf.cp;
  switch (cp.tag(index)) {
    case CONSTANT.String:
      return JSON.stringify(cp.string(index));
    case CONSTANT.Integer:
      return String(cp.integer(index));
    case CONSTANT.Float:
      return `${cp.float(index)}f`;
    case CONSTANT.Long:
      return `${cp.long(index)}L`;
    case CONSTANT.Double:
      return `${cp.double(index)}d`;
    case CONSTANT.Class:
      return `class ${cp.className(index)}`;
    case CONSTANT.MethodType:
      return `methodtype ${cp.methodType(index)}`;
    case CONSTANT.MethodHandle: {
      const h = cp.methodHandle(index);
      const sep = h.kind <= 4 ? ':' : '';
      return `methodhandle ${REF_KINDS[h.kind]} ${h.ref.owner}.${h.ref.name}${sep}${h.ref.desc}`;
    }
    case CONSTANT.Dynamic: {
      const d = cp.dynamic(index);
      return `dynamic #${d.bsm}:${d.name}:${d.desc}`;
    }
    default:
      return `#${index}`;
  }
}

function formatVType(t: VType, layout: CodeLayout): string {
  if (typeof t === 'string') return t;
  return `uninitialized(@${layout.insnOffsets.get(t) ?? '?'})`;
}

export function formatFrame(f: Frame, layout: CodeLayout): string {
  return `locals=[${f.locals.map((t) => formatVType(t, layout)).join(', ')}] stack=[${f.stack.map((t) => formatVType(t, layout)).join(', ')}]`;
}

/** The mnemonic an instruction is written with (iload_0, wide iload, goto_w, ldc_w …), as the encoder chooses it. */
export function mnemonic(insn: Insn): string {
  const op = insn.op;
  const base = OPCODE_NAMES[op] || `op${op}`;
  if (op === OP.IINC) return iincForm(insn.var!, insn.inc!, insn.form) === OP.WIDE ? 'wide iinc' : base;
  if (insn.var !== undefined) {
    const e = varForm(op, insn.var, insn.form);
    return e === OP.WIDE ? `wide ${base}` : e === op ? base : OPCODE_NAMES[e]!;
  }
  if (op === OP.LDC && (insn.form === OP.LDC_W || insn.cp! > 255)) return 'ldc_w';
  if (op === OP.GOTO && insn.form === OP.GOTO_W) return 'goto_w';
  if (op === OP.JSR && insn.form === OP.JSR_W) return 'jsr_w';
  return base;
}

/** Instruction operands, resolved through the constant pool. */
export function formatOperands(cf: ClassFile, insn: Insn, name: (l: Label) => string): string {
  const cp = cf.cp;
  const op = insn.op;
  switch (op) {
    case OP.BIPUSH:
    case OP.SIPUSH:
      return String(insn.n);
    case OP.NEWARRAY:
      return { Z: 'boolean', C: 'char', F: 'float', D: 'double', B: 'byte', S: 'short', I: 'int', J: 'long' }[NEWARRAY_TYPES[insn.n!] ?? 'I'] ?? String(insn.n);
    case OP.IINC:
      return `${insn.var}, ${insn.inc}`;
    case OP.LDC:
    case OP.LDC_W:
    case OP.LDC2_W:
      return formatConstant(cf, insn.cp!);
    case OP.GETSTATIC:
    case OP.PUTSTATIC:
    case OP.GETFIELD:
    case OP.PUTFIELD: {
      const r = cp.memberRef(insn.cp!);
      return `${r.owner}.${r.name}:${r.desc}`;
    }
    case OP.INVOKEVIRTUAL:
    case OP.INVOKESPECIAL:
    case OP.INVOKESTATIC:
    case OP.INVOKEINTERFACE: {
      const r = cp.memberRef(insn.cp!);
      return `${r.owner}.${r.name}${r.desc}${r.isInterface && op !== OP.INVOKEINTERFACE ? ' (interface)' : ''}`;
    }
    case OP.INVOKEDYNAMIC: {
      const d = cp.dynamic(insn.cp!);
      return `#${d.bsm}:${d.name}${d.desc}`;
    }
    case OP.NEW:
    case OP.ANEWARRAY:
    case OP.CHECKCAST:
    case OP.INSTANCEOF:
      return cp.className(insn.cp!);
    case OP.MULTIANEWARRAY:
      return `${cp.className(insn.cp!)} ${insn.n}`;
    default:
      if (insn.target !== undefined) return name(insn.target);
      // Locals are shown unless the opcode carries them (iload_0 …).
      if (insn.var !== undefined && implicitVarOpcode(op, insn.var) !== varForm(op, insn.var, insn.form)) return String(insn.var);
      return '';
  }
}

function readU2(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}

/** The whole class. */
export function listClass(cf: ClassFile, options: ListingOptions = {}): string {
  const out: string[] = [];
  const sf = cf.attributes.find((a) => a.name === 'SourceFile');
  if (sf !== undefined && sf.info.length === 2) {
    try {
      out.push(`// source: ${cf.cp.utf8(readU2(sf.info, 0))}`);
    } catch {
      // an unreadable SourceFile is just not shown
    }
  }
  out.push(`// class version ${cf.major}.${cf.minor}`);
  const isInterface = (cf.access & ACC.INTERFACE) !== 0;
  const kind = isInterface ? 'interface ' : 'class ';
  const classFlags = flags(cf.access & ~(isInterface ? ACC.ABSTRACT : 0), CLASS_FLAGS);
  let header = `${classFlags}${(cf.access & ACC.MODULE) !== 0 ? '' : kind}${cf.thisClass}`;
  if (cf.superClass !== null) header += ` extends ${cf.superClass}`;
  if (cf.interfaces.length > 0) header += ` implements ${cf.interfaces.join(', ')}`;
  out.push(`${header} (flags 0x${cf.access.toString(16).padStart(4, '0')})`);
  out.push('');
  for (const f of cf.fields) out.push(`  ${flags(f.access, FIELD_FLAGS)}${f.name} ${f.desc}`);
  if (cf.fields.length > 0) out.push('');
  for (const m of cf.methods) {
    if (options.methods !== undefined && !options.methods(m)) continue;
    out.push(listMethod(cf, m, options));
  }
  return out.join('\n') + '\n';
}

/** One method: its signature line and, when it has code, the code and its tables. */
export function listMethod(cf: ClassFile, m: MemberInfo, options: ListingOptions = {}): string {
  const out: string[] = [];
  out.push(`  ${flags(m.access, METHOD_FLAGS)}${m.name}${m.desc} (flags 0x${m.access.toString(16).padStart(4, '0')})`);
  const attr = m.attributes.find((a) => a.name === 'Code');
  if (attr === undefined) {
    out.push('');
    return out.join('\n');
  }
  let code: MethodCode;
  let layout: CodeLayout;
  try {
    code = readCode(cf, m, attr);
    layout = layoutCode(cf, m, code);
  } catch (e) {
    if (!(e instanceof KomoriumError)) throw e;
    out.push(`    Code: unreadable: ${e.message}`, '');
    return out.join('\n');
  }
  out.push(...listCode(cf, m, code, layout, options), '');
  return out.join('\n');
}

/** The code section for already decoded (possibly transformed) code. */
export function listCode(cf: ClassFile, m: MemberInfo, code: MethodCode, layout: CodeLayout = layoutCode(cf, m, code), options: ListingOptions = {}): string[] {
  const out: string[] = [];
  const showFrames = options.frames ?? true;
  const names = new Map<Label, string>();
  for (const n of code.nodes) if (isLabel(n)) names.set(n, `L${names.size}`);
  const name = (l: Label): string => `${names.get(l) ?? `L?${l.id}`} (@${l.offset})`;
  const lines = new Map<Label, number[]>();
  for (const s of code.attributes) {
    if (s.kind !== 'LineNumberTable') continue;
    for (const e of s.entries) lines.set(e.start, [...(lines.get(e.start) ?? []), e.line]);
  }
  const blockAt = new Map<number, { index: number; b: ListingBlock }>();
  if (options.blocks !== undefined) options.blocks(code, m).forEach((b, index) => blockAt.set(b.start, { index, b }));

  out.push(`    Code: max_stack=${code.maxStack} max_locals=${code.maxLocals} code_length=${layout.codeLength}`);
  code.nodes.forEach((n, i) => {
    const blk = blockAt.get(i);
    if (blk !== undefined) out.push(`      -- block ${blk.index}: nodes ${blk.b.start}..${blk.b.end - 1}, ${blk.b.insnCount} instructions`);
    if (isLabel(n)) {
      const notes: string[] = [];
      const ls = lines.get(n);
      if (ls !== undefined) notes.push(`line ${ls.join(', ')}`);
      const f = code.frames?.get(n);
      if (showFrames && f !== undefined) notes.push(`frame ${formatFrame(f, layout)}`);
      out.push(`    ${names.get(n)}:${notes.length > 0 ? '  // ' + notes.join('; ') : ''}`);
      return;
    }
    const offset = layout.insnOffsets.get(n);
    const widened = layout.widened.has(n);
    let text = mnemonic(n);
    const ops = formatOperands(cf, n, name);
    if (ops !== '') text = `${text.padEnd(15)} ${ops}`;
    if (widened) text += `  // widened: ${OPCODE_NAMES[invertCondition(n.op)]} +8; goto_w`;
    out.push(`    ${String(offset).padStart(6)}: ${text}`);
    if (n.op === OP.TABLESWITCH) {
      n.targets!.forEach((t, k) => out.push(`              ${String(n.low! + k).padStart(11)}: ${name(t)}`));
      out.push(`              ${'default'.padStart(11)}: ${name(n.dflt!)}`);
    } else if (n.op === OP.LOOKUPSWITCH) {
      (n.keys ?? []).forEach((key, k) => out.push(`              ${String(key).padStart(11)}: ${name(n.targets![k]!)}`));
      out.push(`              ${'default'.padStart(11)}: ${name(n.dflt!)}`);
    }
  });
  if (code.tryCatch.length > 0) {
    out.push('    Exception table:');
    for (const tc of code.tryCatch) {
      out.push(`      ${name(tc.start)} .. ${name(tc.end)} -> ${name(tc.handler)}  ${tc.catchType ?? 'any'}`);
    }
  }
  if (options.debugTables ?? true) {
    for (const s of code.attributes) {
      if (s.kind === 'LineNumberTable') {
        out.push('    LineNumberTable:');
        for (const e of s.entries) out.push(`      line ${e.line}: ${e.start.offset}`);
      } else if (s.kind === 'LocalVariableTable' || s.kind === 'LocalVariableTypeTable') {
        out.push(`    ${s.kind}:`);
        for (const e of s.entries) {
          let nm = `#${e.nameIndex}`;
          let ds = `#${e.descIndex}`;
          try {
            nm = cf.cp.utf8(e.nameIndex);
            ds = cf.cp.utf8(e.descIndex);
          } catch {
            // show indices when the names are unreadable
          }
          out.push(`      slot ${e.index} ${nm} ${ds}  ${e.start.offset}..${e.end.offset}`);
        }
      } else if (s.kind === 'RuntimeVisibleTypeAnnotations' || s.kind === 'RuntimeInvisibleTypeAnnotations') {
        out.push(`    ${s.kind}: ${s.annotations.length}`);
      } else if (s.kind === 'raw') {
        out.push(`    ${s.attribute.name}: ${s.attribute.info.length} bytes`);
      }
    }
  }
  if (code.frames !== null) out.push(`    StackMapTable: ${code.frames.size} frames`);
  return out;
}
