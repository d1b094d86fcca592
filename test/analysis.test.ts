// Blocks, loops, check placement and frames: the paper's Figure 4 (compiled with javac) and
// hand-built IR for the cases javac does not produce (irreducible loops, jsr, dead code, every
// stack-manipulation form).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassFile, findAttribute } from '../src/classfile/classfile.js';
import { CONSTANT, type MemberInfo } from '../src/classfile/model.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { Label, type Frame, type Insn, type MethodCode, type Node, type VType } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { applySplits, computeBlocks, splitLongBlocks, type Block } from '../src/analysis/blocks.js';
import { findLoops } from '../src/analysis/loops.js';
import { placeChecks } from '../src/analysis/checks.js';
import { computeFrames, computeFramesDetailed, entryFrame, execute, simulateFrames, type FrameClass } from '../src/analysis/frames.js';
import { ClassHierarchy } from '../src/hierarchy/hierarchy.js';
import { KomoriumError, UnresolvedTypeError } from '../src/errors.js';
import { javaBin } from './support/corpus.js';

// ------------------------------------------------------------------ javac-compiled samples

const FIG4 = `
public class Fig4 {
  static int sq(int x) { return x * x; }
  static int sqSum(int from, int to) {
    int result = 0;
    while (true) {
      if (from > to) return result;
      result += sq(from);
      ++from;
    }
  }
  static int longLine(int x) {
${Array.from({ length: 40 }, () => '    x = x * 3 + 1;').join('\n')}
    return x;
  }
  static int guarded(int[] a) {
    int s = 0;
    try {
      s = a[0];
      s += a[1];
    } catch (RuntimeException e) {
      s = -1;
    }
    return s;
  }
}
`;

let dir = '';
let fig4: ClassFile;
const methodCode = (cf: ClassFile, name: string): { method: MemberInfo; code: MethodCode } => {
  const method = cf.methods.find((m) => m.name === name)!;
  return { method, code: readCode(cf, method, findAttribute(method.attributes, 'Code')!) };
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'komorium-analysis-'));
  writeFileSync(join(dir, 'Fig4.java'), FIG4);
  execFileSync(javaBin('javac'), ['-d', dir, join(dir, 'Fig4.java')], { stdio: 'pipe' });
  fig4 = ClassFile.parse(readFileSync(join(dir, 'Fig4.class')), 'Fig4.class');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Figure 4 (seed 002 §4.4, §5.2)', () => {
  it('sq is one block of 4 bytecodes', () => {
    const blocks = computeBlocks(methodCode(fig4, 'sq').code);
    expect(blocks.map((b) => b.insnCount)).toEqual([4]);
    expect(blocks[0]!.terminates).toBe(true);
  });

  it('sqSum has blocks of 2, 3, 2 and 7 bytecodes; the invocation does not end a block', () => {
    const blocks = computeBlocks(methodCode(fig4, 'sqSum').code);
    expect(blocks.map((b) => b.insnCount)).toEqual([2, 3, 2, 7]);
    expect(blocks.map((b) => b.successors)).toEqual([[1], [3, 2], [], [1]]);
    expect(blocks.map((b) => b.terminates)).toEqual([false, false, true, false]);
    expect(blocks.map((b) => b.hasInvoke)).toEqual([false, false, false, true]);
  });

  it('the loop header is the second block', () => {
    const loops = findLoops(computeBlocks(methodCode(fig4, 'sqSum').code));
    expect([...loops.headers]).toEqual([1]);
    expect(loops.backEdges).toEqual([[3, 1]]);
    expect(loops.irreducibleEdges).toEqual([]);
  });

  it('optimized check placement leaves out only the first block', () => {
    const blocks = computeBlocks(methodCode(fig4, 'sqSum').code);
    const checks = placeChecks(blocks, findLoops(blocks).headers, { maxPath: 50 });
    expect([...checks].sort()).toEqual([[1, 'loop'], [2, 'terminates'], [3, 'invoke']]);
    expect(placeChecks(blocks, new Set(), { maxPath: 50, mode: 'all' }).size).toBe(4);
    // MaxPath 1 forces a check into the first block (2 bytecodes > 1 is impossible to meet, but it is checked).
    expect(placeChecks(blocks, findLoops(blocks).headers, { maxPath: 1 }).get(0)).toBe('maxpath');
  });

  it('handlers start blocks; try-range bounds do not', () => {
    const { code } = methodCode(fig4, 'guarded');
    const blocks = computeBlocks(code);
    // s = 0 | try { s = a[0]; s += a[1]; } goto | catch: astore, s = -1 | return s
    expect(blocks.map((b) => b.insnCount)).toEqual([13, 3, 2]);
    expect(blocks.map((b) => b.isHandlerStart)).toEqual([false, true, false]);
    expect(blocks[0]!.handlers).toEqual([1]);
    expect(blocks[0]!.successors).toEqual([2]);
  });
});

