// Komorium's method bodies on the table pipeline (src/kinds/komorium/body/table-body.ts,
// docs/non-object-ir.md step 3) against the object pipeline (method-body.ts): `instrument` must
// give the same jar, byte for byte, whichever rewrites the bodies, on real jars and with each option
// that changes what a body gets; and the table pipeline must rewrite most of the bodies. The object
// pipeline's output is what the HotSpot, JFlex and real-program tests run.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instrumentProgram } from '../src/instrument/program.js';
import { bodiesRewritten, type InstrumentOptions } from '../src/kinds/komorium/class-transform.js';
import { instrumentClassBytes } from '../src/instrument/rewrite.js';
import { ClassHierarchy } from '../src/hierarchy/hierarchy.js';
import { readZip } from '../src/jar/zip.js';
import { debianJar, type DebianJarName } from './support/corpus.js';
import { MUTATORS, Rng, classLayout, mutate } from './support/fuzz.js';
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
  const other = new Map(readZip(b, readFileSync(b)).map((e) => [e.name, e.data]));
  for (const e of readZip(a, readFileSync(a))) {
    const d = other.get(e.name);
    if (!d || Buffer.compare(Buffer.from(e.data), Buffer.from(d)) !== 0) return e.name;
  }
  return '(the entries are equal; the jars are not)';
}

describe('method bodies on the table pipeline', () => {
  // The least share of bodies the table pipeline takes. The rest go to the object pipeline:
  // <clinit>, in-place methods, calls through a companion, a `new` whose class in another package
  // has a factory. Clojure's compiler writes a class per function, whose <clinit> sets its
  // constants: a third of its bodies.
  const jars: [DebianJarName, number][] = [
    ['guava', 0.85],
    ['ecj', 0.85],
    ['rhino', 0.85],
    ['commons-lang3', 0.85],
    ['clojure', 0.6],
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

  // Broken code must be reported as the object reader reports it: the table pipeline leaves a
  // method it would refuse to the object reader (code-table-validation.ts). Code that reads but that
  // HotSpot would reject (an opcode changed into one that underflows the stack, a local past
  // max_locals, a frame that no longer fits the code) may come out otherwise: the object pipeline's frame simulation leaves such a method
  // as it was, the table pipeline rewrites it. reliability-fuzz.test.ts holds the default pipeline
  // to the contract there: an error naming the entry, or output HotSpot verifies unless the damaged
  // input does not verify either.
  it('meets damaged class files as the object pipeline does', () => {
    const rng = new Rng(20261128);
    let cases = 0;
    let same = 0;
    let opcodeDiffer = 0;
    const differ: string[] = [];
    for (const jar of ['commons-lang3', 'rhino'] as const) {
      const hierarchy = new ClassHierarchy({ classpath: [debianJar(jar)] });
      const pool = readZip(debianJar(jar), readFileSync(debianJar(jar))).filter((e) => e.name.endsWith('.class') && !e.name.startsWith('META-INF/') && e.data.length < 20_000);
      for (let n = 0; n < 60; n++) {
        const e = pool[rng.int(0, pool.length)]!;
        const layout = classLayout(e.data);
        for (const kind of MUTATORS) {
          for (let k = 0; k < 3; k++) {
            const m = mutate(e.data, layout, kind, rng);
            if (!m) continue;
            cases++;
            const [a, b] = (['table', 'object'] as const).map((bodies) => outcome(() => instrumentClassBytes(m.bytes, e.name, { ...DEFAULTS, bodies }, hierarchy)));
            // Code that does not verify (the object pipeline's frame simulation failed on it, an opcode
            // became another, a frame's type changed): there, and only there, the two may rewrite it
            // differently.
            const invalid = kind === 'opcode' || kind === 'stackmap' || b.includes('frame simulation failed');
            const tolerated = invalid && a.startsWith('output ') && b.startsWith('output ');
            if (a === b) same++;
            else if (tolerated) opcodeDiffer++;
            else differ.push(`${e.name} (${kind}: ${m.what}): table ${a.slice(0, 300)} / object ${b.slice(0, 300)}`);
          }
        }
      }
    }
    console.log(`${cases} damaged classes: ${same} met the same way, ${opcodeDiffer} with code that does not verify rewritten otherwise`);
    expect(cases).toBeGreaterThan(500);
    expect(differ).toEqual([]);
    expect(same).toBeGreaterThan(0.9 * cases);
  }, 300_000);
});

/** An error's class and message, or a hash of the output and the reasons methods were left alone. */
function outcome(run: () => ReturnType<typeof instrumentClassBytes>): string {
  try {
    const { result, warnings } = run();
    const hash = createHash('sha256').update(result.bytes);
    for (const x of result.extra) hash.update(x.name).update(x.bytes);
    return `output ${hash.digest('hex')} ${JSON.stringify(result.report.leftAsIs)} ${warnings.join('|')}`;
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}
