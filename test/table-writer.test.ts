// The table writer (src/bytecode/table-writer.ts, docs/non-object-ir.md step 3): code written back
// from a CodeTable with byte fragments inserted. Without insertions it must give every method's
// Code attribute back byte for byte; with code inserted before every block, HotSpot must verify the
// result and JFlex must still write the same scanner.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TableBlocks } from '../src/analysis/table-blocks.js';
import { TableStack } from '../src/analysis/table-stack.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { writeCode } from '../src/bytecode/code-writer.js';
import { ClassFile, findAttribute } from '../src/classfile/classfile.js';
import { firstClassIndex } from '../src/classfile/class-refs.js';
import { argSlots } from '../src/classfile/descriptor.js';
import { ACC, type MemberInfo } from '../src/classfile/model.js';
import { shiftFrame, shiftLocals } from '../src/edit/method-editor.js';
import { simulateFrames } from '../src/analysis/frames.js';
import { Label, isLabel, type Insn, type Node } from '../src/bytecode/ir.js';
import { ITEM, vtObject } from '../src/bytecode/stack-map.js';
import { CodeTable } from '../src/bytecode/code-table.js';
import { Fmt, OP, OPCODE_FORMATS } from '../src/bytecode/opcodes.js';
import { ENTRY, TableWriter, TableWriterLimit, type Insertion } from '../src/bytecode/table-writer.js';
import { readZip, writeZip } from '../src/jar/zip.js';
import { field, invoke, load, op, pushInt } from '../src/bytecode/emit.js';
import { CounterRefs, counterFragment } from '../src/kinds/komorium/body/counter-fragment.js';
import { ExtendedRefs, extendedInvoke, extraArguments } from '../src/kinds/komorium/body/call-fragment.js';
import { extendDescriptor, extendedName } from '../src/kinds/komorium/runtime-names.js';
import { debianClasspathFor, debianJar, jflexJavaFlex, type DebianJarName } from './support/corpus.js';
import { runJava, tmpDir } from './support/java.js';
import { verifyJar } from './support/verify.js';

/**
 * Fragments that leave the stack as they found it: a nop, and two that push 1 and 3 words first,
 * so that max_stack must make room for them. Their sizes differ, so later switches' padding moves.
 */
const FRAGMENTS: Insertion[] = [
  { before: 0, bytes: Uint8Array.of(OP.NOP), stack: 0 },
  { before: 0, bytes: Uint8Array.of(OP.ICONST_0, OP.POP), stack: 1 },
  { before: 0, bytes: Uint8Array.of(OP.ICONST_0, OP.ICONST_0, OP.ICONST_0, OP.POP2, OP.POP), stack: 3 },
];

/**
 * Every class of `jar` with each method's code passed through `edit` (which returns its new Code
 * body, or throws TableWriterLimit); the jar's other entries as they are.
 */
type Edit = (t: CodeTable, info: Uint8Array, w: TableWriter, method: string, m: MemberInfo, cf: ClassFile) => Uint8Array;

function rewriteJar(jar: string, edit: Edit) {
  const t = new CodeTable();
  const entries: { name: string; data: Uint8Array; isDirectory: boolean }[] = [];
  let methods = 0;
  const limits: string[] = [];
  for (const e of readZip(jar, readFileSync(jar))) {
    if (!e.name.endsWith('.class')) {
      entries.push({ name: e.name, data: e.data, isDirectory: e.isDirectory });
      continue;
    }
    const cf = ClassFile.parse(e.data, e.name);
    const w = new TableWriter(cf.cp, e.name, cf.thisClass);
    for (const m of cf.methods) {
      const code = findAttribute(m.attributes, 'Code');
      if (!code) continue;
      methods++;
      const name = m.name + m.desc;
      try {
        code.info = edit(t.decode(code.info, e.name, name), code.info, w, name, m, cf);
      } catch (err) {
        if (!(err instanceof TableWriterLimit)) throw err;
        limits.push(`${e.name} ${err.message}`);
      }
    }
    entries.push({ name: e.name, data: cf.toBytes(), isDirectory: false });
  }
  return { entries, methods, limits };
}

