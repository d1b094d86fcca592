#!/usr/bin/env node
// The table writer's speed (docs/non-object-ir.md, step 3): every method of JAR decoded into a
// CodeTable, its blocks and stack depths found, and written back by TableWriter with a 15-byte
// fragment (the size of a counter update, 3 words deep) before every block, max_stack made room
// for. Classes are parsed beforehand; each round is timed.
//
// With --locals, three new locals go after each method's parameters as well (loads, stores, frames
// and local tables renumbered), and each round also times the object pipeline doing that alone
// (readCode, shiftLocals, writeCode) against the table doing it alone (decode, stack, write).
// With --counters as well, both insert Komorium's field counter and check (body/counter.ts) before
// every block, the new locals being its thread context, stack and stack pointer; the check's skip
// label gets a stack map frame simulated from the nearest recorded one. The object pipeline builds
// them with emit.ts (a constant pool lookup per instruction), the table with Fragment (the runtime's
// members resolved once per class). Both must give the same Code bytes; the count that differ is
// printed.
//
// With --calls as well, every call but invokedynamic and constructors becomes a call of its extended
// method (calls.ts), passing the three locals: the object pipeline looks the extended method up at
// every call site, the table once per callee and class (call-fragment.ts).
//
//   node scripts/bench/table-writer.mjs [JAR] [--rounds N] [--locals [--counters [--calls]]]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'dist');
const args = process.argv.slice(2);
let jar = '/usr/share/java/guava.jar';
let rounds = 7;
let withLocals = false;
let counters = false;
let calls = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i] === '--locals') withLocals = true;
  else if (args[i] === '--counters') counters = true;
  else if (args[i] === '--calls') calls = counters = true;
  else jar = resolve(args[i]);
}
const { ClassFile, findAttribute } = await import(join(DIST, 'classfile/classfile.js'));
const { readZip } = await import(join(DIST, 'jar/zip.js'));
const { CodeTable } = await import(join(DIST, 'bytecode/code-table.js'));
const { TableBlocks } = await import(join(DIST, 'analysis/table-blocks.js'));
const { TableStack } = await import(join(DIST, 'analysis/table-stack.js'));
const { TableWriter } = await import(join(DIST, 'bytecode/table-writer.js'));
const { ITEM, vtObject } = await import(join(DIST, 'bytecode/stack-map.js'));
const { firstClassIndex } = await import(join(DIST, 'classfile/class-refs.js'));
const { argSlots } = await import(join(DIST, 'classfile/descriptor.js'));
const { readCode } = await import(join(DIST, 'bytecode/code-reader.js'));
const { writeCode } = await import(join(DIST, 'bytecode/code-writer.js'));
const { shiftLocals, shiftFrame } = await import(join(DIST, 'edit/method-editor.js'));
const { simulateFrames } = await import(join(DIST, 'analysis/frames.js'));
const { Label, isLabel } = await import(join(DIST, 'bytecode/ir.js'));
const { OP } = await import(join(DIST, 'bytecode/opcodes.js'));
const { field, invoke, load, op, pushInt } = await import(join(DIST, 'bytecode/emit.js'));
const { CounterRefs, counterFragment } = await import(join(DIST, 'kinds/komorium/body/counter-fragment.js'));
const { ExtendedRefs, extendedInvoke, extraArguments } = await import(join(DIST, 'kinds/komorium/body/call-fragment.js'));
const { extendDescriptor, extendedName } = await import(join(DIST, 'kinds/komorium/runtime-names.js'));

/** A call that calls.ts could make extended: not invokedynamic, not a constructor. */
const extendable = (cp, op, ref) => op >= OP.INVOKEVIRTUAL && op <= OP.INVOKEINTERFACE && cp.memberRef(ref).name !== '<init>';
const TC = 'komorium/runtime/TC';

