/**
 * Relayout: insert a NOP at the start of every basic block of every method, re-encode, and have
 * HotSpot load and link (so verify) every class. This moves every offset, so it exercises frame
 * re-encoding (deltas and kinds), switch padding, line and local tables, and uninitialized(offset)
 * types — against the real verifier rather than against our own reading of the spec.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassFile } from '../src/classfile/classfile.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { encoderFrames } from '../src/analysis/frames.js';
import { writeCode } from '../src/bytecode/code-writer.js';
import { isLabel, type Label, type MethodCode, type Node } from '../src/bytecode/ir.js';
import { OP, hasTarget, isConditionalBranch, isUnconditionalTransfer } from '../src/bytecode/opcodes.js';
import { MethodTooLargeError } from '../src/errors.js';
import { DEBIAN_JARS, manifestClassPath, requireFiles } from './fixtures/bytecode/corpus.js';

const FIXTURES = new URL('./fixtures/bytecode/', import.meta.url).pathname;
let work: string;

/**
 * Block starts, simply: the first instruction, every branch/switch target and handler, and the
 * instruction after any branch, switch, return, athrow, jsr or ret. The NOP goes after the labels
 * in front of the block's first instruction, so that a stack map frame keyed by one of those
 * labels now describes the NOP — whose type state is the same — and branches to the label run the
 * NOP first. (Before the labels, the NOP would follow an unconditional branch without a frame.)
 */
function insertBlockNops(code: MethodCode, beforeLabels = false): number {
  const targets = new Set<Label>();
  for (const n of code.nodes) {
    if (isLabel(n)) continue;
    if (n.target) targets.add(n.target);
    if (n.dflt) targets.add(n.dflt);
    if (n.targets) for (const t of n.targets) targets.add(t);
  }
  for (const tc of code.tryCatch) targets.add(tc.handler);
  const out: Node[] = [];
  let pending = true;
  let added = 0;
  let labelRun = 0; // index in `out` of the first label in front of the current position
  for (const n of code.nodes) {
    if (isLabel(n)) {
      if (targets.has(n)) pending = true;
      out.push(n);
      continue;
    }
    if (pending) {
      // beforeLabels is the wrong placement, kept as the harness's negative control.
      if (beforeLabels) out.splice(labelRun, 0, { op: OP.NOP });
      else out.push({ op: OP.NOP });
      added++;
      pending = false;
    }
    out.push(n);
    labelRun = out.length;
    if (hasTarget(n.op) || isUnconditionalTransfer(n.op) || n.op === OP.JSR) pending = true;
  }
  code.nodes = out;
  return added;
}

interface Relayout {
  classes: number;
  methods: number;
  nops: number;
  /** Conditional branches (each widened, with a simulated frame, when widenAll). */
  conditionals: number;
  tooLarge: string[];
  jar: string;
}

async function relayoutJar(input: string, output: string, beforeLabels = false, widenAll = false): Promise<Relayout> {
  const zip = await JSZip.loadAsync(readFileSync(input));
  const out = new JSZip();
  const r: Relayout = { classes: 0, methods: 0, nops: 0, conditionals: 0, tooLarge: [], jar: output };
  for (const f of Object.values(zip.files)) {
    if (f.dir) continue;
    let data = await f.async('uint8array');
    if (f.name.endsWith('.class') && !f.name.endsWith('module-info.class')) {
      const cf = ClassFile.parse(data, `${input}!${f.name}`);
      r.classes++;
      cf.methods.forEach((m) => {
        const k = m.attributes.findIndex((a) => a.name === 'Code');
        if (k < 0) return;
        const code = readCode(cf, m, m.attributes[k]!);
        const nops = widenAll ? 0 : insertBlockNops(code, beforeLabels);
        try {
          m.attributes[k] = writeCode(cf, m, code, { widenAllBranches: widenAll, frameAt: encoderFrames(cf, m, code) });
          r.methods++;
          r.nops += nops;
          for (const n of code.nodes) if (!isLabel(n) && isConditionalBranch(n.op)) r.conditionals++;
        } catch (e) {
          if (!(e instanceof MethodTooLargeError)) throw e;
          r.tooLarge.push(`${cf.thisClass}.${m.name}${m.desc}`); // left as it was
        }
      });
      data = cf.toBytes();
    }
    out.file(f.name, data, { date: f.date });
  }
  writeFileSync(output, await out.generateAsync({ type: 'nodebuffer', compression: 'STORE' }));
  return r;
}

interface Verified {
  summary: Record<string, number>;
  verify: string[];
  missing: string[];
  other: string[];
}