/**
 * A fragment before the first instruction of every block, and before every `new`, so that an
 * uninitialized(offset) type must follow the `new` and not the code before it.
 */
function nopsBeforeBlocks(): (t: CodeTable, info: Uint8Array, w: TableWriter, method: string) => Uint8Array {
  const blocks = new TableBlocks();
  const stack = new TableStack();
  return (t, info, w, method) => {
    blocks.compute(t);
    const insertions: Insertion[] = [];
    let b = 0;
    for (let i = 0; i < t.n; i++) {
      const starts = b < blocks.count && blocks.starts[b] === i;
      if (starts) b++;
      if (starts || t.op[i] === OP.NEW) insertions.push({ ...FRAGMENTS[(b + i) % 3]!, before: i });
    }
    return w.write(t, info, insertions, method, { stack: stack.compute(t, info, w.cp) });
  };
}

/** `iconst_0; ifne END; iconst_0; pop; END:` — a fragment with a branch of its own, stack-neutral. */
const BRANCHING = Uint8Array.of(OP.ICONST_0, OP.IFNE, 0, 5, OP.ICONST_0, OP.POP);

const TC = 'komorium/runtime/TC';

/** body/counter.ts's field counter of a piece of `n` instructions, checked when `skip` is given; tc, stack and sp in locals at, at + 1, at + 2. */
function counterNodes(cp: ClassFile['cp'], n: number, skip: Label | null, at: number): Node[] {
  const out: Node[] = [load(OP.ALOAD, at), op(OP.DUP), field(cp, OP.GETFIELD, TC, 'instrCounter', 'I'), pushInt(cp, n), op(OP.ISUB)];
  if (skip === null) return [...out, field(cp, OP.PUTFIELD, TC, 'instrCounter', 'I')];
  out.push(op(OP.DUP_X1), field(cp, OP.PUTFIELD, TC, 'instrCounter', 'I'), { op: OP.IFGT, target: skip }, load(OP.ALOAD, at), load(OP.ALOAD, at + 1), load(OP.ILOAD, at + 2));
  return [...out, invoke(cp, OP.INVOKEVIRTUAL, TC, 'triggerSampling', '([II)V'), skip];
}

/** Where a method's new locals go: after its parameters, as Komorium's extra arguments do. */
const paramSlots = (m: MemberInfo): number => argSlots(m.desc) + ((m.access & ACC.STATIC) === 0 ? 1 : 0);

/** Three new locals (int, the class itself, float): an Object type as well as two primitives. */
const newLocals = (cf: ClassFile) => [ITEM.Integer, vtObject(firstClassIndex(cf.cp, cf.thisClass)), ITEM.Float];

/** `store` of local `v`, wide past 255. */
const storeOf = (store: number, v: number): number[] => (v <= 255 ? [store, v] : [OP.WIDE, store, v >> 8, v & 255]);

/**
 * Three new locals after the parameters of every method, given values at the entry (0, null, 0.0:
 * null is assignable to the class), and a fragment before every block that reads and writes them
 * and branches (`iload n; ifne END; iinc n 1; END:`, the frame at END its block's): HotSpot must
 * verify it, and a local renumbered wrongly shows in the program's output.
 */