/** body/counter.ts's field counter of `n` instructions, checked when `skip` is given; tc, stack, sp in locals at … at + 2. */
function counterNodes(cp, n, skip, at) {
  const out = [load(OP.ALOAD, at), op(OP.DUP), field(cp, OP.GETFIELD, TC, 'instrCounter', 'I'), pushInt(cp, n), op(OP.ISUB)];
  if (skip === null) return [...out, field(cp, OP.PUTFIELD, TC, 'instrCounter', 'I')];
  out.push(op(OP.DUP_X1), field(cp, OP.PUTFIELD, TC, 'instrCounter', 'I'), { op: OP.IFGT, target: skip }, load(OP.ALOAD, at), load(OP.ALOAD, at + 1), load(OP.ILOAD, at + 2));
  return [...out, invoke(cp, OP.INVOKEVIRTUAL, TC, 'triggerSampling', '([II)V'), skip];
}

/** The object pipeline's way: a counter before every block start, checked where the frame is known. */
function insertObjects(cf, ir, framesBefore, starts, n, at, vtypes) {
  const framed = cf.major >= 50;
  if (framed) ir.frames ??= new Map();
  const nodes = [];
  let insn = 0;
  let b = 0;
  ir.nodes.forEach((node, j) => {
    if (!isLabel(node)) {
      const start = b < starts.length && starts[b] === insn;
      if (start) {
        b++;
        // Checked where a branch target can have a frame: everywhere in a class file without frames.
        const skip = !framed || framesBefore[j] ? new Label() : null;
        nodes.push(...counterNodes(cf.cp, (b < starts.length ? starts[b] : n) - insn, skip, at));
        if (skip && framed) ir.frames.set(skip, shiftFrame(framesBefore[j], at, vtypes, -1));
      }
      insn++;
      if (calls && extendable(cf.cp, node.op, node.cp)) {
        const ref = cf.cp.memberRef(node.cp);
        const name = extendedName(ref.name);
        const desc = extendDescriptor(ref.desc);
        nodes.push(load(OP.ALOAD, at), load(OP.ALOAD, at + 1), load(OP.ILOAD, at + 2));
        nodes.push({ op: node.op, cp: ref.isInterface ? cf.cp.interfaceMethodrefIndex(ref.owner, name, desc) : cf.cp.methodrefIndex(ref.owner, name, desc) });
        return;
      }
    }
    nodes.push(node);
  });
  ir.nodes = nodes;
}

const ACC_STATIC = 0x0008;
// (The classes' own types: they add no constant pool entry, which would change what --counters compares.)
const localsOf = (cf, m, komorium = false) => ({
  at: argSlots(m.desc) + ((m.access & ACC_STATIC) === 0 ? 1 : 0),
  types: komorium ? [TC, '[I', ITEM.Integer] : [ITEM.Integer, vtObject(firstClassIndex(cf.cp, cf.thisClass)), ITEM.Float],
  parameters: false,
});

