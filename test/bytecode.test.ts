/**
 * Unit tests of the bytecode layer on hand-made methods and on small javac/ecj classes whose
 * rewritten copies a real JVM runs (with -Xverify:all): widening, switch padding, wide forms,
 * max_stack, size limit, frame encoding corner cases, and the decoder's validation.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassFile } from '../src/classfile/classfile.js';
import { ACC, type MemberInfo, type RawAttribute } from '../src/classfile/model.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { encoderFrames } from '../src/analysis/frames.js';
import { layoutCode, writeCode } from '../src/bytecode/code-writer.js';
import { Label, isLabel, type Frame, type Insn, type MethodCode, type Node } from '../src/bytecode/ir.js';
import { OP, OPCODE_FORMATS, OPCODE_NAMES, invertCondition } from '../src/bytecode/opcodes.js';
import { stackEffect } from '../src/bytecode/stack-effect.js';
import { ClassFormatError, MethodTooLargeError } from '../src/errors.js';

const FIXTURES = new URL('./fixtures/bytecode/', import.meta.url).pathname;
let work: string;
let wideBytes: Uint8Array;

function javac(src: string, out: string, ...opts: string[]): void {
  execFileSync('javac', ['-d', out, ...opts, join(FIXTURES, src)]);
}

function java(cp: string, main: string, ...args: string[]): string {
  return execFileSync('java', ['-Xverify:all', '-cp', cp, main, ...args], { encoding: 'utf8' }).trim();
}

function host(): ClassFile {
  return ClassFile.parse(wideBytes, 'Wide.class');
}

function method(cf: ClassFile, name: string): MemberInfo {
  const m = cf.methods.find((x) => x.name === name);
  if (!m) throw new Error(`no method ${name}`);
  return m;
}

function codeOf(m: MemberInfo): RawAttribute {
  return m.attributes.find((a) => a.name === 'Code')!;
}

function setCode(m: MemberInfo, attr: RawAttribute): void {
  const k = m.attributes.findIndex((a) => a.name === 'Code');
  if (k >= 0) m.attributes[k] = attr;
  else m.attributes.push(attr);
}

/** Writes a class to a fresh folder and returns the folder (for `java -cp`). */
function emit(cf: ClassFile, name = 'Wide'): string {
  const dir = mkdtempSync(join(work, 'out-'));
  writeFileSync(join(dir, `${name}.class`), cf.toBytes());
  return dir;
}

function newCode(nodes: Node[], frames: [Label, Frame][] = [], extra: Partial<MethodCode> = {}): MethodCode {
  return {
    maxStack: 0,
    maxLocals: 0,
    nodes,
    tryCatch: [],
    attributes: [],
    frames: new Map(frames),
    frameKinds: new Map(),
    ...extra,
  };
}

/** The code array of an encoded Code attribute. */
function codeBytes(attr: RawAttribute): Uint8Array {
  const dv = new DataView(attr.info.buffer, attr.info.byteOffset);
  return attr.info.subarray(8, 8 + dv.getUint32(4));
}

function u2At(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}

function insns(code: MethodCode): Insn[] {
  return code.nodes.filter((n): n is Insn => !isLabel(n));
}

function nops(k: number): Insn[] {
  return Array.from({ length: k }, () => ({ op: OP.NOP }));
}