function newLocalsEverywhere(): Edit {
  const blocks = new TableBlocks();
  const stack = new TableStack();
  return (t, info, w, method, m, cf) => {
    const at = paramSlots(m);
    const entry = [OP.ICONST_0, ...storeOf(OP.ISTORE, at), OP.ACONST_NULL, ...storeOf(OP.ASTORE, at + 1), OP.FCONST_0, ...storeOf(OP.FSTORE, at + 2)];
    const insertions: Insertion[] = [{ before: ENTRY, bytes: Uint8Array.from(entry), stack: 1 }];
    // The int local read and written in every block: it must be the new slot and not one of the method's own.
    const load = at <= 255 ? [OP.ILOAD, at] : [OP.WIDE, OP.ILOAD, at >> 8, at & 255];
    const iinc = at <= 255 ? [OP.IINC, at, 1] : [OP.WIDE, OP.IINC, at >> 8, at & 255, 0, 1];
    const touch = Uint8Array.from([...load, OP.IFNE, 0, 3 + iinc.length, ...iinc]);
    const frames = cf.major >= 50 ? { frames: [touch.length] } : {};
    blocks.compute(t);
    for (let b = 0; b < blocks.count; b++) insertions.push({ before: blocks.starts[b]!, bytes: touch, stack: 1, ...frames });
    return w.write(t, info, insertions, method, { stack: stack.compute(t, info, w.cp), locals: { at, types: newLocals(cf), parameters: false }, member: m });
  };
}

function classesOf(jar: string): { name: string; data: Uint8Array }[] {
  return readZip(jar, readFileSync(jar)).filter((e) => e.name.endsWith('.class'));
}

/**
 * Three new locals after the parameters of every method of `classes`, by the table writer and by
 * the object pipeline (shiftLocals, writeCode), each on a class file of its own so that the
 * constant pool entries each adds are compared too. Methods where a long or double straddles the
 * new slot are counted apart (the table writer does not move one yet).
 */
