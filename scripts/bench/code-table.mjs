#!/usr/bin/env node
// Reading every method of a jar and finding its blocks and loop headers, two ways (docs/non-object-ir.md,
// step 2): the object IR (readCode, computeBlocks, findLoops) against the code table (CodeTable,
// TableBlocks, TableLoops).
// Classes are parsed once beforehand; only the per-method work is timed. Rounds alternate the two
// ways, each round in the order given by --first, so that the first round of each shows it cold.
//
//   npm run build && node scripts/bench/code-table.mjs [JAR] [--rounds 5] [--first table|objects]
import { readFileSync } from 'node:fs';
import { ClassFile, findAttribute } from '../../dist/classfile/classfile.js';
import { readCode } from '../../dist/bytecode/code-reader.js';
import { computeBlocks } from '../../dist/analysis/blocks.js';
import { findLoops } from '../../dist/analysis/loops.js';
import { CodeTable } from '../../dist/bytecode/code-table.js';
import { TableBlocks } from '../../dist/analysis/table-blocks.js';
import { TableLoops } from '../../dist/analysis/table-loops.js';
import { readZip } from '../../dist/jar/zip.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const jar = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--'))) ?? '/usr/share/java/guava.jar';
const rounds = Number(opt('--rounds', 5));
const first = opt('--first', 'objects');

const units = [];
for (const e of readZip(jar, readFileSync(jar))) {
  if (e.isDirectory || !e.name.endsWith('.class') || e.name.startsWith('META-INF/')) continue;
  const cf = ClassFile.parse(e.data, e.name);
  for (const m of cf.methods) {
    const attr = findAttribute(m.attributes, 'Code');
    if (attr) units.push({ cf, m, attr, name: e.name });
  }
}

const ways = {
  objects() {
    let blocks = 0;
    for (const u of units) {
      const b = computeBlocks(readCode(u.cf, u.m, u.attr));
      blocks += b.length + 100_000 * findLoops(b).headers.size;
    }
    return blocks;
  },
  table() {
    // one table and one blocks object for the whole jar, as a pipeline streaming per method uses them
    const t = new CodeTable();
    const tb = new TableBlocks();
    const tl = new TableLoops();
    let blocks = 0;
    for (const u of units) {
      t.decode(u.attr.info, u.name, u.m.name + u.m.desc);
      tb.compute(t);
      tl.compute(t, tb);
      let headers = 0;
      for (let b = 0; b < tb.count; b++) headers += tl.isHeader[b];
      blocks += tb.count + 100_000 * headers;
    }
    return blocks;
  },
};
const order = first === 'table' ? ['table', 'objects'] : ['objects', 'table'];
const times = { objects: [], table: [] };
let blocks = null;
for (let r = 0; r < rounds; r++) {
  for (const w of order) {
    const t0 = performance.now();
    const b = ways[w]();
    times[w].push(performance.now() - t0);
    if (blocks !== null && b !== blocks) throw new Error(`${w} found ${b} blocks, the other way ${blocks}`);
    blocks = b;
  }
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const show = (w) => `${w}: first ${times[w][0].toFixed(0)} ms, median of the rest ${med(times[w].slice(1)).toFixed(0)} ms (${times[w].map((t) => t.toFixed(0)).join(' ')})`;
console.log(`${jar}: ${units.length} methods, ${blocks % 100_000} blocks, ${Math.floor(blocks / 100_000)} loop headers, ${rounds} rounds, ${order.join(' then ')}`);
console.log(show('objects'));
console.log(show('table'));
