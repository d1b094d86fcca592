// The code table (src/bytecode/code-table.ts) and the blocks on it (src/analysis/table-blocks.ts)
// against the object IR that the pipeline uses today, on every method of real jars: the same
// instructions, the same targets and the same blocks. And bad code: a ClassFormatError that names
// the class and method, as the object reader gives.
import { describe, expect, it } from 'vitest';
import { ClassFile, findAttribute } from '../src/classfile/classfile.js';
import { ClassFormatError } from '../src/errors.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { CodeTable } from '../src/bytecode/code-table.js';
import { branchTargets, isLabel, type Insn, type MethodCode } from '../src/bytecode/ir.js';
import { Fmt, OP, OPCODE_FORMATS, implicitVarBase } from '../src/bytecode/opcodes.js';
import { computeBlocks } from '../src/analysis/blocks.js';
import { TableBlocks } from '../src/analysis/table-blocks.js';
import { TableLoops } from '../src/analysis/table-loops.js';
import { findLoops } from '../src/analysis/loops.js';
import { placeChecks } from '../src/analysis/checks.js';
import { computePieces } from '../src/kinds/komorium/pieces.js';

const decodeCode = (info: Uint8Array, entry: string, method: string): CodeTable => new CodeTable().decode(info, entry, method);
const tableBlocks = (t: CodeTable): { starts: Int32Array; blockOf: Int32Array } => {
  const b = new TableBlocks().compute(t);
  return { starts: b.starts.subarray(0, b.count), blockOf: b.blockOf.subarray(0, t.n) };
};
import { ZipIndex } from '../src/jar/zip-index.js';
import { debianJar, type DebianJarName } from './support/corpus.js';
import type { MemberInfo, RawAttribute } from '../src/classfile/model.js';

interface MethodUnit {
  name: string;
  cf: ClassFile;
  method: MemberInfo;
  attr: RawAttribute;
  /** name + descriptor */
  id: string;
}

/** Every method with code of a Debian jar. */
function* methodsOf(jar: DebianJarName): Generator<MethodUnit> {
  const zip = new ZipIndex(debianJar(jar));
  try {
    for (const name of zip.entries.keys()) {
      if (!name.endsWith('.class') || name.startsWith('META-INF/')) continue;
      const cf = ClassFile.parse(zip.read(name)!, name);
      for (const method of cf.methods) {
        const attr = findAttribute(method.attributes, 'Code');
        if (attr !== undefined) yield { name, cf, method, attr, id: `${method.name}${method.desc}` };
      }
    }
  } finally {
    zip.close();
  }
}

const SHORT_FORM: Record<number, number> = { [OP.LDC_W]: OP.LDC, [OP.GOTO_W]: OP.GOTO, [OP.JSR_W]: OP.JSR };

/** The first difference between the table and the object IR of one method, or null. */
function difference(t: CodeTable, code: MethodCode): string | null {
  const ordinal = new Map<number, number>();
  const insns: Insn[] = [];
  code.nodes.forEach((node, i) => {
    if (isLabel(node)) return;
    ordinal.set(i, insns.length);
    insns.push(node);
  });
  if (t.n !== insns.length) return `${t.n} instructions in the table, ${insns.length} in the IR`;
  // A label's instruction: the first instruction at or after it.
  const insnAtLabel = new Map<unknown, number>();
  let next = insns.length;
  for (let i = code.nodes.length - 1; i >= 0; i--) {
    const node = code.nodes[i]!;
    if (isLabel(node)) insnAtLabel.set(node, next);
    else next = ordinal.get(i)!;
  }
  for (let i = 0; i < t.n; i++) {
    const insn = insns[i]!;
    // The IR reads iload_0 … astore_3, ldc_w, goto_w and jsr_w as their short forms (`form` keeps the original).
    const read = t.op[i]!;
    const op = OPCODE_FORMATS[read] === Fmt.VAR_IMPLICIT ? implicitVarBase(read) : (SHORT_FORM[read] ?? read);
    if (op !== OP.WIDE && op !== insn.op) return `instruction ${i}: opcode ${t.op[i]} in the table, ${insn.op} in the IR`;
    const targets = branchTargets(insn).map((l) => insnAtLabel.get(l)!);
    const mine: number[] = [];
    if (t.target[i]! >= 0) mine.push(t.target[i]!);
    const s = t.switchAt[i]!;
    if (s >= 0) for (let k = s; k < s + t.switchCount[i]!; k++) mine.push(t.switchTargets[k]!);
    if (mine.join() !== targets.join()) return `instruction ${i}: targets ${mine} in the table, ${targets} in the IR`;
  }
  const handlers = code.tryCatch.flatMap((tc) => [insnAtLabel.get(tc.start)!, insnAtLabel.get(tc.end)!, insnAtLabel.get(tc.handler)!]);
  const mine = Array.from({ length: t.nHandlers }, (_, k) => [t.handlers[4 * k]!, t.handlers[4 * k + 1]!, t.handlers[4 * k + 2]!]).flat();
  if (mine.join() !== handlers.join()) return `exception table ${mine} in the table, ${handlers} in the IR`;
  const blocks = computeBlocks(code);
  const starts = blocks.map((b) => ordinal.get(b.firstInsn)!);
  const tableStarts = [...tableBlocks(t).starts];
  if (tableStarts.join() !== starts.join()) return `blocks start at ${tableStarts} in the table, ${starts} in the IR`;
  return loopDifference(t, findLoops(blocks));
}