function localsAgainstObjects(classes: { name: string; data: Uint8Array }[], mode: 'locals' | 'branching' | 'counters' | 'catchall' | 'calls' = 'locals') {
  const counters = mode === 'counters' || mode === 'calls';
  const branching = mode === 'branching' || counters;
  const stack = new TableStack();
  const blocks = new TableBlocks();
  const t = new CodeTable();
  let methods = 0;
  let straddled = 0;
  const wrong: string[] = [];
  for (const e of classes) {
    const objects = ClassFile.parse(e.data, e.name);
    const table = ClassFile.parse(e.data, e.name);
    const w = new TableWriter(table.cp, e.name, table.thisClass);
    const vtypes = counters ? [`L${TC};`, '[I', 'I'] : ['I', `L${objects.thisClass};`, 'F'];
    const types = counters ? [TC, '[I', ITEM.Integer] : newLocals(table);
    const refs = new CounterRefs(table.cp);
    const extended = new ExtendedRefs(table.cp);
    objects.methods.forEach((m, k) => {
      const code = findAttribute(m.attributes, 'Code');
      if (!code) return;
      const name = m.name + m.desc;
      const at = paramSlots(m);
      const ir = readCode(objects, m, code);
      const framesBefore = branching ? simulateFrames(objects, m, ir) : [];
      if (shiftLocals(ir, at, vtypes, objects.cp) >= 0) {
        straddled++;
        return;
      }
      methods++;
      const info = findAttribute(table.methods[k]!.attributes, 'Code')!.info;
      t.decode(info, e.name, name);
      const insertions: Insertion[] = [];
      const replace = new Map<number, Uint8Array>();
      refs.fragment.reset();
      if (branching) {
        // The same fragment both ways before every block whose frame is known: a branch over two
        // instructions, whose target needs a frame in class files that have them.
        blocks.compute(t);
        const framed = objects.major >= 50;
        if (framed) ir.frames ??= new Map();
        const nodes: Node[] = [];
        let insn = 0;
        let b = 0;
        ir.nodes.forEach((n, j) => {
          if (!isLabel(n)) {
            const starts = b < blocks.count && blocks.starts[b] === insn;
            if (starts) b++;
            const frame = framesBefore[j];
            if (starts && counters) {
              // Komorium's field counter (body/counter.ts), checked where a frame is known.
              const size = (b < blocks.count ? blocks.starts[b]! : t.n) - insn;
              const skip = frame ? new Label() : null;
              nodes.push(...counterNodes(objects.cp, size, skip, at));
              if (skip && framed) ir.frames!.set(skip, shiftFrame(frame!, at, vtypes, -1));
              const f = counterFragment(refs, size, frame != null, frame != null && framed, at);
              insertions.push({ before: insn, bytes: f.bytes, stack: 3, ...(f.frames.length ? { frames: f.frames } : {}) });
            } else if (starts && frame) {
              const skip = new Label();
              nodes.push({ op: OP.ICONST_0 }, { op: OP.IFNE, target: skip }, { op: OP.ICONST_0 }, { op: OP.POP }, skip);
              if (framed) ir.frames!.set(skip, shiftFrame(frame, at, vtypes, -1));
              insertions.push({ before: insn, bytes: BRANCHING, stack: 1, ...(framed ? { frames: [BRANCHING.length] } : {}) });
            }
            if (mode === 'calls' && isExtendable(objects, n as Insn)) {
              // Every call as an extended one (calls.ts): the three arguments, then the extended callee.
              const ref = objects.cp.memberRef((n as Insn).cp!);
              const name = extendedName(ref.name);
              const desc = extendDescriptor(ref.desc);
              nodes.push(load(OP.ALOAD, at), load(OP.ALOAD, at + 1), load(OP.ILOAD, at + 2));
              nodes.push({ op: (n as Insn).op, cp: ref.isInterface ? objects.cp.interfaceMethodrefIndex(ref.owner, name, desc) : objects.cp.methodrefIndex(ref.owner, name, desc) });
              insertions.push({ before: insn, bytes: extraArguments(refs.fragment, at).bytes, stack: 3 });
              replace.set(insn, extendedInvoke(extended, refs.fragment, t.op[insn]!, (t.code[t.pc[insn]! + 1]! << 8) | t.code[t.pc[insn]! + 2]!, t.code[t.pc[insn]! + 3]!));
              insn++;
              return;
            }
            insn++;
          }
          nodes.push(n);
        });
        ir.nodes = nodes;
      }
      const handlers = mode === 'catchall' && m.name !== '<init>' ? catchAll(ir, insertions, t.n, objects.major >= 50) : [];
      const expected = writeCode(objects, m, ir).info;
      let got: Uint8Array;
      try {
        got = w.write(t, info, insertions, name, { stack: stack.compute(t, info, table.cp), locals: { at, types, parameters: false }, member: m, handlers, replace });
      } catch (err) {
        wrong.push(`${e.name} ${name}: ${(err as Error).message}`);
        return;
      }
      if (Buffer.compare(Buffer.from(got), Buffer.from(expected)) !== 0) wrong.push(`${e.name} ${name}: ${firstDifference(got, expected)}`);
    });
    if (table.cp.size !== objects.cp.size) wrong.push(`${e.name}: constant pool of ${table.cp.size} entries, the object pipeline's ${objects.cp.size}`);
  }
  return { methods, straddled, wrong };
}

/** A call that calls.ts could make extended: not invokedynamic, not a constructor. */
function isExtendable(cf: ClassFile, n: Insn): boolean {
  if (n.op < OP.INVOKEVIRTUAL || n.op > OP.INVOKEINTERFACE) return false;
  return cf.cp.memberRef(n.cp!).name !== '<init>';
}

/**
 * A handler over the whole method that rethrows (`athrow`, its frame all Top and a Throwable), as
 * Komorium's catch-all is made: appended to the object code, and returned as the table writer's
 * insertion (at the end) and exception table entry.
 */