describe('MaxPath splitting (§4.2)', () => {
  it('splits a long straight-line method into pieces of at most MaxPath', () => {
    const { code } = methodCode(fig4, 'longLine');
    const blocks = computeBlocks(code);
    expect(blocks.map((b) => b.insnCount)).toEqual([242]);
    const points = splitLongBlocks(blocks, 50);
    expect(points).toEqual([50, 100, 150, 200].map((k) => blocks[0]!.insns[k]));
    const pieces = computeBlocks(code, { maxPath: 50 });
    expect(pieces.map((p) => p.insnCount)).toEqual([50, 50, 50, 50, 42]);
    expect(pieces.map((p) => p.successors)).toEqual([[1], [2], [3], [4], []]);
    expect(pieces.every((p) => p.origBlock === 0)).toBe(true);
    expect(pieces[4]!.terminates).toBe(true);
    expect(pieces[0]!.terminates).toBe(false);
    // The pieces partition the nodes.
    expect(pieces[0]!.start).toBe(0);
    for (let k = 1; k < pieces.length; k++) expect(pieces[k]!.start).toBe(pieces[k - 1]!.end);
    expect(pieces[4]!.end).toBe(code.nodes.length);
    // Every piece after the first starts after 50 unchecked bytecodes, so it gets a check.
    const checks = placeChecks(pieces, findLoops(pieces).headers, { maxPath: 50 });
    expect([...checks.keys()].sort()).toEqual([1, 2, 3, 4]);
    const wide = computeBlocks(code, { maxPath: 100 });
    expect(wide.map((p) => p.insnCount)).toEqual([100, 100, 42]);
    expect([...placeChecks(wide, new Set(), { maxPath: 100 }).keys()].sort()).toEqual([1, 2]);
    expect(splitLongBlocks(blocks, 0)).toEqual([]);
    expect(applySplits(blocks, points)).toEqual(pieces);
  });
});

// ------------------------------------------------------------------ hand-built IR

type CpEntry = { tag: number; name?: string; desc?: string };
function fakeClass(thisClass: string, entries: Record<number, CpEntry>): FrameClass {
  const get = (i: number) => {
    const e = entries[i];
    if (!e) throw new Error(`no cp entry ${i}`);
    return e;
  };
  return {
    thisClass,
    cp: {
      tag: (i) => get(i).tag,
      className: (i) => get(i).name!,
      memberRef: (i) => ({ name: get(i).name!, desc: get(i).desc! }),
      dynamic: (i) => ({ desc: get(i).desc! }),
    },
  };
}

const I = (op: number, extra: Partial<Insn> = {}): Insn => ({ op, ...extra });
function code(nodes: Node[], extra: Partial<MethodCode> = {}): MethodCode {
  return { maxStack: 10, maxLocals: 10, nodes, tryCatch: [], attributes: [], frames: null, frameKinds: new Map(), ...extra };
}
const STATIC = 0x0008;

