// Frames on the table (src/analysis/table-frames.ts) against the object IR's simulateFrames, before
// every instruction of every method of four real jars: the same locals and stack wherever the object
// simulation knows the frame, and unknown where it does not.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TableFrames } from '../src/analysis/table-frames.js';
import { simulateFrames } from '../src/analysis/frames.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { CodeTable, codeAttribute } from '../src/bytecode/code-table.js';
import { isLabel, type Insn, type VType } from '../src/bytecode/ir.js';
import { ITEM, StackMap } from '../src/bytecode/stack-map.js';
import { compressLocals, vtypeOfClassName } from '../src/bytecode/vtypes.js';
import { ClassFile, findAttribute } from '../src/classfile/classfile.js';
import { readZip } from '../src/jar/zip.js';
import { debianJar, type DebianJarName } from './support/corpus.js';

const NAMES = ['T', 'I', 'F', 'D', 'J', 'N', 'U'];

describe('table frames', () => {
  it.each<DebianJarName>(['guava', 'ecj', 'rhino', 'commons-lang3'])(
    'simulates the frame before every instruction of %s as the object IR does',
    (jar) => {
      const t = new CodeTable();
      const map = new StackMap();
      const frames = new TableFrames();
      let known = 0;
      let unknown = 0;
      const wrong: string[] = [];
      for (const e of readZip(debianJar(jar), readFileSync(debianJar(jar)))) {
        if (!e.name.endsWith('.class')) continue;
        const cf = ClassFile.parse(e.data, e.name);
        for (const m of cf.methods) {
          const attr = findAttribute(m.attributes, 'Code');
          if (!attr) continue;
          const name = m.name + m.desc;
          const ir = readCode(cf, m, attr);
          const expected = simulateFrames(cf, m, ir);
          const insnIndex = new Map<Insn, number>();
          const before: (typeof expected)[number][] = [];
          for (let i = 0; i < ir.nodes.length; i++) {
            const n = ir.nodes[i]!;
            if (isLabel(n)) continue;
            insnIndex.set(n, before.length);
            before.push(expected[i]!);
          }
          t.decode(attr.info, e.name, name);
          map.setInitial(cf.cp, e.name, cf.thisClass, m);
          const smt = codeAttribute(t, attr.info, cf.cp, 'StackMapTable');
          if (smt) map.decode(t, smt, name);
          else map.decode(t, Uint8Array.of(0, 0), name);
          const all = Array.from({ length: t.n }, (_, i) => i);
          frames.compute(t, map, cf.cp, cf.thisClass, all, e.name, name);
          const text = (v: number): string => {
            const tag = v & 15;
            if (tag === ITEM.Object) return vtypeOfClassName(map.nameOf(v));
            if (tag === ITEM.Uninitialized) return `new@${v >> 4}`;
            return NAMES[tag]!;
          };
          const objectText = (v: VType): string => (typeof v === 'string' ? v : `new@${insnIndex.get(v)}`);
          for (let i = 0; i < t.n; i++) {
            const want = before[i];
            const got = frames.before[i];
            if (want == null) {
              unknown++;
              if (got !== null) wrong.push(`${e.name} ${name} #${i}: a frame where the object IR has none`);
              continue;
            }
            known++;
            const a = JSON.stringify([compressLocals(want.locals).map(objectText), want.stack.map(objectText)]);
            const b = got ? JSON.stringify([got.locals.map(text), got.stack.map(text)]) : 'none';
            if (a !== b) wrong.push(`${e.name} ${name} #${i}: ${b}, the object IR ${a}`);
          }
        }
      }
      expect(wrong.slice(0, 10)).toEqual([]);
      // javac and ecj leave no code without a frame after a goto or return, so `unknown` stays 0 here.
      expect(known + unknown).toBeGreaterThan(70_000);
    },
    120_000,
  );
});