function catchAll(ir: ReturnType<typeof readCode>, insertions: Insertion[], n: number, framed: boolean) {
  const start = new Label();
  const end = new Label();
  const handler = new Label();
  ir.nodes = [start, ...ir.nodes, end, handler, op(OP.ATHROW)];
  ir.tryCatch.push({ start, end, handler, catchType: null, catchTypeIndex: 0 });
  if (framed) (ir.frames ??= new Map()).set(handler, { locals: [], stack: ['Ljava/lang/Throwable;'] });
  insertions.push({ before: n, bytes: Uint8Array.of(OP.ATHROW), stack: 1, ...(framed ? { ownFrames: [{ at: 0, locals: [], stack: ['java/lang/Throwable'] }] } : {}) });
  return [{ start: 0, end: n, handler: insertions.length - 1, catchType: 0 }];
}

/**
 * After every invoke that falls through, `iconst_0; pop` that only the fall-through runs, and every
 * iconst_m1 … iconst_5 written as bipush: two bytes where there was one, so everything after moves.
 */
function afterCallsAndReplaced(): Edit {
  const stack = new TableStack();
  return (t, info, w, method) => {
    const insertions: Insertion[] = [];
    const replace = new Map<number, Uint8Array>();
    for (let i = 0; i < t.n; i++) {
      const o = t.op[i]!;
      if (o >= OP.ICONST_M1 && o <= OP.ICONST_5) replace.set(i, Uint8Array.of(OP.BIPUSH, o - OP.ICONST_0));
      if (o >= OP.INVOKEVIRTUAL && o <= OP.INVOKEDYNAMIC && i + 1 < t.n) insertions.push({ before: i + 1, bytes: AFTER_CALL, stack: 1, fallThrough: true });
    }
    return w.write(t, info, insertions, method, { stack: stack.compute(t, info, w.cp), replace });
  };
}

const AFTER_CALL = Uint8Array.of(OP.ICONST_0, OP.POP);

/** A handler that rethrows over every method but constructors (whose `this` starts uninitialized). */
function catchAllEverywhere(): Edit {
  return (t, info, w, method, m, cf) => {
    if (m.name === '<init>') return info;
    const frames = cf.major >= 50 ? { ownFrames: [{ at: 0, locals: [], stack: ['java/lang/Throwable'] }] } : {};
    const insertions: Insertion[] = [{ before: t.n, bytes: Uint8Array.of(OP.ATHROW), stack: 1, ...frames }];
    return w.write(t, info, insertions, method, { member: m, handlers: [{ start: 0, end: t.n, handler: 0, catchType: 0 }] });
  };
}

