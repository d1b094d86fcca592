// The fragment builder (src/bytecode/fragment.ts) against the object code writer: random sequences
// of what Komorium's passes insert (ints, loads and stores near and past slot 255, iinc, constant
// pool references, ldc past index 255, branches forward and back inside the fragment) must give the
// bytes writeCode gives the same instructions made by emit.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeCode } from '../src/bytecode/code-writer.js';
import { field, invoke, load, op, pushInt } from '../src/bytecode/emit.js';
import { Fragment } from '../src/bytecode/fragment.js';
import { Label, type MethodCode, type Node } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { ClassFile } from '../src/classfile/classfile.js';
import { readZip } from '../src/jar/zip.js';
import { debianJar } from './support/corpus.js';

/** A small deterministic generator (xorshift32), so that a failure repeats. */
function random(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const LOCALS = [0, 1, 2, 3, 4, 200, 255, 256, 300, 4000];
const INTS = [-1, 0, 5, 6, -128, 127, 128, -129, 32767, -32768, 32768, -40000, 1 << 30];

describe('fragment builder', () => {
  it('writes the bytes the object writer writes for the same instructions', () => {
    const jar = debianJar('commons-lang3');
    const entry = readZip(jar, readFileSync(jar)).find((e) => e.name.endsWith('StringUtils.class'))!;
    const cf = ClassFile.parse(entry.data, entry.name);
    const method = cf.methods.find((m) => m.attributes.some((a) => a.name === 'Code'))!;
    let compared = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed * 2654435761);
      const f = new Fragment(cf.cp);
      const nodes: Node[] = [];
      // Each step leaves the stack as it found it, so that the object writer's max_stack is sound.
      const pending: { label: Label; fl: ReturnType<Fragment['label']> }[] = [];
      const placed: Label[] = [];
      const start = f.label();
      const startLabel = new Label();
      f.place(start);
      nodes.push(startLabel);
      for (let step = 0; step < 40; step++) {
        switch (next(7)) {
          case 0: {
            const v = INTS[next(INTS.length)]!;
            f.pushInt(v).op(OP.POP);
            nodes.push(pushInt(cf.cp, v), op(OP.POP));
            break;
          }
          case 1: {
            const v = LOCALS[next(LOCALS.length)]!;
            f.local(OP.ILOAD, v).local(OP.ISTORE, v);
            nodes.push(load(OP.ILOAD, v), load(OP.ISTORE, v));
            break;
          }
          case 2: {
            const v = LOCALS[next(LOCALS.length)]!;
            const inc = Math.max(-32768, Math.min(32767, INTS[next(INTS.length)]!));
            f.iinc(v, inc);
            nodes.push({ op: OP.IINC, var: v, inc });
            break;
          }
          case 3: {
            const fi = field(cf.cp, OP.GETSTATIC, 'komorium/T', `f${next(400)}`, 'I');
            f.ref(OP.GETSTATIC, fi.cp!).op(OP.POP);
            nodes.push(fi, op(OP.POP));
            break;
          }
          case 4: {
            const m = invoke(cf.cp, OP.INVOKESTATIC, 'komorium/T', 'm', '()V');
            f.ref(OP.INVOKESTATIC, m.cp!);
            nodes.push(m);
            break;
          }
          case 5: {
            // A forward branch, its label placed some steps later (or at the end).
            const label = new Label();
            const fl = f.label(true);
            f.op(OP.ICONST_0).jump(OP.IFNE, fl);
            nodes.push(op(OP.ICONST_0), { op: OP.IFNE, target: label });
            pending.push({ label, fl });
            break;
          }
          default: {
            const p = pending.shift();
            if (p) {
              f.place(p.fl);
              nodes.push(p.label);
              placed.push(p.label);
            }
          }
        }
      }
      for (const p of pending) {
        f.place(p.fl);
        nodes.push(p.label);
        placed.push(p.label);
      }
      // And a backward branch to the start, after the return (never run; its offset is negative).
      const built = f.op(OP.RETURN).jump(OP.GOTO, start).finish();
      const code: MethodCode = { maxStack: 0, maxLocals: 5000, nodes: [...nodes, op(OP.RETURN), { op: OP.GOTO, target: startLabel }], tryCatch: [], attributes: [], frames: null, frameKinds: new Map() };
      const info = writeCode(cf, method, code).info;
      const length = ((info[4]! << 24) | (info[5]! << 16) | (info[6]! << 8) | info[7]!) >>> 0;
      expect(Buffer.from(built.bytes).toString('hex'), `seed ${seed}`).toBe(Buffer.from(info.subarray(8, 8 + length)).toString('hex'));
      // The framed labels: each branch target once, in order.
      expect(built.frames, `seed ${seed}`).toEqual([...new Set(placed.map((l) => l.offset))].sort((a, b) => a - b));
      compared++;
    }
    expect(compared).toBe(300);
  });
});
