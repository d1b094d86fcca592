/**
 * readCode → writeCode on every method of real class files must give back the same Code attribute
 * bytes (StackMapTable included): javac (JDK 17 java.base, guava, commons-lang3, asm), ecj, and
 * older compilers (rhino's js.jar, jflex).
 */
import { describe, expect, it } from 'vitest';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { writeCode } from '../src/bytecode/code-writer.js';
import { isLabel, type MethodCode } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { compressLocals } from '../src/bytecode/vtypes.js';
import { DEBIAN_JARS, javaBaseClasses, readJarClasses, requireFiles, type ClassEntry } from './fixtures/bytecode/corpus.js';

interface Tally {
  classes: number;
  methods: number;
  failures: string[];
  /** How often the encodings that are easy to get wrong occur, so a zero-mismatch result means something. */
  features: Record<string, number>;
}

function countFeatures(code: MethodCode, f: Record<string, number>): void {
  const add = (k: string, n = 1): void => {
    f[k] = (f[k] ?? 0) + n;
  };
  for (const n of code.nodes) {
    if (isLabel(n)) continue;
    if (n.form === OP.WIDE) add('wide');
    if (n.form === OP.GOTO_W || n.form === OP.JSR_W) add('goto_w/jsr_w');
    if (n.form === OP.LDC_W) add('ldc_w');
    if (n.op === OP.JSR || n.op === OP.RET) add('jsr/ret');
    if (n.op === OP.TABLESWITCH || n.op === OP.LOOKUPSWITCH) add('switch');
  }
  for (const [label, fr] of code.frames ?? []) {
    add('frames');
    const kind = code.frameKinds.get(label)!;
    add(kind < 64 ? 'same' : kind < 128 ? 'same_locals_1' : kind === 247 ? 'same_locals_1_ext' : kind < 251 ? 'chop' : kind === 251 ? 'same_ext' : kind < 255 ? 'append' : 'full');
    const entries = compressLocals(fr.locals);
    if (entries[entries.length - 1] === 'T') add('frame locals ending in Top');
    for (let i = 0; i + 1 < entries.length; i++) {
      if ((entries[i] === 'J' || entries[i] === 'D') && entries[i + 1] === 'T') add('long/double then explicit Top');
    }
    if ([...fr.locals, ...fr.stack].some((t) => typeof t !== 'string')) add('uninitialized(new)');
    if ([...fr.locals, ...fr.stack].includes('U')) add('uninitializedThis');
  }
  for (const a of code.attributes) {
    if (a.kind === 'RuntimeVisibleTypeAnnotations' || a.kind === 'RuntimeInvisibleTypeAnnotations') add('code type annotations', a.annotations.length);
    if (a.kind === 'LocalVariableTypeTable') add('LocalVariableTypeTable');
    if (a.kind === 'raw') add(`raw ${a.attribute.name}`);
  }
}

function firstDiff(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function roundTrip(entries: ClassEntry[], origin: string): Tally {
  const t: Tally = { classes: 0, methods: 0, failures: [], features: {} };
  for (const e of entries) {
    if (e.name.endsWith('module-info.class')) continue;
    const cf = ClassFile.parse(e.data, `${origin}!${e.name}`);
    t.classes++;
    const cpSize = cf.cp.size;
    for (const m of cf.methods) {
      const attr = m.attributes.find((a) => a.name === 'Code');
      if (attr === undefined) continue;
      t.methods++;
      const where = `${cf.thisClass}.${m.name}${m.desc}`;
      try {
        const code = readCode(cf, m, attr);
        countFeatures(code, t.features);
        const out = writeCode(cf, m, code);
        if (out.nameIndex !== attr.nameIndex) t.failures.push(`${where}: Code name index ${out.nameIndex} != ${attr.nameIndex}`);
        else if (out.info.length !== attr.info.length || firstDiff(out.info, attr.info) < out.info.length) {
          const d = firstDiff(out.info, attr.info);
          t.failures.push(`${where}: ${attr.info.length} bytes read, ${out.info.length} written, first difference at byte ${d}`);
        }
      } catch (err) {
        t.failures.push(`${where}: ${(err as Error).message}`);
      }
    }
    if (cf.cp.size !== cpSize) t.failures.push(`${cf.thisClass}: constant pool grew from ${cpSize} to ${cf.cp.size}`);
  }
  return t;
}

describe('Code attribute round trip (read → write is byte-identical)', () => {
  const total = { classes: 0, methods: 0, failures: 0 };

  for (const jar of DEBIAN_JARS) {
    it(jar, async () => {
      requireFiles([jar]);
      const t = roundTrip(await readJarClasses(jar), jar);
      total.classes += t.classes;
      total.methods += t.methods;
      total.failures += t.failures.length;
      console.log(`${jar}: ${t.classes} classes, ${t.methods} methods round-tripped, ${t.failures.length} mismatches`);
      console.log(`  covering ${JSON.stringify(t.features)}`);
      expect(t.failures.slice(0, 20)).toEqual([]);
      expect(t.methods).toBeGreaterThan(0);
    });
  }

  it('java.base (JDK 17)', () => {
    const t = roundTrip(javaBaseClasses(), 'java.base');
    total.classes += t.classes;
    total.methods += t.methods;
    total.failures += t.failures.length;
    console.log(`java.base: ${t.classes} classes, ${t.methods} methods round-tripped, ${t.failures.length} mismatches`);
    console.log(`  covering ${JSON.stringify(t.features)}`);
    console.log(`total: ${total.classes} classes, ${total.methods} methods, ${total.failures} mismatches`);
    expect(t.failures.slice(0, 20)).toEqual([]);
    expect(t.classes).toBeGreaterThan(6000);
  });
});