function loopDifference(t: CodeTable, want: ReturnType<typeof findLoops>): string | null {
  const got = new TableLoops().compute(t, new TableBlocks().compute(t));
  const n = got.n;
  const headers = [...want.headers].sort((a, b) => a - b).join();
  const mine = Array.from({ length: n }, (_, b) => b).filter((b) => got.isHeader[b]).join();
  if (mine !== headers) return `loop headers ${mine} in the table, ${headers} in the IR`;
  if ([...got.idom.subarray(0, n)].join() !== [...want.idom].join()) return `dominators ${got.idom.subarray(0, n)} in the table, ${want.idom} in the IR`;
  if ([...got.reachable.subarray(0, n)].map(Boolean).join() !== want.reachable.join()) return 'reachable blocks differ';
  if (got.backEdges.join() !== want.backEdges.flat().join()) return `back edges ${got.backEdges} in the table, ${want.backEdges.flat()} in the IR`;
  if (got.irreducibleEdges.join() !== want.irreducibleEdges.flat().join()) {
    return `irreducible edges ${got.irreducibleEdges} in the table, ${want.irreducibleEdges.flat()} in the IR`;
  }
  return null;
}

describe('the code table against the object IR', () => {
  it.each(['guava', 'commons-lang3', 'ecj', 'rhino'] as const)('every method of %s: same instructions, targets, exception table, blocks and loops', (jar) => {
    let methods = 0;
    let blocks = 0;
    const wrong: string[] = [];
    for (const { name, cf, method, attr, id } of methodsOf(jar)) {
      const t = decodeCode(attr.info, name, id);
      const d = difference(t, readCode(cf, method, attr));
      if (d !== null && wrong.length < 5) wrong.push(`${name} ${id}: ${d}`);
      methods++;
      blocks += tableBlocks(t).starts.length;
    }
    expect(wrong).toEqual([]);
    console.log(`${jar}: ${methods} methods, ${blocks} blocks, table = object IR`);
    expect(methods).toBeGreaterThan(1000);
  });
});

/** A Code attribute body: max_stack 2, max_locals 1, the code, an exception table, no attributes. */
function body(code: number[], exc: number[][] = []): Uint8Array {
  const len = code.length;
  const head = [0, 2, 0, 1, len >>> 24, (len >>> 16) & 255, (len >>> 8) & 255, len & 255];
  const table = [exc.length >>> 8, exc.length & 255, ...exc.flatMap((e) => e.flatMap((v) => [v >>> 8, v & 255]))];
  return Uint8Array.from([...head, ...code, ...table, 0, 0]);
}

/** Komorium's pieces as the object IR finds them: blocks split at MaxPath, their loops, their checks. */
function objectPieces(code: MethodCode, options: { checks: 'all' | 'optimized'; maxPath: number }): string {
  const blocks = computeBlocks(code, { maxPath: options.maxPath });
  const checks = placeChecks(blocks, findLoops(blocks).headers, { maxPath: options.maxPath, mode: options.checks });
  return blocks.map((b) => `${b.firstInsn}+${b.insnCount}${checks.has(b.index) ? '!' : ''}`).join(' ');
}

describe('Komorium\'s pieces from the table (what instrument uses) against the object IR', () => {
  const settings = [
    { checks: 'optimized', maxPath: 50 },
    { checks: 'optimized', maxPath: 8 },
    { checks: 'optimized', maxPath: 0 },
    { checks: 'all', maxPath: 50 },
  ] as const;
  it.each(['guava', 'ecj', 'rhino'] as const)('every method of %s, MaxPath 50, 8 and 0, checks optimized and all: same pieces and checks', (jar) => {
    const wrong: string[] = [];
    let methods = 0;
    let checked = 0;
    for (const { name, cf, method, attr, id } of methodsOf(jar)) {
      const code = readCode(cf, method, attr);
      methods++;
      for (const o of settings) {
        const got = computePieces(code, attr.info, name, id, o);
        checked += got.filter((p) => p.check).length;
        const mine = got.map((p) => `${p.firstInsn}+${p.insnCount}${p.check ? '!' : ''}`).join(' ');
        const want = objectPieces(code, o);
        if (mine !== want && wrong.length < 5) wrong.push(`${name} ${id} ${JSON.stringify(o)}: ${mine} in the table, ${want} in the IR`);
      }
    }
    expect(wrong).toEqual([]);
    console.log(`${jar}: ${methods} methods × ${settings.length} settings, ${checked} checks, table = object IR`);
  });
});