function verifyJar(jar: string, deps: string[]): Verified {
  const stdout = execFileSync('java', ['-Xverify:all', '-Xss4m', '-cp', join(work, 'harness'), 'VerifyAll', jar, ...deps], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const v: Verified = { summary: {}, verify: [], missing: [], other: [] };
  for (const line of stdout.split('\n')) {
    if (line.startsWith('VERIFY ')) v.verify.push(line.slice(7));
    else if (line.startsWith('MISSING ')) v.missing.push(line.slice(8));
    else if (line.startsWith('OTHER ')) v.other.push(line.slice(6));
    else if (line.startsWith('SUMMARY ')) {
      for (const kv of line.slice(8).split(' ')) {
        const [k, n] = kv.split('=');
        v.summary[k!] = Number(n);
      }
    }
  }
  return v;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'komorium-relayout-'));
  execFileSync('javac', ['-d', join(work, 'harness'), join(FIXTURES, 'VerifyAll.java')]);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('relayout (a NOP at every block start) verifies on HotSpot', () => {
  const totals = { classes: 0, methods: 0, verifyErrors: 0 };

  for (const jar of DEBIAN_JARS) {
    it(jar, async () => {
      requireFiles([jar]);
      const name = jar.slice(jar.lastIndexOf('/') + 1, -4);
      const r = await relayoutJar(jar, join(work, `${name}-relayout.jar`));
      const deps = await manifestClassPath(jar);
      const before = verifyJar(jar, deps);
      const after = verifyJar(r.jar, deps);
      totals.classes += r.classes;
      totals.methods += r.methods;
      totals.verifyErrors += after.verify.length;
      console.log(
        `${name}: ${r.classes} classes, ${r.methods} methods re-encoded with ${r.nops} NOPs, ${r.tooLarge.length} too large; ` +
          `HotSpot: ${after.summary.ok} ok, ${after.verify.length} VerifyErrors, ${after.missing.length} missing dependencies, ` +
          `${after.other.length} other (original jar: ${before.summary.ok} ok, ${before.verify.length} VerifyErrors, ` +
          `${before.missing.length} missing, ${before.other.length} other)`,
      );
      for (const line of after.verify.slice(0, 10)) console.log(`  VerifyError ${line}`);
      expect(after.verify).toEqual([]);
      expect(after.other.length).toBe(before.other.length);
      expect(after.missing.length).toBe(before.missing.length);
      expect(after.summary.ok).toBe(before.summary.ok);
    });
  }

  it('every branch widened (inverted conditional over goto_w, with simulated frames) verifies too', async () => {
    const summary: string[] = [];
    for (const jar of DEBIAN_JARS) {
      requireFiles([jar]);
      const name = jar.slice(jar.lastIndexOf('/') + 1, -4);
      const r = await relayoutJar(jar, join(work, `${name}-wide.jar`), false, true);
      const after = verifyJar(r.jar, await manifestClassPath(jar));
      summary.push(
        `${name} ${r.methods} methods, ${r.conditionals} conditionals (${r.tooLarge.length} too large): ${after.verify.length} VerifyErrors`,
      );
      for (const line of after.verify.slice(0, 5)) console.log(`  VerifyError ${line}`);
      expect(after.verify, name).toEqual([]);
    }
    console.log(`all branches widened: ${summary.join('; ')}`);
  });

  it('negative control: NOPs put before the block labels make HotSpot report VerifyErrors', async () => {
    const jar = '/usr/share/java/commons-lang3.jar';
    requireFiles([jar]);
    const r = await relayoutJar(jar, join(work, 'broken.jar'), true);
    const after = verifyJar(r.jar, []);
    console.log(`negative control: ${after.verify.length} VerifyErrors, e.g. ${after.verify[0]}`);
    expect(after.verify.length).toBeGreaterThan(50);
  });

  it('ecj -target 1.2 classes (jsr/ret) verify and still compute the same', async () => {
    const src = join(work, 'old');
    execFileSync('java', [
      '-cp', '/usr/share/java/ecj.jar', 'org.eclipse.jdt.internal.compiler.batch.Main',
      '-source', '1.3', '-target', '1.2', '-nowarn', '-d', src, join(FIXTURES, 'OldStyle.java'),
    ]);
    const zip = new JSZip();
    zip.file('OldStyle.class', readFileSync(join(src, 'OldStyle.class')));
    const orig = join(work, 'old.jar');
    writeFileSync(orig, await zip.generateAsync({ type: 'nodebuffer' }));
    const r = await relayoutJar(orig, join(work, 'old-relayout.jar'));
    const after = verifyJar(r.jar, []);
    expect(after.verify).toEqual([]);
    expect(after.summary.ok).toBe(1);
    const run = (jar: string): string => execFileSync('java', ['-Xverify:all', '-cp', jar, 'OldStyle'], { encoding: 'utf8' });
    expect(run(r.jar)).toBe(run(orig));
    console.log(`ecj -target 1.2: ${r.methods} methods with jsr/ret re-encoded with ${r.nops} NOPs; same output`);
    console.log(`total: ${totals.classes} classes, ${totals.methods} methods relaid out, ${totals.verifyErrors} VerifyErrors`);
  });
});
