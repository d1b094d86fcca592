/**
 * Live locals (src/analysis/liveness.ts) at the loop heads of a compiled class, and what full-dup's
 * twin (src/framework/layout/twin.ts) carries with them: only the live locals travel through the
 * arrays; a dead one is restored as a constant, which keeps every frame valid under -Xverify:all.
 */
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { isLabel, type Insn } from '../src/bytecode/ir.js';
import { OP } from '../src/bytecode/opcodes.js';
import { buildCfg } from '../src/analysis/cfg.js';
import { liveAtBlockStarts, localAccess } from '../src/analysis/liveness.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli } from './support/komorium.js';

const SOURCE = join(repoRoot, 'test', 'fixtures', 'liveness', 'Live.java');

function compiled(): { dir: string; cf: ClassFile } {
  const dir = tmpDir('komorium-live-');
  javac(SOURCE, dir);
  return { dir, cf: ClassFile.parse(readFileSync(join(dir, 'Live.class')), 'Live.class') };
}

/** The live slots at each loop head (backedge target) of method `name`. */
function liveAtLoopHeads(cf: ClassFile, name: string): number[][] {
  const m = cf.methods.find((x) => x.name === name)!;
  const code = readCode(cf, m, m.attributes.find((a) => a.name === 'Code')!);
  const cfg = buildCfg(code);
  const live = liveAtBlockStarts(cfg, code.maxLocals);
  const heads = [...new Set(cfg.backEdges.filter((e) => e.branch || e.fallthrough).map((e) => e.to))];
  return heads.map((b) => [...live[b]!].flatMap((x, slot) => (x ? [slot] : [])));
}

/** Array stores in method `name` of a rewritten class: the locals its transfers to the twin carry. */
function arrayStores(dir: string, name: string): number {
  const cf = ClassFile.parse(readFileSync(join(dir, 'Live.class')), 'Live.class');
  const m = cf.methods.find((x) => x.name === name)!;
  const code = readCode(cf, m, m.attributes.find((a) => a.name === 'Code')!);
  return code.nodes.filter((n) => !isLabel(n) && ((n as Insn).op === OP.LASTORE || (n as Insn).op === OP.AASTORE)).length;
}

describe('liveness', () => {
  test('a long and an int written before they are read are dead at the loop head; a double read after it is live', () => {
    const { cf } = compiled();
    // a=0, sum=1-2, t=3, w=4-5, keep=6-7, i=8 (Live.java)
    expect(liveAtLoopHeads(cf, 'deadAtHead')).toEqual([[0, 1, 2, 6, 7, 8]]);
  });

  test("what a handler reads is live throughout its try range; a local nothing reads is not", () => {
    const { cf } = compiled();
    // a=0, n=1, last=2, scratch=3, i=4: last is written in the loop before anything throws, and read only by the handler
    expect(liveAtLoopHeads(cf, 'readByHandler')).toEqual([[0, 1, 2, 4]]);
  });

  test('iinc reads and writes its slot; a long store writes two slots', () => {
    expect(localAccess({ op: OP.IINC, var: 5, inc: 1 })).toEqual({ reads: [5], writes: [5] });
    expect(localAccess({ op: OP.LSTORE, var: 2 })).toEqual({ reads: [], writes: [2, 3] });
    expect(localAccess({ op: OP.DLOAD, var: 6 })).toEqual({ reads: [6, 7], writes: [] });
  });
});

describe('full-dup twin transfers', () => {
  test('only the live locals travel to the twin and back, and the program verifies and prints what it printed', async () => {
    const { dir } = compiled();
    const work = tmpDir('komorium-live-twin-');
    const plain = await runJava({ cp: [dir], main: 'Live', jvmArgs: ['-Xverify:all'] });
    expect(plain.stderr).toBe('');
    const stores: Record<string, number> = {};
    for (const twin of ['live', 'all-locals']) {
      const out = join(work, twin);
      const env = twin === 'all-locals' ? { KOMORIUM_TWIN: 'all-locals' } : {};
      const r = cli(['instrument', dir, '-o', out, '-q', '--no-cache', '--profile', 'call-edges,field-access', '--layout', 'full-dup'], { env });
      expect(r.code, r.stderr).toBe(0);
      stores[twin] = arrayStores(out, 'deadAtHead');
      for (const interval of [1, 7]) {
        const run = await runJava({ cp: [out], main: 'Live', jvmArgs: ['-Xverify:all', `-Dkomorium.interval=${interval}`, `-Dkomorium.out=${join(work, `${twin}-${interval}.kprof`)}`, '-Dkomorium.quiet'] });
        expect(run.stderr).toBe('');
        expect(run.stdout).toBe(plain.stdout);
      }
    }
    // t and w (Live.deadAtHead) are dead at the loop head: two fewer stores into the long[] there.
    expect(stores['all-locals']! - stores.live!).toBe(2);
  });
});