describe('blocks on the table where javac has no example', () => {
  it('a handler that follows an instruction that does not end a block starts one', () => {
    const t = decodeCode(body([OP.NOP, OP.NOP, OP.RETURN], [[0, 1, 1, 0]]), 'p/C.class', 'm()V');
    expect([...tableBlocks(t).starts]).toEqual([0, 1]);
    expect([...tableBlocks(t).blockOf]).toEqual([0, 1, 1]);
  });

  it('wide ret ends a block; a switch starts one at each target', () => {
    // 0: iconst_0; 1: tableswitch (pad to 4) default → 28, 0..1 → 28, 29; 28: nop; 29: wide ret 1
    const t = decodeCode(
      body([OP.ICONST_0, OP.TABLESWITCH, 0, 0, 0, 0, 0, 27, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 27, 0, 0, 0, 28, OP.NOP, OP.NOP, OP.NOP, OP.NOP, OP.NOP, OP.WIDE, OP.RET, 0, 1, OP.RETURN]),
      'p/C.class',
      'm()V',
    );
    expect([...t.pc.subarray(0, t.n)]).toEqual([0, 1, 24, 25, 26, 27, 28, 29, 33]);
    expect([...tableBlocks(t).starts]).toEqual([0, 2, 6, 7, 8]);
  });

  it('an irreducible cycle (entered at both ends, as javac never writes): the retreating edge\'s target is a header', () => {
    // 0: iconst_0; 1: ifeq 8; 4: nop; 5: goto 8; 8: nop; 9: goto 4. Blocks 0 → {B, A}, A → B, B → A.
    const t = decodeCode(body([OP.ICONST_0, OP.IFEQ, 0, 7, OP.NOP, OP.GOTO, 0, 3, OP.NOP, OP.GOTO, 0xff, 0xfb]), 'p/C.class', 'm()V');
    const loops = new TableLoops().compute(t, new TableBlocks().compute(t));
    expect([...loops.succ.subarray(0, loops.succStart[3])]).toEqual([2, 1, 2, 1]);
    expect([...loops.idom.subarray(0, 3)]).toEqual([-1, 0, 0]);
    expect(loops.backEdges).toEqual([]);
    expect(loops.irreducibleEdges).toEqual([1, 2]);
    expect([...loops.isHeader.subarray(0, 3)]).toEqual([0, 0, 1]);
  });
});

describe('bad code: ClassFormatError naming the class and method', () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ['an unknown opcode', body([0xcb, OP.RETURN]), /unknown opcode 203 at 0/],
    ['a branch into the middle of an instruction', body([OP.GOTO, 0, 2, OP.RETURN]), /goto at 0 jumps to 2, into the middle of an instruction/],
    ['a branch outside the code', body([OP.GOTO, 0, 9, OP.RETURN]), /goto at 0 jumps to 9, outside the code/],
    ['an operand past the end', body([OP.SIPUSH, 0]), /sipush at 0 runs past the end of the code/],
    ['wide before an opcode with no wide form', body([OP.WIDE, OP.NOP, 0, 0, OP.RETURN]), /wide at 0 prefixes nop/],
    ['an empty exception range', body([OP.NOP, OP.RETURN], [[1, 1, 0, 0]]), /end_pc 1 is not after start_pc 1/],
    ['a handler inside an instruction', body([OP.SIPUSH, 0, 1, OP.RETURN], [[0, 3, 1, 0]]), /handler_pc 1 is not at the start of an instruction/],
    ['a truncated attribute', body([OP.RETURN]).subarray(0, 10), /truncated in exception_table_length/],
  ];
  it.each(cases)('%s', (_what, info, message) => {
    let error: unknown;
    try {
      decodeCode(info, 'p/C.class', 'm()V');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ClassFormatError);
    expect(String((error as Error).message)).toMatch(/p\/C\.class/);
    expect(String((error as Error).message)).toMatch(/method m\(\)V: /);
    expect(String((error as Error).message)).toMatch(message);
  });
});
