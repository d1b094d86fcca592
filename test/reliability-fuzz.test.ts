/**
 * Issue 8, the rewriter under fuzzing: real class files from the Debian jars, damaged in the places a
 * class file is most fragile (bits anywhere, truncation, constant-pool indices, attribute lengths,
 * StackMapTables, opcodes), go through the transform one by one, in process, each within a time bound.
 * Every case must end in one of two ways:
 *   (a) a KomoriumError whose message names the entry, never another exception and never a stack trace;
 *   (b) output bytes, verified by a real JVM (all cases in one JVM, each in a class loader of its own):
 *       an output that does not verify is allowed only when the damaged input does not verify either.
 * The seed and the number of cases can be changed with KOMORIUM_FUZZ_SEED and KOMORIUM_FUZZ_CLASSES
 * (classes per jar); the figures are printed and kept in .cache/reliability-fuzz.txt (the README's
 * reliability section quotes them); KOMORIUM_FUZZ_DUMP=file writes every case's details there.
 */
import { Worker } from 'node:worker_threads';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { debianClasspathFor, debianJar, type DebianJarName } from './support/corpus.js';
import { repoRoot, runtimeJar, tmpDir } from './support/java.js';
import { cli } from './support/komorium.js';
import { verifyEach, type CaseResult } from './support/verify.js';
import { Rng, classLayout, mutate, MUTATORS, type Mutator } from './support/fuzz.js';
import { readInput, writeJar } from '../src/jar/index.js';

const SEED = Number(process.env.KOMORIUM_FUZZ_SEED ?? 20060801);
const CLASSES_PER_JAR = Number(process.env.KOMORIUM_FUZZ_CLASSES ?? 40);
const JARS: DebianJarName[] = ['guava', 'commons-lang3', 'rhino', 'ecj', 'jflex', 'asm'];
/** Mutations per class and kind. */
const PER_CLASS: Record<Mutator, number> = { bitflip: 4, truncate: 2, cpindex: 4, attrlength: 3, stackmap: 3, opcode: 3 };
/** A class taking longer than this to rewrite fails its case. */
const SLOW_MS = 2000;
/** A class taking longer than this is taken as hung: the worker is thrown away. */
const HANG_MS = 20_000;
const MAX_CLASS_BYTES = 40_000;

type Kind = Mutator | 'control';
interface Case {
  id: number;
  jar: DebianJarName;
  entry: string;
  kind: Kind;
  what: string;
  bytes: Uint8Array;
}
type Outcome =
  | { kind: 'error'; name: string; message: string; ms: number }
  | { kind: 'bug'; name: string; message: string; stack: string; ms: number }
  | { kind: 'hang'; ms: number }
  | { kind: 'output'; bytes: Uint8Array; extra: { name: string; bytes: Uint8Array }[]; leftAsIs: number; stub: boolean; reasons: string[]; ms: number };

const distMain = join(repoRoot, 'dist', 'instrument', 'program.js');
let work: string;
let cases: Case[] = [];
const outcomes = new Map<number, Outcome>();

function fileName(entry: string): string {
  return entry.replace(/[^A-Za-z0-9$_.-]/g, '_');
}

/** Runs every case through the worker, one at a time, with a watchdog per case. */
async function runCases(all: Case[], classpathOf: (jar: DebianJarName) => string[]): Promise<void> {
  let i = 0;
  while (i < all.length) {
    const worker = new Worker(join(repoRoot, 'test', 'support', 'fuzz-worker.mjs'));
    const hung = await new Promise<boolean>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let t0 = 0;
      const send = () => {
        if (i >= all.length) {
          clearTimeout(timer);
          resolve(false);
          return;
        }
        const c = all[i]!;
        t0 = performance.now();
        timer = setTimeout(() => resolve(true), HANG_MS);
        worker.postMessage({ id: c.id, entry: c.entry, bytes: c.bytes, classpath: classpathOf(c.jar) });
      };
      worker.on('message', (m: Outcome & { id: number }) => {
        clearTimeout(timer);
        outcomes.set(m.id, m);
        i++;
        send();
      });
      worker.on('error', reject);
      worker.on('online', send);
      void t0;
    });
    if (hung) {
      outcomes.set(all[i]!.id, { kind: 'hang', ms: HANG_MS });
      i++;
    }
    await worker.terminate();
  }
}