/** Inserts `count` NOPs after the first instruction matching `at`. */
function injectNops(code: MethodCode, at: (i: Insn) => boolean, count: number): void {
  const k = code.nodes.findIndex((n) => !isLabel(n) && at(n));
  if (k < 0) throw new Error('injection point not found');
  code.nodes.splice(k + 1, 0, ...nops(count));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'komorium-bytecode-'));
  javac('Wide.java', join(work, 'wide'));
  wideBytes = readFileSync(join(work, 'wide', 'Wide.class'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('opcodes', () => {
  it('names and formats follow JVMS chapter 6', () => {
    expect(OP.NOP).toBe(0);
    expect(OP.JSR_W).toBe(0xc9);
    expect(OPCODE_NAMES[OP.INVOKEINTERFACE]).toBe('invokeinterface');
    expect(OPCODE_NAMES[0xca]).toBe('');
    expect(invertCondition(OP.IFEQ)).toBe(OP.IFNE);
    expect(invertCondition(OP.IF_ICMPLT)).toBe(OP.IF_ICMPGE);
    expect(invertCondition(OP.IF_ACMPNE)).toBe(OP.IF_ACMPEQ);
    expect(invertCondition(OP.IFNULL)).toBe(OP.IFNONNULL);
    expect(invertCondition(OP.IFNONNULL)).toBe(OP.IFNULL);
    expect(OPCODE_FORMATS[0xfe]).toBe(0);
  });
});

describe('readCode canonicalizes', () => {
  it('short, wide and _w forms keep their form; offsets become labels', () => {
    const cf = host();
    const loop = readCode(cf, method(cf, 'loop'), codeOf(method(cf, 'loop')));
    const ops = insns(loop);
    expect(ops[1]).toEqual({ op: OP.LSTORE, var: 1, form: OP.LSTORE_1 });
    expect(ops.find((i) => i.op === OP.IINC)).toEqual({ op: OP.IINC, var: 3, inc: 1, form: OP.IINC });
    const g = ops.find((i) => i.op === OP.GOTO)!;
    expect(g.form).toBe(OP.GOTO);
    expect(g.target!.origOffset).toBe(4);
    // javac's loop head frame: locals int, long (two slots), int
    const head = loop.frames!.get(g.target!)!;
    expect(head).toEqual({ locals: ['I', 'J', 'T', 'I'], stack: [] });
    expect(loop.frameKinds.get(g.target!)).toBe(253); // append_frame with 2 locals
  });
});

describe('widening far branches (checked by HotSpot with -Xverify:all)', () => {
  it('goto → goto_w and a far conditional → inverted conditional over goto_w, with frames for the new targets', () => {
    const cf = host();
    const expected = java(join(work, 'wide'), 'Wide');
    const widened: Record<string, number> = {};
    const frameCounts: Record<string, [number, number]> = {};
    // NOPs inside the then-block (ifle over it), inside the loop body (if_icmpge forward, goto
    // back), and inside `if (o != null)` (ifnull over it).
    for (const [name, at] of [
      ['ifElse', (i: Insn) => i.op === OP.IMUL],
      ['loop', (i: Insn) => i.op === OP.LADD],
      ['notNull', (i: Insn) => i.op === OP.INVOKEVIRTUAL],
    ] as const) {
      const m = method(cf, name);
      const code = readCode(cf, m, codeOf(m));
      injectNops(code, at, 33_000);
      const layout = layoutCode(cf, m, code);
      widened[name] = layout.widened.size;
      const out = writeCode(cf, m, code, { frameAt: encoderFrames(cf, m, code) });
      setCode(m, out);
      const back = readCode(cf, m, out);
      frameCounts[name] = [code.frames!.size, back.frames!.size];
      // Each widened conditional's fall-through point now has a frame.
      for (const insn of layout.widened) {
        const at = layout.insnOffsets.get(insn)! + 8;
        expect([...back.frames!.keys()].some((l) => l.origOffset === at), `${name}: frame at ${at}`).toBe(true);
      }
      const bytes = codeBytes(out);
      expect(bytes.includes(OP.GOTO_W), `${name} has goto_w`).toBe(true);
    }
    expect(widened).toEqual({ ifElse: 1, loop: 1, notNull: 1 });
    expect(frameCounts.ifElse![1]).toBe(frameCounts.ifElse![0] + 1);
    expect(frameCounts.loop![1]).toBe(frameCounts.loop![0] + 1);
    expect(frameCounts.notNull![1]).toBe(frameCounts.notNull![0] + 1);
    const dir = emit(cf);
    expect(java(dir, 'Wide')).toBe(expected);
  });

  it('options.frameAt supplies the frame of the new fall-through point', () => {
    const cf = host();
    const m = method(cf, 'ifElse');
    const code = readCode(cf, m, codeOf(m));
    injectNops(code, (i) => i.op === OP.IMUL, 33_000);
    const calls: { label: Label; op: number; index: number }[] = [];
    const out = writeCode(cf, m, code, {
      frameAt: (label, branch, index) => {
        calls.push({ label, op: branch.op, index });
        return { locals: ['I'], stack: [] };
      },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.op).toBe(OP.IFLE);
    expect(code.nodes[calls[0]!.index]).toMatchObject({ op: OP.IFLE });
    // The branch is now ifgt +8; goto_w.
    const b = codeBytes(out);
    expect(b[1]).toBe(OP.IFGT);
    expect(u2At(b, 2)).toBe(8);
    expect(b[4]).toBe(OP.GOTO_W);
    expect(calls[0]!.label.offset).toBe(9);
    setCode(m, out);
    expect(java(emit(cf), 'Wide')).toBe(java(join(work, 'wide'), 'Wide'));
  });

  it('jsr → jsr_w and far branches in a version-46 class (ecj -target 1.2, old verifier)', () => {
    const dir = join(work, 'old');
    execFileSync('java', [
      '-cp', '/usr/share/java/ecj.jar', 'org.eclipse.jdt.internal.compiler.batch.Main',
      '-source', '1.3', '-target', '1.2', '-nowarn', '-d', dir, join(FIXTURES, 'OldStyle.java'),
    ]);
    const bytes = readFileSync(join(dir, 'OldStyle.class'));
    const cf = ClassFile.parse(bytes, 'OldStyle.class');
    expect(cf.major).toBe(46);
    let jsrw = 0;
    for (const name of ['tryFinally', 'table']) {
      const m = method(cf, name);
      const code = readCode(cf, m, codeOf(m));
      expect(code.frames).toBeNull();
      const jsr = insns(code).find((i) => i.op === OP.JSR)!;
      expect(jsr).toBeDefined();
      // Dead NOPs just before the subroutine put every jsr far from it.
      const k = code.nodes.indexOf(jsr.target!);
      code.nodes.splice(k, 0, ...nops(33_000));
      const out = writeCode(cf, m, code);
      const b = codeBytes(out);
      const back = insns(readCode(cf, m, out));
      jsrw += back.filter((i) => i.op === OP.JSR && i.form === OP.JSR_W).length;
      expect(b.length).toBeGreaterThan(33_000);
      setCode(m, out);
    }
    expect(jsrw).toBe(3); // the jsrs before each subroutine; those after it stay near
    const outDir = emit(cf, 'OldStyle');
    expect(java(outDir, 'OldStyle')).toBe(java(dir, 'OldStyle'));
  });
});

/** Adds `public static name(I)I` with the given code to the host class. */
function addIntMethod(cf: ClassFile, name: string, code: MethodCode): { m: MemberInfo; attr: RawAttribute } {
  const m = cf.addMethod(ACC.PUBLIC | ACC.STATIC, name, '(I)I');
  const attr = writeCode(cf, m, code);
  m.attributes.push(attr);
  return { m, attr };
}

describe('hand-made methods', () => {
  it('pads tableswitch and lookupswitch at all four alignments', () => {
    const cf = host();
    const calls: string[] = [];
    const expected: string[] = [];
    for (let k = 0; k < 4; k++) {
      for (const kind of ['table', 'lookup'] as const) {
        const [l1, l2, l3, ld] = [new Label(), new Label(), new Label(), new Label()];
        const sw: Insn =
          kind === 'table'
            ? { op: OP.TABLESWITCH, low: 1, dflt: ld, targets: [l1, l2, l3] }
            : { op: OP.LOOKUPSWITCH, keys: [-5, 7, 1000], dflt: ld, targets: [l1, l2, l3] };
        const f: Frame = { locals: ['I'], stack: [] };
        const code = newCode(
          [
            ...nops(k),
            { op: OP.ILOAD, var: 0 },
            sw,
            l1, { op: OP.BIPUSH, n: 10 }, { op: OP.IRETURN },
            l2, { op: OP.BIPUSH, n: 20 }, { op: OP.IRETURN },
            l3, { op: OP.BIPUSH, n: 30 }, { op: OP.IRETURN },
            ld, { op: OP.ICONST_M1 }, { op: OP.IRETURN },
          ],
          [[l1, f], [l2, f], [l3, f], [ld, f]],
        );
        const name = `${kind}${k}`;
        const { m, attr } = addIntMethod(cf, name, code);
        const b = codeBytes(attr);
        const at = k + 1; // the switch opcode follows k NOPs and iload_0
        expect(b[at]).toBe(sw.op);
        const pad = 3 - (at & 3);
        const operands = at + 1 + pad;
        expect(operands % 4, `${name} operands aligned`).toBe(0);
        for (let p = at + 1; p < operands; p++) expect(b[p]).toBe(0);
        const size = 1 + pad + (kind === 'table' ? 12 + 12 : 8 + 24);
        expect(b.length).toBe(at + size + 3 * 3 + 2);
        // Decoding gives the same targets back.
        const back = readCode(cf, m, attr);
        const s = insns(back).find((i) => i.op === sw.op)!;
        expect(s.targets!.map((t) => t.origOffset)).toEqual([l1.offset, l2.offset, l3.offset]);
        expect(s.dflt!.origOffset).toBe(ld.offset);
        if (kind === 'table') expect(s.low).toBe(1);
        else expect(s.keys).toEqual([-5, 7, 1000]);
        const args = kind === 'table' ? [0, 1, 2, 3, 4] : [-5, 7, 1000, 0];
        for (const a of args) calls.push(`${name}:${a}`);
        expected.push(...(kind === 'table' ? ['-1', '10', '20', '30', '-1'] : ['10', '20', '30', '-1']));
      }
    }
    expect(java(emit(cf), 'Wide', ...calls)).toBe(expected.join(' '));
  });

  it('writes a keyless lookupswitch that ends the code as pop; goto default, which HotSpot verifies', () => {
    // HotSpot's verifier calls a lookupswitch whose 8 fixed bytes reach the end of the code a "Bad
    // instruction"; a layout's copy can end with one. Elsewhere the switch keeps its bytes.
    const cf = host();
    const f: Frame = { locals: ['I'], stack: [] };
    const keyless = (name: string, widen: boolean, before: Insn[] = []) => {
      const [dflt, sw] = [new Label(), new Label()];
      const code = newCode(
        [
          { op: OP.GOTO, target: sw },
          dflt, { op: OP.ILOAD, var: 0 }, { op: OP.ICONST_1 }, { op: OP.IADD }, { op: OP.IRETURN },
          sw, ...before, { op: OP.ILOAD, var: 0 }, { op: OP.LOOKUPSWITCH, keys: [], targets: [], dflt },
        ],
        [[dflt, f], [sw, f]],
      );
      const m = cf.addMethod(ACC.PUBLIC | ACC.STATIC, name, '(I)I');
      const attr = writeCode(cf, m, code, { widenAllBranches: widen });
      m.attributes.push(attr);
      return { b: codeBytes(attr), max: u2At(attr.info, 0), m, attr };
    };
    // goto (3 bytes), default at 3: four 1-byte instructions; iload_0, pop at 8, goto at 9 back to 3.
    const short = keyless('keyless', false);
    expect([...short.b.subarray(short.b.length - 4)]).toEqual([OP.POP, OP.GOTO, 0xff, 0x100 - 6]);
    expect(short.b.length).toBe(12);
    expect(short.max).toBe(2);
    // goto_w (5 bytes), default at 5; three nops and iload_0, pop at 13, goto_w at 14 back to 5.
    const wide = keyless('keylessWide', true, nops(3));
    expect([...wide.b.subarray(wide.b.length - 6)]).toEqual([OP.POP, OP.GOTO_W, 0xff, 0xff, 0xff, 0x100 - 9]);
    // Read back, the method is an ordinary pop; goto.
    expect(insns(readCode(cf, short.m, short.attr)).slice(-2).map((i) => i.op)).toEqual([OP.POP, OP.GOTO]);
    // A keyless lookupswitch before other code is written as it is.
    const dflt = new Label();
    const inner = newCode(
      [{ op: OP.ILOAD, var: 0 }, { op: OP.LOOKUPSWITCH, keys: [], targets: [], dflt }, dflt, { op: OP.ILOAD, var: 0 }, { op: OP.IRETURN }],
      [[dflt, f]],
    );
    const { attr } = addIntMethod(cf, 'keylessInner', inner);
    expect(codeBytes(attr)[1]).toBe(OP.LOOKUPSWITCH);
    expect(java(emit(cf), 'Wide', 'keyless:5', 'keylessWide:7', 'keylessInner:9')).toBe('6 8 9');
  });

  it('encodes wide iload/istore/iinc where the index or increment needs it, and short forms otherwise', () => {
    const cf = host();
    const code = newCode([
      { op: OP.ILOAD, var: 0 },
      { op: OP.ISTORE, var: 280 },
      { op: OP.IINC, var: 280, inc: 1000 },
      { op: OP.IINC, var: 280, inc: 1 },
      { op: OP.ILOAD, var: 280 },
      { op: OP.ISTORE, var: 3 },
      { op: OP.IINC, var: 3, inc: -128 },
      { op: OP.ILOAD, var: 3 },
      { op: OP.ISTORE, var: 200 },
      { op: OP.ILOAD, var: 200 },
      { op: OP.IRETURN },
    ]);
    const { m, attr } = addIntMethod(cf, 'wideVars', code);
    expect([...codeBytes(attr)]).toEqual([
      OP.ILOAD_0,
      OP.WIDE, OP.ISTORE, 0x01, 0x18,
      OP.WIDE, OP.IINC, 0x01, 0x18, 0x03, 0xe8,
      OP.WIDE, OP.IINC, 0x01, 0x18, 0x00, 0x01,
      OP.WIDE, OP.ILOAD, 0x01, 0x18,
      OP.ISTORE_3,
      OP.IINC, 3, 0x80,
      OP.ILOAD_3,
      OP.ISTORE, 200,
      OP.ILOAD, 200,
      OP.IRETURN,
    ]);
    expect(u2At(attr.info, 2)).toBe(281); // max_locals from the highest slot used
    const back = insns(readCode(cf, m, attr));
    expect(back[1]).toEqual({ op: OP.ISTORE, var: 280, form: OP.WIDE });
    expect(back[2]).toEqual({ op: OP.IINC, var: 280, inc: 1000, form: OP.WIDE });
    expect(back[5]).toEqual({ op: OP.ISTORE, var: 3, form: OP.ISTORE_3 });
    expect(java(emit(cf), 'Wide', 'wideVars:5')).toBe(String(5 + 1001 - 128));
  });

  it('keeps a form while it encodes the operand, else picks the shortest', () => {
    const cf = host();
    const smallCp = cf.cp.integerIndex(12345);
    expect(smallCp).toBeLessThan(256);
    let bigCp = 0;
    for (let v = 7_000_000; bigCp <= 255; v++) bigCp = cf.cp.integerIndex(v);
    const code = newCode([
      { op: OP.ILOAD, var: 0, form: OP.WIDE }, // stays wide
      { op: OP.ILOAD, var: 0, form: OP.ILOAD }, // stays iload 0
      { op: OP.ILOAD, var: 2, form: OP.ILOAD_0 }, // var changed: iload_2
      { op: OP.ILOAD, var: 300, form: OP.ILOAD }, // no longer fits u1: wide
      { op: OP.IINC, var: 1, inc: 1, form: OP.WIDE }, // stays wide
      { op: OP.LDC, cp: smallCp, form: OP.LDC_W }, // stays ldc_w
      { op: OP.LDC, cp: bigCp, form: OP.LDC }, // no longer fits: ldc_w
      { op: OP.LDC, cp: smallCp }, // shortest
      { op: OP.RETURN },
    ]);
    const m = cf.addMethod(ACC.STATIC, 'forms', '()V');
    const b = codeBytes(writeCode(cf, m, code));
    expect([...b]).toEqual([
      OP.WIDE, OP.ILOAD, 0, 0,
      OP.ILOAD, 0,
      OP.ILOAD_2,
      OP.WIDE, OP.ILOAD, 1, 44,
      OP.WIDE, OP.IINC, 0, 1, 0, 1,
      OP.LDC_W, smallCp >> 8, smallCp & 0xff,
      OP.LDC_W, bigCp >> 8, bigCp & 0xff,
      OP.LDC, smallCp,
      OP.RETURN,
    ]);
  });

  it('computes max_stack over the control flow (handlers start at 1) and keeps a larger recorded value', () => {
    const cf = host();
    // long arithmetic: heights 1, 2, 4, 6, 4, 2, 1
    const longs = newCode([
      { op: OP.ILOAD, var: 0 }, { op: OP.I2L }, { op: OP.LCONST_1 }, { op: OP.LCONST_1 },
      { op: OP.LADD }, { op: OP.LADD }, { op: OP.L2I }, { op: OP.IRETURN },
    ]);
    expect(u2At(addIntMethod(cf, 'longs', longs).attr.info, 0)).toBe(6);
    // 0/0 throws into a handler that dups the exception: heights there are 1, 2.
    const [start, end, handler] = [new Label(), new Label(), new Label()];
    const div = newCode(
      [
        start, { op: OP.BIPUSH, n: 12 }, { op: OP.ILOAD, var: 0 }, { op: OP.IDIV }, { op: OP.IRETURN },
        end, handler, { op: OP.DUP }, { op: OP.POP }, { op: OP.POP }, { op: OP.ICONST_M1 }, { op: OP.IRETURN },
      ],
      [[handler, { locals: ['I'], stack: ['Ljava/lang/ArithmeticException;'] }]],
    );
    div.tryCatch.push({ start, end, handler, catchType: 'java/lang/ArithmeticException', catchTypeIndex: 0 });
    expect(u2At(addIntMethod(cf, 'div', div).attr.info, 0)).toBe(2);
    const recorded = newCode([{ op: OP.ILOAD, var: 0 }, { op: OP.IRETURN }], [], { maxStack: 9, maxLocals: 4 });
    const r = addIntMethod(cf, 'recorded', recorded).attr;
    expect([u2At(r.info, 0), u2At(r.info, 2)]).toEqual([9, 4]);
    expect(java(emit(cf), 'Wide', 'longs:5', 'div:3', 'div:0', 'recorded:7')).toBe('7 4 -1 7');
  });

  it('stackEffect uses the constant pool for invokes, fields and ldc', () => {
    const cf = host();
    const main = readCode(cf, method(cf, 'main'), codeOf(method(cf, 'main')));
    const effects = insns(main).slice(0, 10).map((i) => `${OPCODE_NAMES[i.op]}:${stackEffect(cf.cp, i)}`);
    expect(effects).toEqual([
      'aload:1', 'arraylength:0', 'ifne:-1', 'getstatic:1', 'iconst_5:1',
      'invokestatic:0', 'bipush:1', 'invokestatic:0', 'bipush:1', 'invokestatic:1',
    ]);
    expect(stackEffect(cf.cp, { op: OP.LDC, cp: cf.cp.longIndex(5n) })).toBe(2);
    expect(stackEffect(cf.cp, { op: OP.MULTIANEWARRAY, cp: cf.cp.classIndex('[[I'), n: 2 })).toBe(-1);
  });

  it('throws MethodTooLargeError over 65535 bytes, also when widening pushes a method over', () => {
    const cf = host();
    const m = cf.addMethod(ACC.STATIC, 'big', '(I)V');
    expect(() => writeCode(cf, m, newCode([...nops(65_535), { op: OP.RETURN }]))).toThrow(MethodTooLargeError);
    try {
      writeCode(cf, m, newCode([...nops(65_535), { op: OP.RETURN }]));
    } catch (e) {
      expect((e as MethodTooLargeError).codeLength).toBe(65_536);
      expect((e as Error).message).toContain('Wide.big(I)V');
    }
    expect(writeCode(cf, m, newCode([...nops(65_534), { op: OP.RETURN }])).info.length).toBeGreaterThan(65_535);
    const l = new Label();
    // 1 + 3 + 65527 + 1 = 65532 bytes, but the ifeq is too far and widens by 5.
    const far = newCode([{ op: OP.ILOAD, var: 0 }, { op: OP.IFEQ, target: l }, ...nops(65_527), l, { op: OP.RETURN }], [
      [l, { locals: ['I'], stack: [] }],
    ]);
    expect(() => writeCode(cf, m, far)).toThrow(/65537 bytes/);
  });
});

/** A Code attribute's bytes from parts. */
function rawCode(code: number[], exc: number[][] = [], attrs: { name: number; bytes: number[] }[] = [], maxStack = 4, maxLocals = 8): RawAttribute {
  const out: number[] = [];
  const u2 = (v: number): void => {
    out.push((v >> 8) & 0xff, v & 0xff);
  };
  const u4 = (v: number): void => {
    u2(v >>> 16);
    u2(v & 0xffff);
  };
  u2(maxStack);
  u2(maxLocals);
  u4(code.length);
  out.push(...code);
  u2(exc.length);
  for (const e of exc) e.forEach(u2);
  u2(attrs.length);
  for (const a of attrs) {
    u2(a.name);
    u4(a.bytes.length);
    out.push(...a.bytes);
  }
  return { nameIndex: 0, name: 'Code', info: Uint8Array.from(out) };
}

describe('StackMapTable corner cases', () => {
  // ifElse is static (I)I, so the implicit initial frame is locals [int].
  const smt = [
    0, 5,
    255, 0, 0, 0, 3, 1, 1, 0, 0, 0, // full_frame @0: locals int, int, top (ends in Top); stack empty
    253, 0, 0, 4, 0, // append_frame @1: long, then an explicit top
    250, 0, 0, // chop_frame 1 @2: drops the top
    255, 0, 0, 0, 2, 3, 0, 0, 1, 4, // full_frame @3: locals double, top; stack long
    247, 0, 0, 1, // same_locals_1_stack_item_frame_extended @4 where the short form would do
  ];
  const code = [OP.NOP, OP.NOP, OP.NOP, OP.NOP, OP.ICONST_0, OP.IRETURN];

  it('decodes locals ending in Top and long/double followed by explicit Top, and round-trips them', () => {
    const cf = host();
    const m = method(cf, 'ifElse');
    const attr = rawCode(code, [], [{ name: cf.cp.utf8Index('StackMapTable'), bytes: smt }], 2, 6);
    const c = readCode(cf, m, attr);
    const frames = [...c.frames!.values()];
    expect(frames).toEqual([
      { locals: ['I', 'I', 'T'], stack: [] },
      { locals: ['I', 'I', 'T', 'J', 'T', 'T'], stack: [] },
      { locals: ['I', 'I', 'T', 'J', 'T'], stack: [] },
      { locals: ['D', 'T', 'T'], stack: ['J'] },
      { locals: ['D', 'T', 'T'], stack: ['I'] },
    ]);
    expect([...c.frameKinds.values()]).toEqual([255, 253, 250, 255, 247]);
    const out = writeCode(cf, m, c);
    expect([...out.info]).toEqual([...attr.info]);
  });

  it('chooses compact kinds for frames without a recorded kind, dropping trailing Tops', () => {
    const cf = host();
    const m = method(cf, 'ifElse');
    const attr = rawCode(code, [], [{ name: cf.cp.utf8Index('StackMapTable'), bytes: smt }], 2, 6);
    const c = readCode(cf, m, attr);
    c.frameKinds.clear();
    const out = writeCode(cf, m, c);
    const back = readCode(cf, m, out);
    // @0 append int; @1 append top, long (its explicit trailing Top dropped), so @2 is the same
    // frame; @3 full; @4 the short same_locals_1_stack_item.
    expect([...back.frameKinds.values()]).toEqual([252, 253, 0, 255, 64 + 0]);
    const trim = (f: Frame): Frame => {
      const l = [...f.locals];
      while (l.length > 0 && l[l.length - 1] === 'T' && !['J', 'D'].includes(l[l.length - 2] as string)) l.pop();
      return { locals: l, stack: f.stack };
    };
    expect([...back.frames!.values()].map(trim)).toEqual([...c.frames!.values()].map(trim));
  });
});

describe('readCode rejects malformed code with ClassFormatError naming class and method', () => {
  const cases: [string, () => RawAttribute, RegExp][] = [
    ['unknown opcode', () => rawCode([OP.NOP, 0xcb, OP.RETURN]), /unknown opcode 0xcb at 1/],
    ['truncated instruction', () => rawCode([OP.NOP, OP.SIPUSH, 1]), /truncated sipush at 1/],
    ['branch into an instruction', () => rawCode([OP.GOTO, 0, 1]), /goto at 0 jumps to 1, into the middle of an instruction/],
    ['branch outside the code', () => rawCode([OP.GOTO, 0, 100]), /jumps to 100, outside the code/],
    ['backward branch outside the code', () => rawCode([OP.NOP, OP.GOTO_W, 0xff, 0xff, 0xff, 0xf0]), /outside the code/],
    ['wide on a non-wideable opcode', () => rawCode([OP.WIDE, OP.IADD, OP.RETURN]), /wide at 0 modifies iadd/],
    ['truncated wide', () => rawCode([OP.NOP, OP.WIDE, OP.ILOAD, 0]), /truncated wide at 1/],
    ['empty exception range', () => rawCode([OP.NOP, OP.RETURN], [[1, 1, 0, 0]]), /start_pc 1 is not before end_pc 1/],
    ['handler in an instruction', () => rawCode([OP.SIPUSH, 0, 1, OP.RETURN], [[0, 3, 1, 0]]), /handler_pc: offset 1 is not at the start/],
    ['exception range past the code', () => rawCode([OP.NOP, OP.RETURN], [[0, 3, 0, 0]]), /end_pc: offset 3 is outside/],
    ['code_length 0', () => rawCode([]), /code_length 0/],
    ['tableswitch low > high', () => rawCode([OP.ILOAD_0, OP.TABLESWITCH, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1]), /low 5 > high 1/],
  ];
  for (const [what, make, message] of cases) {
    it(what, () => {
      const cf = host();
      const m = method(cf, 'ifElse');
      expect(() => readCode(cf, m, make())).toThrow(ClassFormatError);
      expect(() => readCode(cf, m, make())).toThrow(message);
      expect(() => readCode(cf, m, make())).toThrow(/Wide\.ifElse\(I\)I: /);
    });
  }

  it('bad sub-attribute offsets: frames, uninitialized, line numbers, local variables', () => {
    const cf = host();
    const m = method(cf, 'ifElse');
    const smt = cf.cp.utf8Index('StackMapTable');
    const lnt = cf.cp.utf8Index('LineNumberTable');
    const code = [OP.SIPUSH, 0, 1, OP.NOP, OP.IRETURN];
    const bad = (name: number, bytes: number[]): (() => MethodCode) => () => readCode(cf, m, rawCode(code, [], [{ name, bytes }]));
    expect(bad(smt, [0, 1, 1])).toThrow(/frame 0 at offset 1 is not at an instruction/);
    expect(bad(smt, [0, 2, 3, 60])).toThrow(/frame 1 at offset 64 is outside the code/);
    expect(bad(smt, [0, 1, 64 + 3, 8, 0, 0])).toThrow(/uninitialized\(0\) does not name a new instruction/);
    expect(bad(smt, [0, 1, 200])).toThrow(/reserved frame type 200/);
    expect(bad(smt, [0, 1, 248, 0, 3])).toThrow(/chop_frame removes 3 of 1 locals/);
    expect(bad(lnt, [0, 1, 0, 2, 0, 7])).toThrow(/LineNumberTable\[0\] start_pc: offset 2 is not at the start/);
    expect(bad(lnt, [0, 2, 0, 0, 0, 7])).toThrow(/LineNumberTable length/);
  });
});

describe('javac type annotations in code', () => {
  it('round-trip exactly and survive a relayout (verified by running)', () => {
    const dir = join(work, 'annotated');
    mkdirSync(dir, { recursive: true });
    javac('Annotated.java', dir);
    const bytes = readFileSync(join(dir, 'Annotated.class'));
    const cf = ClassFile.parse(bytes, 'Annotated.class');
    const m = method(cf, 'run');
    const code = readCode(cf, m, codeOf(m));
    const anns = code.attributes.flatMap((a) =>
      a.kind === 'RuntimeVisibleTypeAnnotations' || a.kind === 'RuntimeInvisibleTypeAnnotations' ? a.annotations : [],
    );
    const targets = new Set(anns.map((a) => a.targetType));
    for (const t of [0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x47, 0x49]) expect(targets.has(t), `target 0x${t.toString(16)}`).toBe(true);
    expect([...writeCode(cf, m, code).info]).toEqual([...codeOf(m).info]);
    // Shift every offset: one NOP before each instruction.
    code.nodes = code.nodes.flatMap((n): Node[] => (isLabel(n) ? [n] : [{ op: OP.NOP }, n]));
    const before = layoutCode(cf, m, code);
    const out = writeCode(cf, m, code);
    const back = readCode(cf, m, out);
    const backAnns = back.attributes.flatMap((a) =>
      a.kind === 'RuntimeVisibleTypeAnnotations' || a.kind === 'RuntimeInvisibleTypeAnnotations' ? a.annotations : [],
    );
    expect(backAnns.length).toBe(anns.length);
    // Offset targets follow their instructions.
    anns.forEach((a, k) => {
      if (a.insn) {
        const insnAt = insns(back).find((_, j) => j === insns(code).indexOf(a.insn!));
        expect(insnAt?.op).toBe(a.insn.op);
        expect(before.insnOffsets.get(a.insn)).toBeGreaterThan(0);
      }
      expect([...backAnns[k]!.rest]).toEqual([...a.rest]);
    });
    setCode(m, out);
    const outDir = mkdtempSync(join(work, 'ann-'));
    for (const f of ['Annotated$Vis.class', 'Annotated$Invis.class']) writeFileSync(join(outDir, f), readFileSync(join(dir, f)));
    writeFileSync(join(outDir, 'Annotated.class'), cf.toBytes());
    expect(java(outDir, 'Annotated')).toBe(java(dir, 'Annotated'));
  });
});