describe('blocks on hand-built IR', () => {
  it('only targets start blocks; line labels and try bounds do not; trailing labels stay in the last block', () => {
    const line = new Label();
    const tryStart = new Label();
    const tryEnd = new Label();
    const handler = new Label();
    const target = new Label();
    const end = new Label();
    const nodes: Node[] = [
      line, I(OP.ICONST_0), I(OP.ISTORE, { var: 0 }),
      tryStart, I(OP.ILOAD, { var: 0 }), I(OP.INVOKESTATIC, { cp: 1 }), I(OP.IFEQ, { target }),
      I(OP.ICONST_1), I(OP.ATHROW),
      tryEnd, handler, I(OP.POP),
      target, I(OP.RETURN), end,
    ];
    const blocks = computeBlocks(code(nodes, { tryCatch: [{ start: tryStart, end: tryEnd, handler, catchType: null, catchTypeIndex: 0 }] }));
    expect(blocks.map((b) => [b.start, b.end, b.firstInsn, b.insnCount])).toEqual([
      [0, 7, 1, 5], [7, 9, 7, 2], [9, 12, 11, 1], [12, 15, 13, 1],
    ]);
    expect(blocks.map((b) => b.successors)).toEqual([[3, 1], [], [3], []]);
    expect(blocks.map((b) => b.handlers)).toEqual([[2], [2], [], []]);
    expect(blocks.map((b) => b.isHandlerStart)).toEqual([false, false, true, false]);
    expect(blocks.map((b) => b.terminates)).toEqual([false, true, false, true]);
    expect(blocks[0]!.hasInvoke && blocks[0]!.invokes[0] === 5).toBe(true);
  });

  it('switches, jsr and ret end blocks; ret returns to every jsr return point', () => {
    const sub = new Label();
    const a = new Label();
    const b = new Label();
    const nodes: Node[] = [
      I(OP.JSR, { target: sub }),
      I(OP.ILOAD, { var: 0 }), I(OP.TABLESWITCH, { low: 0, dflt: b, targets: [a, b] }),
      a, I(OP.JSR, { target: sub }), I(OP.RETURN),
      b, I(OP.RETURN),
      sub, I(OP.ASTORE, { var: 1 }), I(OP.RET, { var: 1 }),
    ];
    const blocks = computeBlocks(code(nodes));
    expect(blocks.map((x) => x.insnCount)).toEqual([1, 2, 1, 1, 1, 2]);
    expect(blocks.map((x) => x.successors)).toEqual([[5], [4, 2], [5], [], [], [1, 3]]);
    expect(blocks.map((x) => x.endsWithJsrOrRet)).toEqual([true, false, true, false, false, true]);
  });
});

