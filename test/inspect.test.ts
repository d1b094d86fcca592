/** The javap-like listing (src/inspect/listing.ts). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { isLabel, type Insn } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { listClass, listCode } from '../src/inspect/listing.js';

const FIXTURES = new URL('./fixtures/bytecode/', import.meta.url).pathname;
let work: string;
let cf: ClassFile;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'komorium-inspect-'));
  execFileSync('javac', ['-d', work, join(FIXTURES, 'Wide.java')]);
  cf = ClassFile.parse(readFileSync(join(work, 'Wide.class')), 'Wide.class');
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('listClass', () => {
  it('shows the header, methods, instructions with resolved operands, tables and frames', () => {
    const text = listClass(cf);
    expect(text).toContain('// source: Wide.java');
    expect(text).toContain('// class version 61.0');
    expect(text).toContain('public class Wide extends java/lang/Object (flags 0x0021)');
    expect(text).toContain('  static loop(I)J (flags 0x0008)');
    expect(text).toContain('  public static main([Ljava/lang/String;)V (flags 0x0009)');
    expect(text).toMatch(/\s+\d+: invokevirtual\s+java\/io\/PrintStream\.println\(Ljava\/lang\/String;\)V/);
    expect(text).toMatch(/\s+0: getstatic|getstatic\s+java\/lang\/System\.out:Ljava\/io\/PrintStream;/);
    expect(text).toMatch(/ldc\s+"null"/);
    expect(text).toMatch(/14: iinc\s+3, 1/);
    expect(text).toMatch(/17: goto\s+L2 \(@4\)/);
    expect(text).toContain('frame locals=[I, J, T, I] stack=[]');
    expect(text).toContain('line 22: 2');
    expect(text).toContain('StackMapTable: 2 frames');
  });

  it('shows basic blocks from the hook, widened branches, and selects methods', () => {
    const text = listClass(cf, {
      methods: (m) => m.name === 'ifElse',
      blocks: (code) => {
        const first = code.nodes.findIndex((n) => !isLabel(n) && n.op === OP.IFLE);
        return [
          { start: 0, end: first + 1, insnCount: 2 },
          { start: first + 1, end: code.nodes.length, insnCount: 10 },
        ];
      },
    });
    expect(text).not.toContain('loop(I)J');
    expect(text).toContain('-- block 0: nodes 0..2, 2 instructions');
    expect(text).toContain('-- block 1: nodes 3..');
    const m = cf.methods.find((x) => x.name === 'ifElse')!;
    const code = readCode(cf, m, m.attributes.find((a) => a.name === 'Code')!);
    const k = code.nodes.findIndex((n) => !isLabel(n) && n.op === OP.IMUL);
    code.nodes.splice(k + 1, 0, ...Array.from({ length: 40_000 }, (): Insn => ({ op: OP.NOP })));
    const labels = code.nodes.filter(isLabel);
    code.tryCatch.push({ start: labels[0]!, end: labels[1]!, handler: labels[2]!, catchType: 'java/lang/Exception', catchTypeIndex: 0 });
    const listing = listCode(cf, m, code).join('\n');
    expect(listing).toContain('Exception table:\n      L0 (@0) .. L1 (@9) -> L2 (@40016)  java/lang/Exception');
    expect(listing).toMatch(/1: ifle\s+L2 \(@40016\)\s+\/\/ widened: ifgt \+8; goto_w/);
    expect(listing).toMatch(/code_length=40023/);
  });

  it('lists a method it cannot decode instead of failing', () => {
    const broken = ClassFile.parse(readFileSync(join(work, 'Wide.class')), 'Wide.class');
    const m = broken.methods.find((x) => x.name === 'loop')!;
    const attr = m.attributes.find((a) => a.name === 'Code')!;
    const info = attr.info.slice();
    info[8] = 0xcb; // an unknown opcode
    attr.info = info;
    expect(listClass(broken)).toMatch(/Code: unreadable: .*unknown opcode 0xcb at 0/);
  });
});