describe('table writer', () => {
  it.each<DebianJarName>(['guava', 'ecj', 'rhino', 'commons-lang3'])('writes every method of %s back byte for byte', (jar) => {
    const changed: string[] = [];
    const { methods, limits } = rewriteJar(debianJar(jar), (t, info, w, method) => {
      const out = w.write(t, info, [], method);
      if (Buffer.compare(Buffer.from(out), Buffer.from(info)) !== 0) changed.push(method);
      return out;
    });
    expect(methods).toBeGreaterThan(3000);
    expect(limits).toEqual([]);
    expect(changed).toEqual([]);
  });

  it.each<DebianJarName>(['guava', 'ecj', 'rhino', 'commons-lang3'])('finds the max_stack of every method of %s that the object code writer finds', (jar) => {
    const stack = new TableStack();
    let methods = 0;
    const wrong: string[] = [];
    for (const e of readZip(debianJar(jar), readFileSync(debianJar(jar)))) {
      if (!e.name.endsWith('.class')) continue;
      const cf = ClassFile.parse(e.data, e.name);
      const t = new CodeTable();
      for (const m of cf.methods) {
        const code = findAttribute(m.attributes, 'Code');
        if (!code) continue;
        methods++;
        // With max_stack 0 read, the object writer writes what it computes.
        const objects = readCode(cf, m, code);
        objects.maxStack = 0;
        const written = writeCode(cf, m, objects).info;
        const expected = (written[0]! << 8) | written[1]!;
        const found = stack.compute(t.decode(code.info, e.name, m.name + m.desc), code.info, cf.cp).max;
        if (found !== expected) wrong.push(`${e.name} ${m.name}${m.desc}: ${found}, the object writer ${expected}`);
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(methods).toBeGreaterThan(3000);
  });

  const EDITS = {
    locals: 'three new locals',
    branching: 'new locals and a fragment that branches, with the frame its target needs, before every block',
    counters: "new locals and Komorium's counters and checks, built as fragments, before every block",
    catchall: 'new locals and a handler over the whole method that rethrows',
    calls: "new locals, Komorium's counters and checks, and every call as a call of its extended method",
  } as const;
  it.each(
    (Object.keys(EDITS) as (keyof typeof EDITS)[]).flatMap((mode) => (['guava', 'ecj', 'rhino', 'commons-lang3'] as const).map((jar) => [EDITS[mode], jar, mode] as const)),
  )('%s in every method of %s: the object pipeline\'s bytes', (_edit, jar, mode) => {
    const { methods, straddled, wrong } = localsAgainstObjects(classesOf(debianJar(jar)), mode);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(methods).toBeGreaterThan(3000);
    expect(straddled).toBe(0);
  }, 60_000);

  it('keeps a full_frame that a shorter frame type could replace, as the object pipeline does', () => {
    // javac picks the shortest frame type, so the input is commons-lang3 with every frame rewritten as a full_frame.
    const full = classesOf(debianJar('commons-lang3')).map(({ name, data }) => {
      const cf = ClassFile.parse(data, name);
      for (const m of cf.methods) {
        const code = findAttribute(m.attributes, 'Code');
        if (!code) continue;
        const ir = readCode(cf, m, code);
        for (const l of ir.frameKinds.keys()) ir.frameKinds.set(l, 255);
        code.info = writeCode(cf, m, ir).info;
      }
      return { name, data: cf.toBytes() };
    });
    const { methods, wrong } = localsAgainstObjects(full);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(methods).toBeGreaterThan(3000);
  });

  /** Edits whose output HotSpot must verify as it verified the original, and JFlex must run the same. */
  const RUN: [string, () => Edit, DebianJarName[]][] = [
    ['code before every block and every new', nopsBeforeBlocks, ['guava', 'ecj', 'jflex']],
    ['new locals, given values at the entry and used in every block, with a branch and its frame', newLocalsEverywhere, ['guava', 'jflex']],
    ['code after every call, and every iconst written as bipush', afterCallsAndReplaced, ['guava']],
    ['a handler that rethrows over every method but constructors', catchAllEverywhere, ['guava', 'jflex']],
  ];

  it.each(RUN.flatMap(([what, edit, jars]) => jars.map((jar) => [what, jar, edit] as const)))('%s in %s: HotSpot verifies it as it did the original', (_what, jar, edit) => {
    const work = tmpDir('komorium-table-writer-');
    const { entries, limits } = rewriteJar(debianJar(jar), edit());
    expect(limits).toEqual([]);
    const out = join(work, `${jar}.jar`);
    writeFileSync(out, writeZip(entries, new Date(Date.UTC(1980, 1, 1))));
    const cp = debianClasspathFor(jar).filter((p) => p !== debianJar(jar));
    const before = verifyJar(debianJar(jar), cp);
    const after = verifyJar(out, cp);
    expect(after.classes).toBe(before.classes);
    expect(after.verifyErrors).toEqual([]);
    expect(after.other).toEqual(before.other);
    expect(after.verified).toBe(before.verified);
    expect(after.verified).toBeGreaterThan(0.9 * after.classes);
  });

  it.each(RUN.map(([what, edit]) => [what, edit] as const))('%s in JFlex: it writes the same scanner', async (_what, edit) => {
    const work = tmpDir('komorium-table-writer-jflex-');
    const jar = debianJar('jflex');
    const cp = debianClasspathFor('jflex').filter((p) => p !== jar);
    const out = join(work, 'jflex-edited.jar');
    writeFileSync(out, writeZip(rewriteJar(jar, edit()).entries, new Date(Date.UTC(1980, 1, 1))));
    const run = async (jarPath: string, dir: string) => {
      mkdirSync(dir);
      const r = await runJava({ cp: [jarPath, ...cp], main: 'jflex.Main', args: ['-d', dir, jflexJavaFlex()] });
      expect(r.code, r.stderr).toBe(0);
      return { stdout: r.stdout.replaceAll(dir, '<out>'), scanner: readFileSync(join(dir, 'Scanner.java'), 'utf8'), files: readdirSync(dir) };
    };
    const plain = await run(jar, join(work, 'plain'));
    const edited = await run(out, join(work, 'edited'));
    expect(edited).toEqual(plain);
    expect(plain.scanner.length).toBeGreaterThan(10_000);
  });

  it('lands jumps to the instruction after a call past the code that only falls through', () => {
    // A jump to i lands on what was inserted before i, but after what only falls through into it.
    let checked = 0;
    rewriteJar(debianJar('commons-lang3'), (t, info, w, method) => {
      const insertions: Insertion[] = [];
      for (let i = 1; i < t.n; i++) {
        const o = t.op[i - 1]!;
        if (o >= OP.INVOKEVIRTUAL && o <= OP.INVOKEDYNAMIC) insertions.push({ before: i, bytes: Uint8Array.of(OP.NOP, OP.NOP), fallThrough: true }, { before: i, bytes: Uint8Array.of(OP.NOP) });
      }
      const out = w.write(t, info, insertions, method);
      const moved = new CodeTable().decode(out, 'x', method);
      for (let i = 0; i < t.n; i++) {
        if (OPCODE_FORMATS[t.op[i]!] !== Fmt.BRANCH) continue;
        const to = t.target[i]!;
        const called = to > 0 && t.op[to - 1]! >= OP.INVOKEVIRTUAL && t.op[to - 1]! <= OP.INVOKEDYNAMIC;
        if (!called) continue;
        // The new code's instruction for old i: count the nops inserted before it.
        const newIndex = (j: number) => j + 3 * insertions.filter((x) => x.before <= j && !x.fallThrough).length;
        const landing = moved.target[newIndex(i)]!;
        expect(moved.op[landing]).toBe(OP.NOP); // the one nop before the target, not the two that fall through
        expect(moved.op[landing - 1]).toBe(OP.NOP);
        expect(moved.op[landing - 2]).toBe(OP.NOP);
        expect(moved.op[landing + 1]).toBe(t.op[to]);
        checked++;
      }
      return info;
    });
    expect(checked).toBeGreaterThan(50);
  });

  it('moves line numbers and local variable ranges to the code inserted before their instruction', () => {
    const blocks = new TableBlocks();
    const insert = (t: CodeTable, info: Uint8Array, w: TableWriter, method: string): Uint8Array => {
      blocks.compute(t);
      const insertions: Insertion[] = [];
      for (let b = 0; b < blocks.count; b++) insertions.push({ before: blocks.starts[b]!, bytes: new Uint8Array(1 + (b % 3)) }); // nops
      return w.write(t, info, insertions, method);
    };
    let lines = 0;
    let locals = 0;
    const wrong: string[] = [];
    /** The (offset, value) pairs of a LineNumberTable or the (start, end) of each LocalVariableTable entry. */
    const table = (info: Uint8Array, cf: ClassFile, name: string): [number, number][] => {
      const len = ((info[4]! << 24) | (info[5]! << 16) | (info[6]! << 8) | info[7]!) >>> 0;
      let p = 8 + len;
      p += 2 + 8 * ((info[p]! << 8) | info[p + 1]!);
      const out: [number, number][] = [];
      for (let a = (info[p]! << 8) | info[p + 1]!, q = p + 2; a > 0; a--) {
        const body = info.subarray(q + 6, q + 6 + ((info[q + 2]! << 24) | (info[q + 3]! << 16) | (info[q + 4]! << 8) | info[q + 5]!));
        if (cf.cp.utf8((info[q]! << 8) | info[q + 1]!) === name) {
          const size = name === 'LineNumberTable' ? 4 : 10;
          for (let k = 0; k < ((body[0]! << 8) | body[1]!); k++) {
            const o = 2 + size * k;
            const a0 = (body[o]! << 8) | body[o + 1]!;
            const b0 = (body[o + 2]! << 8) | body[o + 3]!;
            out.push(name === 'LineNumberTable' ? [a0, b0] : [a0, a0 + b0]);
          }
        }
        q += 6 + body.length;
      }
      return out;
    };
    const jar = debianJar('commons-lang3');
    for (const e of readZip(jar, readFileSync(jar))) {
      if (!e.name.endsWith('.class')) continue;
      const cf = ClassFile.parse(e.data, e.name);
      const w = new TableWriter(cf.cp, e.name, cf.thisClass);
      const t = new CodeTable();
      const moved = new CodeTable();
      for (const m of cf.methods) {
        const code = findAttribute(m.attributes, 'Code');
        if (!code) continue;
        const name = m.name + m.desc;
        const out = insert(t.decode(code.info, e.name, name), code.info, w, name);
        moved.decode(out, e.name, name);
        // Original instruction i is the i-th instruction of the new code that is not a nop (the
        // original code has none: checked); it should be reached through the nops before it.
        const kept: number[] = [];
        for (let j = 0; j < moved.n; j++) if (moved.op[j] !== OP.NOP) kept.push(j);
        if (kept.length !== t.n) throw new Error(`${e.name} ${name} has nops of its own`);
        const landing = (pc: number): number => {
          let i = 0;
          while (i < t.n && t.pc[i]! < pc) i++;
          if (i === t.n) return moved.codeLength;
          let j = kept[i]!;
          while (j > 0 && moved.op[j - 1] === OP.NOP) j--;
          return moved.pc[j]!;
        };
        const before = table(code.info, cf, 'LineNumberTable');
        const after = table(out, cf, 'LineNumberTable');
        before.forEach(([pc, line], k) => {
          lines++;
          if (after[k]![1] !== line || after[k]![0] !== landing(pc)) wrong.push(`${e.name} ${name}: line ${line} at ${pc} moved to ${after[k]![0]}`);
        });
        for (const kind of ['LocalVariableTable', 'LocalVariableTypeTable']) {
          const was = table(code.info, cf, kind);
          const now = table(out, cf, kind);
          was.forEach(([start, end], k) => {
            locals++;
            if (now[k]![0] !== landing(start) || now[k]![1] !== landing(end)) wrong.push(`${e.name} ${name}: ${kind} ${start}-${end} moved to ${now[k]!.join('-')}`);
          });
        }
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(lines).toBeGreaterThan(10_000);
    expect(locals).toBeGreaterThan(5_000);
  });

  it('says when a branch would need widening, for the caller to write the method another way', () => {
    let said = '';
    rewriteJar(debianJar('commons-lang3'), (t, info, w, method) => {
      if (said !== '') return info;
      // A backward branch: code inserted between its target and itself pushes it past 32,767 bytes.
      for (let i = 0; i < t.n; i++) {
        if (OPCODE_FORMATS[t.op[i]!] === Fmt.BRANCH && t.target[i]! < i) {
          try {
            w.write(t, info, [{ before: i, bytes: new Uint8Array(33_000) }], method);
          } catch (e) {
            said = (e as Error).message;
            expect(e).toBeInstanceOf(TableWriterLimit);
          }
          break;
        }
      }
      return info;
    });
    expect(said).toMatch(/the branch at \d+ would need widening/);
  });
});

/** Where two byte arrays first differ, for a message. */
function firstDifference(a: Uint8Array, b: Uint8Array): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `${a.length} bytes against ${b.length}, first difference at byte ${i}`;
}