describe('loops and checks on hand-built graphs', () => {
  it('an irreducible cycle gets a header from a retreating edge', () => {
    const l1 = new Label();
    const l2 = new Label();
    const nodes: Node[] = [
      I(OP.ILOAD, { var: 0 }), I(OP.IFEQ, { target: l2 }),
      l1, I(OP.IINC, { var: 0, inc: 1 }), I(OP.GOTO, { target: l2 }),
      l2, I(OP.IINC, { var: 0, inc: -1 }), I(OP.ILOAD, { var: 0 }), I(OP.IFNE, { target: l1 }),
      I(OP.RETURN),
    ];
    const blocks = computeBlocks(code(nodes));
    expect(blocks.map((b) => b.successors)).toEqual([[2, 1], [2], [1, 3], []]);
    const loops = findLoops(blocks);
    expect(loops.backEdges).toEqual([]);
    expect(loops.headers.size).toBe(1);
    expect(loops.irreducibleEdges.length).toBe(1);
    const [u, v] = loops.irreducibleEdges[0]!;
    expect(loops.headers.has(v)).toBe(true);
    expect(blocks[u]!.successors).toContain(v);
    // With a check at the header, the rest is acyclic and placement terminates.
    const checks = placeChecks(blocks, loops.headers, { maxPath: 4 });
    expect(checks.get(3)).toBe('terminates');
    expect(checks.has(v)).toBe(true);
  });

  it('a loop closed only through a handler is found', () => {
    const start = new Label();
    const end = new Label();
    const handler = new Label();
    const nodes: Node[] = [
      start, I(OP.ILOAD, { var: 0 }), I(OP.IDIV), end, I(OP.RETURN),
      handler, I(OP.POP), I(OP.GOTO, { target: start }),
    ];
    const blocks = computeBlocks(code(nodes, { tryCatch: [{ start, end, handler, catchType: 'java/lang/ArithmeticException', catchTypeIndex: 0 }] }));
    expect(blocks.map((b) => b.insnCount)).toEqual([3, 2]);
    const loops = findLoops(blocks);
    expect([...loops.headers]).toEqual([0]);
    expect(loops.backEdges).toEqual([[1, 0]]);
  });

  const chain = (lens: number[], edges: [number, number][], flags: Partial<Block>[] = []): Block[] =>
    lens.map((insnCount, index) => ({
      index, start: 0, end: 0, firstInsn: 0, insns: [], insnCount, successors: edges.filter(([a]) => a === index).map(([, b]) => b),
      handlers: [], isHandlerStart: false, terminates: false, hasInvoke: false, invokes: [], endsWithJsrOrRet: false,
      origBlock: index, ...flags[index],
    }));

  it('adds a check where the longest unchecked path first exceeds MaxPath', () => {
    // 0(10) → 1(10) | 2(30) → 3(10) → 4(10, return)
    const blocks = chain([10, 10, 30, 10, 10], [[0, 1], [0, 2], [1, 3], [2, 3], [3, 4]], [{}, {}, {}, {}, { terminates: true }]);
    expect([...placeChecks(blocks, new Set(), { maxPath: 40 })].sort()).toEqual([[3, 'maxpath'], [4, 'terminates']]);
    expect([...placeChecks(blocks, new Set(), { maxPath: 60 })].sort()).toEqual([[4, 'terminates']]);
    // A check resets the count: 0(30) → 1(30) → 2(30) → 3(30) gets checks at 1 and 3 for MaxPath 60.
    const line = chain([30, 30, 30, 30], [[0, 1], [1, 2], [2, 3]]);
    expect([...placeChecks(line, new Set(), { maxPath: 60 }).keys()].sort()).toEqual([2]);
    expect([...placeChecks(line, new Set(), { maxPath: 59 }).keys()].sort()).toEqual([1, 2, 3]);
    // MaxPath 0: the mandatory checks only.
    expect(placeChecks(line, new Set(), { maxPath: 0 }).size).toBe(0);
  });
});