const entries = readZip(jar, readFileSync(jar)).filter((e) => e.name.endsWith('.class'));
const classes = entries.map((e) => ClassFile.parse(e.data, e.name));
// With --counters each way has a parse of its own, so that each adds its own constant pool entries.
const objectClasses = counters ? entries.map((e) => ClassFile.parse(e.data, e.name)) : classes;
const tableClasses = counters ? entries.map((e) => ClassFile.parse(e.data, e.name)) : classes;
const table = new CodeTable();
const blocks = new TableBlocks();
const stack = new TableStack();
const fragment = new Uint8Array(15);
let methods = 0;
for (let r = 0; r < rounds; r++) {
  let decode = 0;
  let write = 0;
  let bytes = 0;
  let objects = 0;
  let alone = 0;
  let differ = 0;
  methods = 0;
  classes.forEach((cf, c) => {
    const w = new TableWriter(cf.cp, cf.entry, cf.thisClass);
    const ocf = objectClasses[c];
    const tcf = tableClasses[c];
    const tw = new TableWriter(tcf.cp, tcf.entry, tcf.thisClass);
    const refs = new CounterRefs(tcf.cp);
    const extended = new ExtendedRefs(tcf.cp);
    cf.methods.forEach((m, k) => {
      const code = findAttribute(m.attributes, 'Code');
      if (!code) return;
      methods++;
      const name = m.name + m.desc;
      const t0 = performance.now();
      blocks.compute(table.decode(code.info, cf.entry, name));
      stack.compute(table, code.info, cf.cp);
      const insertions = [];
      for (let b = 0; b < blocks.count; b++) insertions.push({ before: blocks.starts[b], bytes: fragment, stack: 3 });
      const t1 = performance.now();
      const locals = withLocals ? localsOf(cf, m) : undefined;
      bytes += w.write(table, code.info, insertions, name, { stack, locals, member: m }).length;
      decode += t1 - t0;
      write += performance.now() - t1;
      if (!withLocals) return;
      // The same edit each way, alternating which goes first per method.
      const vtypes = counters ? [`L${TC};`, '[I', 'I'] : ['I', `L${cf.thisClass};`, 'F'];
      const shift = localsOf(cf, m, counters);
      const starts = counters ? Array.from(blocks.starts.subarray(0, blocks.count)) : [];
      const n = table.n;
      let a;
      let b;
      const both = [
        () => {
          const t2 = performance.now();
          const om = ocf.methods[k];
          const oc = findAttribute(om.attributes, 'Code');
          const ir = readCode(ocf, om, oc);
          const framesBefore = counters ? simulateFrames(ocf, om, ir) : null;
          shiftLocals(ir, shift.at, vtypes, ocf.cp);
          if (counters) insertObjects(ocf, ir, framesBefore, starts, n, shift.at, vtypes);
          a = writeCode(ocf, om, ir).info;
          objects += performance.now() - t2;
        },
        () => {
          const t2 = performance.now();
          table.decode(code.info, cf.entry, name);
          const fragments = [];
          refs.fragment.reset();
          if (counters) {
            // Dead code has no frame to give a branch target: its counter goes unchecked, as the object side's.
            blocks.compute(table);
            const framed = cf.major >= 50;
            const known = framed ? tw.framesKnown(table, code.info, m, name) : null;
            for (let x = 0; x < blocks.count; x++) {
              const s = blocks.starts[x];
              const check = known === null || known[s] === 1;
              const f = counterFragment(refs, (x + 1 < blocks.count ? blocks.starts[x + 1] : table.n) - s, check, check && framed, shift.at);
              fragments.push({ before: s, bytes: f.bytes, stack: 3, ...(f.frames.length ? { frames: f.frames } : {}) });
            }
          }
          const replace = new Map();
          if (calls) {
            // After the counters: the fragments must stay ordered by instruction.
            const all = [];
            let k = 0;
            for (let i = 0; i < table.n; i++) {
              while (k < fragments.length && fragments[k].before === i) all.push(fragments[k++]);
              const o = table.op[i];
              if (o < OP.INVOKEVIRTUAL || o > OP.INVOKEINTERFACE) continue;
              const p = table.pc[i];
              const ref = (table.code[p + 1] << 8) | table.code[p + 2];
              if (!extended.isMethod(ref)) continue;
              all.push({ before: i, bytes: extraArguments(refs.fragment, shift.at).bytes, stack: 3 });
              replace.set(i, extendedInvoke(extended, refs.fragment, o, ref, table.code[p + 3]));
            }
            while (k < fragments.length) all.push(fragments[k++]);
            fragments.length = 0;
            fragments.push(...all);
          }
          b = tw.write(table, code.info, fragments, name, { stack: stack.compute(table, code.info, tcf.cp), locals: shift, member: m, replace });
          alone += performance.now() - t2;
        },
      ];
      if (methods % 2) both.reverse();
      both[0]();
      both[1]();
      if (counters && Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0 && differ++ === 0 && r === 0) console.log(`first method whose bytes differ: ${cf.entry} ${name}`);
    });
  });
  console.log(
    `round ${r + 1}: decode + blocks + stack ${decode.toFixed(0)} ms, write ${write.toFixed(0)} ms (${bytes} bytes of Code)` +
      (withLocals ? `; ${calls ? 'counters, calls and new locals' : counters ? 'counters and new locals' : 'new locals alone'}: objects ${objects.toFixed(0)} ms, table ${alone.toFixed(0)} ms` : '') +
      (counters ? ` (${differ} methods differ)` : ''),
  );
}
console.log(`${jar}: ${classes.length} classes, ${methods} methods`);
