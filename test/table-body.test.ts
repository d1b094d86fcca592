// Komorium's method bodies on the table pipeline (src/kinds/komorium/body/table-body.ts,
// docs/non-object-ir.md step 3) against the object pipeline (method-body.ts): `instrument` must
// give the same jar, byte for byte, whichever rewrites the bodies, on real jars and with each option
// that changes what a body gets; and the table pipeline must rewrite most of the bodies. The object
// pipeline's output is what the HotSpot, JFlex and real-program tests run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instrumentProgram } from '../src/instrument/program.js';
import { bodiesRewritten, type InstrumentOptions } from '../src/kinds/komorium/class-transform.js';
import { debianJar, type DebianJarName } from './support/corpus.js';
import { tmpDir } from './support/java.js';

const DEFAULTS: InstrumentOptions = { checks: 'optimized', maxPath: 50, leafOpt: true, callbacks: true, counter: 'field', callLines: true, jitLimit: 'ignore' };

/** `input` instrumented both ways; the share of bodies the table pipeline took. */
async function bothWays(input: string, options: InstrumentOptions): Promise<{ same: boolean; tableShare: number; differing: string }> {
  const work = tmpDir('table-body');
  const out = { table: join(work, 'table.jar'), object: join(work, 'object.jar') };
  const before = { ...bodiesRewritten };
  for (const bodies of ['table', 'object'] as const) {
    await instrumentProgram({
      input,
      output: out[bodies],
      classpath: [],
      include: [],
      exclude: [],
      skipBroken: false,
      mode: { profile: 'komorium', options: { ...options, bodies } },
    });
    if (bodies === 'table') Object.assign(before, { tableRun: { ...bodiesRewritten } });
  }
  const tableRun = (before as typeof before & { tableRun: typeof bodiesRewritten }).tableRun;
  const table = tableRun.table - before.table;
  const object = tableRun.object - before.object;
  const a = readFileSync(out.table);
  const b = readFileSync(out.object);
  return { same: a.equals(b), tableShare: table / (table + object), differing: a.equals(b) ? '' : await firstDifference(out.table, out.object) };
}

/** The first class whose bytes differ, to say which. */
async function firstDifference(a: string, b: string): Promise<string> {
  const { readZip } = await import('../src/jar/zip.js');
  const other = new Map(readZip(b, readFileSync(b)).map((e) => [e.name, e.data]));
  for (const e of readZip(a, readFileSync(a))) {
    const d = other.get(e.name);
    if (!d || Buffer.compare(Buffer.from(e.data), Buffer.from(d)) !== 0) return e.name;
  }
  return '(the entries are equal; the jars are not)';
}

describe('method bodies on the table pipeline', () => {
  // The least share of bodies the table pipeline takes. The rest go to the object pipeline:
  // <clinit>, in-place methods, calls through a companion and of constructors in another package.
  // Clojure's compiler writes a class per function, whose constructor calls super() in another
  // package (clojure.lang.AFunction) and whose <clinit> sets its constants: half its bodies.
  const jars: [DebianJarName, number][] = [
    ['guava', 0.85],
    ['ecj', 0.85],
    ['rhino', 0.85],
    ['commons-lang3', 0.85],
    ['clojure', 0.45],
  ];
  it.each(jars)('instrument %s gives the object pipeline\'s jar', async (jar, share) => {
    const r = await bothWays(debianJar(jar), DEFAULTS);
    expect(r.differing).toBe('');
    expect(r.same).toBe(true);
    expect(r.tableShare).toBeGreaterThan(share);
  }, 120_000);

  const variants: [string, Partial<InstrumentOptions>][] = [
    ['--no-callbacks', { callbacks: false }],
    ['--no-leaf-opt', { leafOpt: false }],
    ['--checks all', { checks: 'all' }],
    ['--max-path 0', { maxPath: 0 }],
    ['--no-call-lines', { callLines: false }],
  ];
  it.each(variants)('with %s as well', async (_flag, change) => {
    const r = await bothWays(debianJar('rhino'), { ...DEFAULTS, ...change });
    expect(r.differing).toBe('');
    expect(r.same).toBe(true);
    expect(r.tableShare).toBeGreaterThan(0.8);
  }, 120_000);

  it('leaves the local counter to the object pipeline', async () => {
    const r = await bothWays(debianJar('commons-lang3'), { ...DEFAULTS, counter: 'local' });
    expect(r.same).toBe(true);
    expect(r.tableShare).toBe(0);
  }, 120_000);
});