describe('simulateFrames', () => {
  const cls = fakeClass('app/C', {
    1: { tag: CONSTANT.Class, name: 'java/util/ArrayList' },
    2: { tag: CONSTANT.Methodref, name: '<init>', desc: '()V' },
    3: { tag: CONSTANT.Methodref, name: 'm', desc: '(JLjava/lang/String;)[[I' },
    4: { tag: CONSTANT.Integer }, 5: { tag: CONSTANT.Float }, 6: { tag: CONSTANT.Long }, 7: { tag: CONSTANT.Double },
    8: { tag: CONSTANT.String }, 9: { tag: CONSTANT.Class, name: '[Ljava/lang/Object;' }, 10: { tag: CONSTANT.MethodType },
    11: { tag: CONSTANT.MethodHandle }, 12: { tag: CONSTANT.Dynamic, desc: 'Ljava/util/List;' }, 13: { tag: CONSTANT.Dynamic, desc: 'J' },
    14: { tag: CONSTANT.Fieldref, name: 'f', desc: 'Z' }, 15: { tag: CONSTANT.Class, name: '[[Ljava/lang/String;' },
    16: { tag: CONSTANT.InvokeDynamic, desc: '(I)Ljava/lang/Runnable;' }, 17: { tag: CONSTANT.Methodref, name: '<init>', desc: '(I)V' },
  });
  const run = (insns: Insn[], locals: VType[] = [], stack: VType[] = []) => {
    const l = locals.slice();
    const s = stack.slice();
    for (const insn of insns) execute(cls, insn, l, s);
    return { locals: l, stack: s };
  };

  it('models the dup/swap family on category-1 and category-2 values', () => {
    expect(run([I(OP.DUP_X1)], [], ['I', 'F']).stack).toEqual(['F', 'I', 'F']);
    expect(run([I(OP.DUP_X2)], [], ['I', 'F', 'N']).stack).toEqual(['N', 'I', 'F', 'N']);
    expect(run([I(OP.DUP_X2)], [], ['J', 'I']).stack).toEqual(['I', 'J', 'I']);
    expect(run([I(OP.DUP2)], [], ['I', 'F']).stack).toEqual(['I', 'F', 'I', 'F']);
    expect(run([I(OP.DUP2)], [], ['D']).stack).toEqual(['D', 'D']);
    expect(run([I(OP.DUP2_X1)], [], ['N', 'I', 'F']).stack).toEqual(['I', 'F', 'N', 'I', 'F']);
    expect(run([I(OP.DUP2_X1)], [], ['I', 'D']).stack).toEqual(['D', 'I', 'D']);
    expect(run([I(OP.DUP2_X2)], [], ['I', 'F', 'N', 'I']).stack).toEqual(['N', 'I', 'I', 'F', 'N', 'I']);
    expect(run([I(OP.DUP2_X2)], [], ['I', 'F', 'D']).stack).toEqual(['D', 'I', 'F', 'D']);
    expect(run([I(OP.DUP2_X2)], [], ['J', 'I', 'F']).stack).toEqual(['I', 'F', 'J', 'I', 'F']);
    expect(run([I(OP.DUP2_X2)], [], ['J', 'D']).stack).toEqual(['D', 'J', 'D']);
    expect(run([I(OP.POP2)], [], ['I', 'J']).stack).toEqual(['I']);
    expect(run([I(OP.POP2)], [], ['I', 'F']).stack).toEqual([]);
    expect(run([I(OP.SWAP)], [], ['I', 'N']).stack).toEqual(['N', 'I']);
    expect(() => run([I(OP.POP)], [], ['J'])).toThrow(/category-2/);
    expect(() => run([I(OP.DUP2)], [], ['J', 'I'].slice(1).concat([]) as VType[])).toThrow();
  });

  it('models long/double locals and their invalidation', () => {
    expect(run([I(OP.LSTORE, { var: 1 })], ['I'], ['J']).locals).toEqual(['I', 'J', 'T']);
    // Storing into the second half of a long kills the long.
    expect(run([I(OP.ISTORE, { var: 2 })], ['I', 'J', 'T'], ['I']).locals).toEqual(['I', 'T', 'I']);
    // Storing a double over the first half of a long.
    expect(run([I(OP.DSTORE, { var: 1 })], ['I', 'J', 'T'], ['D']).locals).toEqual(['I', 'D', 'T']);
    // A long at n-1 is invalidated by a store into n even when the value is a long.
    expect(run([I(OP.LSTORE, { var: 2 })], ['I', 'J', 'T'], ['J']).locals).toEqual(['I', 'T', 'J', 'T']);
    expect(run([I(OP.LLOAD, { var: 1 }), I(OP.L2I)], ['I', 'J', 'T']).stack).toEqual(['I']);
  });

  it('types constants, fields, invocations and arrays', () => {
    const ldc = (cp: number) => run([I(OP.LDC, { cp })]).stack[0];
    expect([4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(ldc)).toEqual([
      'I', 'F', 'J', 'D', 'Ljava/lang/String;', 'Ljava/lang/Class;', 'Ljava/lang/invoke/MethodType;',
      'Ljava/lang/invoke/MethodHandle;', 'Ljava/util/List;', 'J',
    ]);
    expect(run([I(OP.GETSTATIC, { cp: 14 })]).stack).toEqual(['I']);
    expect(run([I(OP.GETFIELD, { cp: 14 })], [], ['Lapp/C;']).stack).toEqual(['I']);
    expect(run([I(OP.INVOKEVIRTUAL, { cp: 3 })], [], ['Lapp/C;', 'J', 'N']).stack).toEqual(['[[I']);
    expect(run([I(OP.INVOKESTATIC, { cp: 3 }), I(OP.ICONST_0), I(OP.AALOAD)], [], ['J', 'N']).stack).toEqual(['[I']);
    expect(run([I(OP.INVOKEDYNAMIC, { cp: 16 })], [], ['I']).stack).toEqual(['Ljava/lang/Runnable;']);
    expect(run([I(OP.AALOAD)], [], ['N', 'I']).stack).toEqual(['N']);
    expect(run([I(OP.ANEWARRAY, { cp: 1 })], [], ['I']).stack).toEqual(['[Ljava/util/ArrayList;']);
    expect(run([I(OP.ANEWARRAY, { cp: 9 })], [], ['I']).stack).toEqual(['[[Ljava/lang/Object;']);
    expect(run([I(OP.MULTIANEWARRAY, { cp: 15, n: 2 })], [], ['I', 'I']).stack).toEqual(['[[Ljava/lang/String;']);
    expect(run([I(OP.NEWARRAY, { n: 8 })], [], ['I']).stack).toEqual(['[B']);
    expect(run([I(OP.CHECKCAST, { cp: 1 })], [], ['Ljava/lang/Object;']).stack).toEqual(['Ljava/util/ArrayList;']);
    expect(run([I(OP.ISHL), I(OP.LSHL)], [], ['J', 'I', 'I']).stack).toEqual(['J']);
    expect(run([I(OP.LCMP)], [], ['J', 'J']).stack).toEqual(['I']);
  });

  it('replaces an uninitialized object everywhere when its constructor runs', () => {
    const nw = I(OP.NEW, { cp: 1 });
    const r = run([nw, I(OP.DUP), I(OP.ASTORE, { var: 0 }), I(OP.DUP), I(OP.INVOKESPECIAL, { cp: 2 })]);
    expect(r).toEqual({ locals: ['Ljava/util/ArrayList;'], stack: ['Ljava/util/ArrayList;'] });
    // uninitializedThis in a constructor.
    const ctor = { access: 0, name: '<init>', desc: '(I)V' };
    expect(entryFrame(cls, ctor)).toEqual({ locals: ['U', 'I'], stack: [] });
    const nodes: Node[] = [I(OP.ALOAD, { var: 0 }), I(OP.ILOAD, { var: 1 }), I(OP.INVOKESPECIAL, { cp: 17 }), I(OP.RETURN)];
    const sim = simulateFrames(cls, ctor, code(nodes));
    expect(sim[2]).toEqual({ locals: ['U', 'I'], stack: ['U', 'I'] });
    expect(sim[3]).toEqual({ locals: ['Lapp/C;', 'I'], stack: [] });
    expect(entryFrame(fakeClass('java/lang/Object', {}), { access: 0, name: '<init>', desc: '()V' }).locals).toEqual(['Ljava/lang/Object;']);
  });

  it('is unknown after an unconditional transfer until a recorded frame, which it then takes', () => {
    const l1 = new Label();
    const l2 = new Label();
    const recorded: Frame = { locals: ['J', 'T', 'Ljava/lang/String;'], stack: [] };
    const nodes: Node[] = [
      I(OP.LCONST_0), I(OP.LSTORE, { var: 0 }), I(OP.GOTO, { target: l2 }),
      l1, I(OP.NOP), I(OP.GOTO, { target: l2 }),
      l2, I(OP.ALOAD, { var: 2 }), I(OP.ARETURN),
    ];
    const method = { access: STATIC, name: 'm', desc: '()Ljava/lang/Object;' };
    const sim = simulateFrames(cls, method, code(nodes, { frames: new Map([[l2, recorded]]) }));
    expect(sim[0]).toEqual({ locals: [], stack: [] });
    expect(sim[2]).toEqual({ locals: ['J', 'T'], stack: [] });
    expect(sim.slice(3, 6)).toEqual([null, null, null]);
    expect(sim[6]).toEqual(recorded);
    expect(sim[7]).toBe(sim[6]); // same position, same object
    expect(sim[8]).toEqual({ locals: recorded.locals, stack: ['Ljava/lang/String;'] });
    // Without frames (class files < 50): straight lines from the entry only.
    const noFrames = simulateFrames(cls, method, code(nodes));
    expect(noFrames.slice(3)).toEqual([null, null, null, null, null, null]);
  });

  it('names class, method and position when the code cannot be interpreted', () => {
    const l = new Label(7);
    expect(() => simulateFrames(cls, { access: STATIC, name: 'bad', desc: '()V' }, code([l, I(OP.POP), I(OP.RETURN)])))
      .toThrow(/app\.C\.bad\(\)V: frame simulation failed at offset 7: operand stack underflow/);
  });
});

describe('computeFrames', () => {
  const h = new ClassHierarchy();
  afterAll(() => h.close());
  const cls = fakeClass('app/C', {
    1: { tag: CONSTANT.Class, name: 'java/util/ArrayList' },
    2: { tag: CONSTANT.Class, name: 'java/util/LinkedList' },
    3: { tag: CONSTANT.Methodref, name: '<init>', desc: '()V' },
    4: { tag: CONSTANT.Class, name: 'app/Missing' },
    5: { tag: CONSTANT.Class, name: 'java/lang/Integer' },
  });
  const method = { access: STATIC, name: 'm', desc: '(I)Ljava/lang/Object;' };
  // if (x == 0) v = new ArrayList() else v = new LinkedList(); return v  — with a configurable second allocation
  const diamond = (otherClassCp: number, storeInt = false) => {
    const elseL = new Label();
    const join = new Label();
    const nw1 = I(OP.NEW, { cp: 1 });
    const nw2 = I(OP.NEW, { cp: otherClassCp });
    const nodes: Node[] = [
      I(OP.ILOAD, { var: 0 }), I(OP.IFEQ, { target: elseL }),
      nw1, I(OP.DUP), I(OP.INVOKESPECIAL, { cp: 3 }), I(OP.ASTORE, { var: 1 }), I(OP.GOTO, { target: join }),
      elseL, nw2, I(OP.DUP), I(OP.INVOKESPECIAL, { cp: 3 }), I(OP.ASTORE, { var: 1 }),
      ...(storeInt ? [I(OP.ICONST_0), I(OP.ISTORE, { var: 1 })] : []),
      join, I(OP.ALOAD, { var: 0 }), I(OP.POP), I(OP.ACONST_NULL), I(OP.ARETURN),
    ];
    return { nodes, elseL, join };
  };

  it('merges references through the hierarchy and other types to top', () => {
    const d = diamond(2);
    const frames = computeFrames(cls, method, code(d.nodes), h);
    expect([...frames.keys()]).toEqual([d.elseL, d.join]);
    expect(frames.get(d.elseL)).toEqual({ locals: ['I'], stack: [] });
    expect(frames.get(d.join)).toEqual({ locals: ['I', 'Ljava/util/AbstractList;'], stack: [] });
    const e = diamond(1, true);
    expect(computeFrames(cls, method, code(e.nodes), h).get(e.join)).toEqual({ locals: ['I'], stack: [] });
  });

  it('names the class a merge cannot resolve', () => {
    const d = diamond(4);
    expect(() => computeFrames(cls, method, code(d.nodes), h)).toThrow(UnresolvedTypeError);
    try {
      computeFrames(cls, method, code(d.nodes), h);
    } catch (e) {
      const u = e as UnresolvedTypeError;
      expect(u.missingType).toBe('app/Missing');
      expect(u.className).toBe('app/C');
      expect(u.method).toBe('m(I)Ljava/lang/Object;');
      expect(u.why).toMatch(/^merging frames at instruction #11 \(Ljava\.util\.ArrayList; and Lapp\.Missing;\)/);
    }
  });

  it('rejects stacks that disagree at a join', () => {
    const join = new Label();
    const nodes: Node[] = [
      I(OP.ICONST_0), I(OP.ILOAD, { var: 0 }), I(OP.IFEQ, { target: join }), I(OP.POP), I(OP.FCONST_0),
      join, I(OP.POP), I(OP.ACONST_NULL), I(OP.ARETURN),
    ];
    expect(() => computeFrames(cls, method, code(nodes), h)).toThrow(/incompatible stack values int and float/);
  });

  it('gives handlers their catch type (merged for multi-catch) and the locals of the try range', () => {
    const start = new Label();
    const end = new Label();
    const handler = new Label();
    const nodes: Node[] = [
      start, I(OP.ICONST_0), I(OP.ISTORE, { var: 1 }), I(OP.ACONST_NULL), I(OP.ASTORE, { var: 1 }), end,
      I(OP.ACONST_NULL), I(OP.ARETURN),
      handler, I(OP.ARETURN),
    ];
    const tryCatch = [
      { start, end, handler, catchType: 'java/lang/IllegalStateException', catchTypeIndex: 0 },
      { start, end, handler, catchType: 'java/lang/IllegalArgumentException', catchTypeIndex: 0 },
    ];
    const frames = computeFrames(cls, method, code(nodes, { tryCatch }), h);
    // Local 1 is int before one instruction of the range and null before another: top (trimmed).
    expect(frames.get(handler)).toEqual({ locals: ['I'], stack: ['Ljava/lang/RuntimeException;'] });
    const any = computeFrames(cls, method, code(nodes, { tryCatch: [{ ...tryCatch[0]!, catchType: null }] }), h);
    expect(any.get(handler)!.stack).toEqual(['Ljava/lang/Throwable;']);
  });

  it('gives dead code the entry locals and an empty stack, and reports it', () => {
    const dead = new Label();
    const nodes: Node[] = [I(OP.ACONST_NULL), I(OP.ARETURN), dead, I(OP.NOP), I(OP.ACONST_NULL), I(OP.ARETURN)];
    const r = computeFramesDetailed(cls, method, code(nodes), h);
    expect(r.frames.get(dead)).toEqual({ locals: ['I'], stack: [] });
    expect(r.unreachable).toEqual([3, 4, 5]);
    const noLabel = computeFramesDetailed(cls, method, code([I(OP.ACONST_NULL), I(OP.ARETURN), I(OP.NOP), I(OP.ACONST_NULL), I(OP.ARETURN)]), h);
    expect(noLabel.unlabeled).toEqual([2]);
  });

  it('refuses jsr/ret code', () => {
    const sub = new Label();
    const nodes: Node[] = [I(OP.JSR, { target: sub }), I(OP.ACONST_NULL), I(OP.ARETURN), sub, I(OP.ASTORE, { var: 1 }), I(OP.RET, { var: 1 })];
    expect(() => computeFrames(cls, method, code(nodes), h)).toThrow(KomoriumError);
    expect(() => computeFrames(cls, method, code(nodes), h)).toThrow(/jsr\/ret/);
  });

  it('agrees with javac on the Figure 4 class', () => {
    for (const m of fig4.methods) {
      const { code: c } = methodCode(fig4, m.name);
      const frames = computeFrames(fig4, m, c, h);
      expect(new Map([...frames].map(([l, f]) => [l.origOffset, f]))).toEqual(
        new Map([...(c.frames ?? new Map())].map(([l, f]) => [l.origOffset, { locals: f.locals, stack: f.stack }])),
      );
    }
  });
});