beforeAll(async () => {
  if (!existsSync(distMain)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  work = tmpDir('komorium-fuzz-');
  const rng = new Rng(SEED);
  let id = 0;
  for (const jar of JARS) {
    const input = await readInput(debianJar(jar));
    const pool = input.entries.filter(
      (e) => e.isClass && !e.name.startsWith('META-INF/') && !e.name.endsWith('module-info.class') && e.data.length <= MAX_CLASS_BYTES,
    );
    // A seeded shuffle, then the first classes whose layout the walker reads.
    for (let k = pool.length - 1; k > 0; k--) {
      const j = rng.int(0, k + 1);
      [pool[k], pool[j]] = [pool[j]!, pool[k]!];
    }
    let taken = 0;
    for (const e of pool) {
      if (taken === CLASSES_PER_JAR) break;
      const orig = Uint8Array.from(e.data);
      const layout = classLayout(orig);
      taken++;
      cases.push({ id: id++, jar, entry: e.name, kind: 'control', what: 'unchanged', bytes: orig });
      for (const kind of MUTATORS) {
        for (let n = 0; n < PER_CLASS[kind]; n++) {
          const m = mutate(orig, layout, kind, rng);
          if (m) cases.push({ id: id++, jar, entry: e.name, kind, what: m.what, bytes: m.bytes });
        }
      }
    }
  }
  const cps = new Map(JARS.map((j) => [j, [debianJar(j), ...debianClasspathFor(j)]]));
  const t0 = Date.now();
  await runCases(cases, (j) => cps.get(j)!);
  console.log(`fuzz: ${cases.length} cases (seed ${SEED}) rewritten in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});

describe('fuzzed class files from the Debian jars', () => {
  test('each case ends in a KomoriumError naming the entry or in output a JVM verifies (unless the damaged input does not verify either)', () => {
    const bugs: string[] = [];
    const slow: string[] = [];
    const badMessages: string[] = [];
    for (const c of cases) {
      const o = outcomes.get(c.id);
      if (!o) {
        bugs.push(`#${c.id} ${c.entry} (${c.kind}: ${c.what}): no outcome`);
        continue;
      }
      if (o.kind === 'bug') bugs.push(`#${c.id} ${c.entry} (${c.kind}: ${c.what}): ${o.name}: ${o.message}\n${o.stack.split('\n').slice(0, 6).join('\n')}`);
      if (o.kind === 'hang') bugs.push(`#${c.id} ${c.entry} (${c.kind}: ${c.what}): no answer within ${HANG_MS} ms`);
      if (o.ms > SLOW_MS) slow.push(`#${c.id} ${c.entry} (${c.kind}: ${c.what}): ${o.ms.toFixed(0)} ms`);
      if (o.kind === 'error') {
        const dotted = c.entry.replace(/\.class$/, '').replace(/\//g, '.');
        if (!o.message.includes(c.entry) && !o.message.includes(dotted)) badMessages.push(`#${c.id} ${o.name}: ${o.message}`);
        if (/\n\s+at /.test(o.message)) badMessages.push(`#${c.id} a stack trace in the message: ${o.message}`);
      }
      if (c.kind === 'control' && o.kind !== 'output') bugs.push(`#${c.id} ${c.entry} unchanged: ${o.kind}`);
    }
    const problems = [...bugs, ...slow, ...badMessages];
    if (process.env.KOMORIUM_FUZZ_DUMP && problems.length) writeFileSync(process.env.KOMORIUM_FUZZ_DUMP, problems.join('\n\n') + '\n');
    expect(bugs, bugs.slice(0, 10).join('\n')).toEqual([]);
    expect(slow, slow.slice(0, 10).join('\n')).toEqual([]);
    expect(badMessages, badMessages.slice(0, 10).join('\n')).toEqual([]);

    // Verify every output and the damaged input it came from, all in one JVM.
    const inDir = join(work, 'in');
    const outDir = join(work, 'out');
    mkdirSync(inDir);
    mkdirSync(outDir);
    const list: { id: string; files: string[] }[] = [];
    for (const c of cases) {
      const o = outcomes.get(c.id)!;
      if (o.kind !== 'output') continue;
      const inFile = join(inDir, `${c.id}-${fileName(c.entry)}`);
      writeFileSync(inFile, c.bytes);
      const files = [join(outDir, `${c.id}-${fileName(c.entry)}`)];
      writeFileSync(files[0]!, o.bytes);
      o.extra.forEach((x, k) => {
        const f = join(outDir, `${c.id}-extra${k}-${fileName(x.name)}.class`);
        writeFileSync(f, x.bytes);
        files.push(f);
      });
      list.push({ id: `in:${c.id}`, files: [inFile] }, { id: `out:${c.id}`, files });
    }
    const cp = [...new Set(JARS.flatMap((j) => [debianJar(j), ...debianClasspathFor(j)])), runtimeJar()];
    const v = verifyEach(join(work, 'cases.txt'), list, cp);

    // Figures per kind of damage.
    type Row = { cases: number; errors: number; outputs: number; verified: number; bothRejected: number; leftAsIs: number; stubs: number; maxMs: number };
    const rows = new Map<Kind, Row>();
    const errorNames = new Map<string, number>();
    const regressions: string[] = [];
    /** What was left as it was and why, and what the JVM said: written to KOMORIUM_FUZZ_DUMP. */
    const info: string[] = [];
    let slowest = { ms: 0, what: '' };
    for (const c of cases) {
      const o = outcomes.get(c.id)!;
      const row = rows.get(c.kind) ?? { cases: 0, errors: 0, outputs: 0, verified: 0, bothRejected: 0, leftAsIs: 0, stubs: 0, maxMs: 0 };
      rows.set(c.kind, row);
      row.cases++;
      row.maxMs = Math.max(row.maxMs, o.ms);
      if (o.ms > slowest.ms) slowest = { ms: o.ms, what: `${c.entry} (${c.kind}: ${c.what})` };
      if (o.kind === 'error') {
        row.errors++;
        errorNames.set(o.name, (errorNames.get(o.name) ?? 0) + 1);
      }
      if (o.kind !== 'output') continue;
      row.outputs++;
      if (o.leftAsIs > 0) row.leftAsIs++;
      if (o.reasons.length) info.push(`${c.kind} #${c.id} ${c.entry}: ${o.reasons.join(' | ')}`);
      if (o.stub) row.stubs++;
      const inV = v.results.get(`in:${c.id}`)! as CaseResult;
      const outV = v.results.get(`out:${c.id}`)! as CaseResult;
      if (outV.verdict !== 'OK') info.push(`${c.kind} #${c.id} ${c.entry}: input ${inV.verdict} ${inV.message} / output ${outV.verdict} ${outV.message}`);
      if (outV.verdict === 'OK') row.verified++;
      else if (inV.verdict !== 'OK') row.bothRejected++;
      else regressions.push(`#${c.id} ${c.jar} ${c.entry} (${c.kind}: ${c.what}): input verifies, output ${outV.verdict} ${outV.message}`);
    }
    const total = [...rows.values()].reduce((s, r) => s + r.cases, 0);
    const lines = [`fuzz: ${total} cases, seed ${SEED}, ${CLASSES_PER_JAR} classes from each of ${JARS.join(', ')}; verified in one JVM in ${v.ms} ms`];
    lines.push('  kind        cases  KomoriumError  output  verified  both-rejected  methods-left  class-stubbed  max-ms');
    for (const [k, r] of rows) {
      lines.push(
        `  ${k.padEnd(10)} ${String(r.cases).padStart(6)} ${String(r.errors).padStart(14)} ${String(r.outputs).padStart(7)} ` +
          `${String(r.verified).padStart(9)} ${String(r.bothRejected).padStart(14)} ${String(r.leftAsIs).padStart(13)} ` +
          `${String(r.stubs).padStart(14)} ${r.maxMs.toFixed(0).padStart(7)}`,
      );
    }
    lines.push(`  errors by type: ${[...errorNames].map(([n, k]) => `${n} ${k}`).join(', ')}; slowest class ${slowest.ms.toFixed(0)} ms: ${slowest.what}`);
    console.log(lines.join('\n'));
    mkdirSync(join(repoRoot, '.cache'), { recursive: true });
    writeFileSync(join(repoRoot, '.cache', 'reliability-fuzz.txt'), lines.join('\n') + '\n');
    expect(regressions, regressions.slice(0, 10).join('\n')).toEqual([]);
    if (process.env.KOMORIUM_FUZZ_DUMP) writeFileSync(process.env.KOMORIUM_FUZZ_DUMP, [...regressions, ...info].join('\n') + '\n');
    // Classes without a StackMapTable (Java 5 and older) get no StackMapTable damage.
    expect(total).toBeGreaterThanOrEqual(JARS.length * CLASSES_PER_JAR * 17);
    // Every unchanged class verifies once rewritten.
    expect(rows.get('control')!.verified).toBe(rows.get('control')!.cases);
  });

  test('a run that fails on a damaged class leaves no output jar and no temporary file', async () => {
    // commons-lang3 with one class cut short: the whole run fails with exit 2, naming that entry.
    const input = await readInput(debianJar('commons-lang3'));
    const victim = input.entries.find((e) => e.name === 'org/apache/commons/lang3/StringUtils.class')!;
    const entries = input.entries.map((e) => (e === victim ? { ...e, data: e.data.subarray(0, 3000) } : e));
    const dir = join(work, 'cli');
    mkdirSync(dir);
    const jar = join(dir, 'broken.jar');
    await writeJar(jar, entries);
    const before = readFileSync(jar);
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const r = cli(['instrument', jar, '-o', join(outDir, 'o.jar')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^komorium-ts: org\/apache\/commons\/lang3\/StringUtils\.class: truncated/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(outDir)).toEqual([]);
    expect(Buffer.compare(readFileSync(jar), before)).toBe(0);
  });
});
