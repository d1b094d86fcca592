#!/usr/bin/env node
// The table writer's speed (docs/non-object-ir.md, step 3): every method of JAR decoded into a
// CodeTable, its blocks and stack depths found, and written back by TableWriter with a 15-byte
// fragment (the size of a counter update, 3 words deep) before every block, max_stack made room
// for. Classes are parsed beforehand; each round is timed.
//
//   node scripts/bench/table-writer.mjs [JAR] [--rounds N]
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'dist');
const args = process.argv.slice(2);
let jar = '/usr/share/java/guava.jar';
let rounds = 7;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else jar = resolve(args[i]);
}
const { ClassFile, findAttribute } = await import(join(DIST, 'classfile/classfile.js'));
const { readZip } = await import(join(DIST, 'jar/zip.js'));
const { CodeTable } = await import(join(DIST, 'bytecode/code-table.js'));
const { TableBlocks } = await import(join(DIST, 'analysis/table-blocks.js'));
const { TableStack } = await import(join(DIST, 'analysis/table-stack.js'));
const { TableWriter } = await import(join(DIST, 'bytecode/table-writer.js'));

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
  methods = 0;
  for (const cf of classes) {
    const w = new TableWriter(cf.cp, cf.entry);
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
      bytes += w.write(table, code.info, insertions, name, stack).length;
      decode += t1 - t0;
      write += performance.now() - t1;
    }
  }
  console.log(`round ${r + 1}: decode + blocks + stack ${decode.toFixed(0)} ms, write ${write.toFixed(0)} ms (${bytes} bytes of Code)`);
}
console.log(`${jar}: ${classes.length} classes, ${methods} methods`);
