/**
 * The diagnosis switch KOMORIUM_CHECK_FORM=never / never-padded (src/framework/probes.ts): every
 * check of the framework's triggers becomes a constant that never fires, bare or padded with nops
 * to the real check's size, while the twins and transfers stay. BENCHMARKS-hps.md and
 * BENCHMARKS-framework.md split what a check that never fires costs with these builds, so what
 * they claim is checked here: the padded build has every method at the real build's size, the bare
 * one reads no trigger in any method outside the twins, and both run the program as it ran and
 * write no profile.
 */
import { describe, expect, test } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { isLabel, type Insn } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { codeLength } from '../src/bytecode/code-writer.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli } from './support/komorium.js';

/** Code length of every method of the class folder `dir`, and the fields its non-twin methods read with getstatic. */
function survey(dir: string): { lengths: Map<string, number>; statics: Set<string> } {
  const lengths = new Map<string, number>();
  const statics = new Set<string>();
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.class'))) {
    const cf = ClassFile.parse(readFileSync(join(dir, f)), f);
    for (const m of cf.methods) {
      const attr = m.attributes.find((a) => a.name === 'Code');
      if (!attr) continue;
      lengths.set(`${cf.thisClass}.${m.name}${m.desc}`, codeLength(attr));
      if (m.name.includes('$sample$komorium')) continue;
      for (const x of readCode(cf, m, attr).nodes) {
        if (isLabel(x) || (x as Insn).op !== OP.GETSTATIC) continue;
        const ref = cf.cp.memberRef((x as Insn).cp!);
        statics.add(`${ref.owner}.${ref.name}`);
      }
    }
  }
  return { lengths, statics };
}

const CASES = [
  { name: 'call-edges, global counter', args: ['--profile', 'call-edges', '--layout', 'full-dup'], trigger: 'komorium/runtime/Sampler.counter', props: ['-Dkomorium.interval=3'] },
  { name: 'hot-methods, burst-counter', args: ['--profile', 'hot-methods', '--trigger', 'burst-counter'], trigger: 'komorium/runtime/Burst.counter', props: ['-Dkomorium.burst.sparsity=2', '-Dkomorium.burst.length=1'] },
];

describe('KOMORIUM_CHECK_FORM=never and never-padded (diagnosis builds)', () => {
  test.each(CASES)('$name: padded keeps every size, bare reads no trigger, neither samples', async ({ args, trigger, props }) => {
    const work = tmpDir('komorium-check-form-');
    const classes = join(work, 'classes');
    javac(join(repoRoot, 'samples', 'fig4'), classes);
    const expected = readFileSync(join(repoRoot, 'samples', 'fig4', 'expected-output.txt'), 'utf8');
    const built: Record<string, ReturnType<typeof survey>> = {};
    for (const form of ['real', 'never', 'never-padded']) {
      const out = join(work, form);
      const r = cli(['instrument', classes, '-o', out, '-q', '--no-cache', ...args], { env: form === 'real' ? {} : { KOMORIUM_CHECK_FORM: form } });
      expect(r.code, r.stderr).toBe(0);
      built[form] = survey(out);
      const profile = join(work, `${form}.kprof`);
      const run = await runJava({ cp: [out], main: 'Main', jvmArgs: ['-Xverify:all', ...props, `-Dkomorium.out=${profile}`, '-Dkomorium.quiet'] });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(expected);
      if (form === 'real') {
        const samples = [...readFileSync(profile, 'utf8').matchAll(/^samples\t(\d+)$/gm)].map((m) => Number(m[1]));
        expect(Math.max(0, ...samples)).toBeGreaterThan(0);
      } else {
        // Nothing is sampled, and the runtime writes no profile: the same as the real check's
        // build when its checks never fire, the configuration the pages compare these builds with.
        expect(existsSync(profile)).toBe(false);
      }
    }
    expect(built.real!.statics.has(trigger)).toBe(true);
    expect(built.never!.statics.has(trigger)).toBe(false);
    expect(built['never-padded']!.statics.has(trigger)).toBe(false);
    expect([...built['never-padded']!.lengths]).toEqual([...built.real!.lengths]);
    const shorter = [...built.never!.lengths].filter(([m, n]) => n < built.real!.lengths.get(m)!);
    expect(shorter.length).toBeGreaterThan(0);
  });
});
