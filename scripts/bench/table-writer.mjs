#!/usr/bin/env node
// The table writer's speed (docs/non-object-ir.md, step 3): every method of JAR decoded into a
// CodeTable, its blocks and stack depths found, and written back by TableWriter with a 15-byte
// fragment (the size of a counter update, 3 words deep) before every block, max_stack made room
// for. Classes are parsed beforehand; each round is timed.
//
// With --locals, three new locals go after each method's parameters as well (loads, stores, frames
// and local tables renumbered), and each round also times the object pipeline doing that alone
// (readCode, shiftLocals, writeCode) against the table doing it alone (decode, stack, write).
// With --branching as well, both also insert a fragment that branches (`iconst_0; ifne END;
// iconst_0; pop; END:`) before every block, with a stack map frame at END simulated from the
// nearest recorded one: a Komorium check's shape without its constant pool references.
//
//   node scripts/bench/table-writer.mjs [JAR] [--rounds N] [--locals [--branching]]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'dist');
const args = process.argv.slice(2);
let jar = '/usr/share/java/guava.jar';
let rounds = 7;
let withLocals = false;
let branching = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i] === '--locals') withLocals = true;
  else if (args[i] === '--branching') branching = true;
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
let targetedScratch = new Uint8Array(0);
const BRANCHING = Uint8Array.of(OP.ICONST_0, OP.IFNE, 0, 5, OP.ICONST_0, OP.POP);

/** The object pipeline's way: the branching fragment before every block start whose frame is known. */
function insertObjects(cf, m, ir, framesBefore, starts, at, vtypes) {
  const framed = cf.major >= 50;
  if (framed) ir.frames ??= new Map();
  const nodes = [];
  let insn = 0;
  let b = 0;
  ir.nodes.forEach((n, j) => {
    if (!isLabel(n)) {
      const start = b < starts.length && starts[b] === insn;
      if (start) b++;
      if (start && framesBefore[j]) {
        const skip = new Label();
        nodes.push({ op: OP.ICONST_0 }, { op: OP.IFNE, target: skip }, { op: OP.ICONST_0 }, { op: OP.POP }, skip);
        if (framed) ir.frames.set(skip, shiftFrame(framesBefore[j], at, vtypes, -1));
      }
      insn++;
    }
    nodes.push(n);
  });
  ir.nodes = nodes;
}

const ACC_STATIC = 0x0008;
const localsOf = (cf, m) => ({
  at: argSlots(m.desc) + ((m.access & ACC_STATIC) === 0 ? 1 : 0),
  types: [ITEM.Integer, vtObject(firstClassIndex(cf.cp, cf.thisClass)), ITEM.Float],
  parameters: false,
});

const classes = readZip(jar, readFileSync(jar))
  .filter((e) => e.name.endsWith('.class'))
  .map((e) => ClassFile.parse(e.data, e.name));
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
  methods = 0;
  for (const cf of classes) {
    const w = new TableWriter(cf.cp, cf.entry, cf.thisClass);
    for (const m of cf.methods) {
      const code = findAttribute(m.attributes, 'Code');
      if (!code) continue;
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
      if (!withLocals) continue;
      // The same new locals alone, each way, alternating which goes first per method.
      const vtypes = ['I', `L${cf.thisClass};`, 'F'];
      const starts = branching ? Array.from(blocks.starts.subarray(0, blocks.count)) : [];
      const both = [
        () => {
          const t2 = performance.now();
          const ir = readCode(cf, m, code);
          const framesBefore = branching ? simulateFrames(cf, m, ir) : null;
          shiftLocals(ir, locals.at, vtypes, cf.cp);
          if (branching) insertObjects(cf, m, ir, framesBefore, starts, locals.at, vtypes);
          writeCode(cf, m, ir);
          objects += performance.now() - t2;
        },
        () => {
          const t2 = performance.now();
          table.decode(code.info, cf.entry, name);
          const fragments = [];
          if (branching) {
            // Dead code has no frame to give a branch target (the object side skips it the same way).
            blocks.compute(table);
            const frames = cf.major >= 50 ? { frames: [BRANCHING.length] } : {};
            const targeted = targets(table);
            for (let b = 0; b < blocks.count; b++) if (live(table, targeted, blocks.starts[b])) fragments.push({ before: blocks.starts[b], bytes: BRANCHING, stack: 1, ...frames });
          }
          w.write(table, code.info, fragments, name, { stack: stack.compute(table, code.info, cf.cp), locals, member: m });
          alone += performance.now() - t2;
        },
      ];
      if (methods % 2) both.reverse();
      both[0]();
      both[1]();
    }
  }
  console.log(
    `round ${r + 1}: decode + blocks + stack ${decode.toFixed(0)} ms, write ${write.toFixed(0)} ms (${bytes} bytes of Code)` +
      (withLocals ? `; new locals alone: objects ${objects.toFixed(0)} ms, table ${alone.toFixed(0)} ms` : ''),
  );
}
console.log(`${jar}: ${classes.length} classes, ${methods} methods`);

/** Instructions that a branch, switch or handler reaches (javac gives each a frame). */
function targets(t) {
  if (targetedScratch.length < t.n) targetedScratch = new Uint8Array(2 * t.n);
  const m = targetedScratch.fill(0, 0, t.n);
  for (let j = 0; j < t.n; j++) {
    if (t.target[j] >= 0) m[t.target[j]] = 1;
    for (let k = 0; t.switchAt[j] >= 0 && k < t.switchCount[j]; k++) m[t.switchTargets[t.switchAt[j] + k]] = 1;
  }
  for (let k = 0; k < t.nHandlers; k++) m[t.handlers[4 * k + 2]] = 1;
  return m;
}

/** Whether a frame is known before instruction i: it is reached by falling through, or is targeted. */
function live(t, targeted, i) {
  return i === 0 || !isTransfer(t.op[i - 1]) || targeted[i] === 1;
}

function isTransfer(op) {
  return op === OP.GOTO || op === OP.GOTO_W || op === OP.ATHROW || op === OP.RET || op === OP.TABLESWITCH || op === OP.LOOKUPSWITCH || (op >= OP.IRETURN && op <= OP.RETURN);
}
