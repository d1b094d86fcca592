// The analyses on real class files: Debian's guava and commons-lang3 (javac output with
// StackMapTables). simulateFrames must never throw and must agree with every recorded frame it
// reaches; computeFrames must give, at every recorded frame point, a frame the verifier accepts
// where javac's was accepted (equal, or more precise). The figures are printed for the record.
import { describe, expect, it } from 'vitest';
import { ClassFile, findAttribute } from '../src/classfile/classfile.js';
import type { MemberInfo } from '../src/classfile/model.js';
import { readCode } from '../src/bytecode/code-reader.js';
import { branchTargets, isLabel, type Frame, type Insn, type MethodCode, type VType } from '../src/bytecode/ir.js';
import { OP, isUnconditionalTransfer } from '../src/bytecode/opcodes.js';
import { simulateFrames, computeFramesDetailed, execute, isReference } from '../src/analysis/frames.js';
import { computeBlocks } from '../src/analysis/blocks.js';
import { findLoops } from '../src/analysis/loops.js';
import { placeChecks } from '../src/analysis/checks.js';
import { ClassHierarchy } from '../src/hierarchy/hierarchy.js';
import { ZipIndex } from '../src/jar/zip-index.js';
import { writeCode } from '../src/bytecode/code-writer.js';
import { debianJar, debianClasspathFor } from './support/corpus.js';
import { describeVerify, verifyJar } from './support/verify.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface MethodUnit {
  cf: ClassFile;
  method: MemberInfo;
  code: MethodCode;
}

function* methodsOf(jar: string): Generator<MethodUnit> {
  const zip = new ZipIndex(jar);
  try {
    for (const name of zip.entries.keys()) {
      if (!name.endsWith('.class') || name.startsWith('META-INF/') || name.endsWith('module-info.class')) continue;
      const cf = ClassFile.parse(zip.read(name)!, name);
      for (const method of cf.methods) {
        const attr = findAttribute(method.attributes, 'Code');
        if (attr === undefined) continue;
        yield { cf, method, code: readCode(cf, method, attr) };
      }
    }
  } finally {
    zip.close();
  }
}

function classesOf(jar: string): ClassFile[] {
  const zip = new ZipIndex(jar);
  const out: ClassFile[] = [];
  for (const name of zip.entries.keys()) {
    if (name.endsWith('.class') && !name.startsWith('META-INF/') && !name.endsWith('module-info.class')) out.push(ClassFile.parse(zip.read(name)!, name));
  }
  zip.close();
  return out;
}

/** Verifier assignability (JVMS 4.10.1.2): interfaces accept every reference; 'T' accepts anything. */
function assignableType(h: ClassHierarchy, from: VType, to: VType): boolean {
  if (from === to || to === 'T') return true;
  if (typeof from !== 'string' || typeof to !== 'string') return false;
  if (!isReference(from) || !isReference(to) || to === 'N') return false;
  if (from === 'N') return true;
  return assignableRef(h, from, to);
}

function assignableRef(h: ClassHierarchy, from: string, to: string): boolean {
  if (from === to || to === 'Ljava/lang/Object;') return true;
  if (to.startsWith('L')) {
    const t = to.slice(1, -1);
    if (h.isInterface(t)) return true;
    if (from.startsWith('[')) return false;
    return h.isSubclassOf(from.slice(1, -1), t);
  }
  // to is an array
  if (!from.startsWith('[')) return false;
  const ef = from.substring(1);
  const et = to.substring(1);
  if (ef.length === 1 || et.length === 1) return ef === et;
  return assignableRef(h, ef, et);
}

function assignableFrame(h: ClassHierarchy, from: Frame, to: Frame, stackOnly = false): boolean {
  if (from.stack.length !== to.stack.length) return false;
  for (let k = 0; k < to.stack.length; k++) if (!assignableType(h, from.stack[k]!, to.stack[k]!)) return false;
  if (stackOnly) return true;
  for (let k = 0; k < to.locals.length; k++) if (!assignableType(h, from.locals[k] ?? 'T', to.locals[k]!)) return false;
  return true;
}

function sameFrame(a: Frame, b: Frame): boolean {
  const trim = (l: VType[]) => {
    let n = l.length;
    while (n > 0 && l[n - 1] === 'T' && !(n >= 2 && (l[n - 2] === 'J' || l[n - 2] === 'D'))) n--;
    return l.slice(0, n);
  };
  const la = trim(a.locals);
  const lb = trim(b.locals);
  return la.length === lb.length && la.every((x, i) => x === lb[i]) && a.stack.length === b.stack.length && a.stack.every((x, i) => x === b.stack[i]);
}

const JARS = ['guava', 'commons-lang3'] as const;

describe.each(JARS)('analysis on %s', (jarName) => {
  it('simulateFrames never throws and agrees with every recorded frame it reaches', () => {
    const jar = debianJar(jarName);
    const h = new ClassHierarchy({ classpath: [jar] });
    let methods = 0;
    let checkedEdges = 0;
    let recordedFrames = 0;
    const problems: string[] = [];
    const t0 = performance.now();
    for (const { cf, method, code } of methodsOf(jar)) {
      methods++;
      const sim = simulateFrames(cf, method, code);
      const frames = code.frames ?? new Map();
      recordedFrames += frames.size;
      // Every edge into a label with a recorded frame: the simulated state must be assignable to it.
      const labelFrameAt = new Map<number, Frame>();
      const pos = new Map<unknown, number>();
      code.nodes.forEach((n, i) => {
        if (isLabel(n)) {
          pos.set(n, i);
          const f = frames.get(n);
          if (f) labelFrameAt.set(i, f);
        }
      });
      const check = (from: Frame, to: Frame, what: string, stackOnly = false) => {
        checkedEdges++;
        if (!assignableFrame(h, from, to, stackOnly)) {
          problems.push(`${cf.thisClass}.${method.name}${method.desc} ${what}: ${JSON.stringify(from)} vs ${JSON.stringify(to)}`);
        }
      };
      for (let i = 0; i < code.nodes.length; i++) {
        const n = code.nodes[i]!;
        if (isLabel(n)) {
          // fall-through into a frame label
          const f = frames.get(n);
          if (f && i > 0) {
            let j = i - 1;
            while (j >= 0 && isLabel(code.nodes[j]!)) j--;
            if (j >= 0) {
              const prev = code.nodes[j] as Insn;
              const before = sim[j];
              if (before && !isUnconditionalTransfer(prev.op) && !isBranch(prev)) {
                const locals = before.locals.slice();
                const stack = before.stack.slice();
                execute(cf, prev, locals, stack);
                check({ locals, stack }, f, `fall-through at node ${i}`);
              }
            }
          }
          continue;
        }
        const before = sim[i];
        if (before === null || before === undefined) {
          problems.push(`${cf.thisClass}.${method.name}${method.desc}: no simulated frame at reachable? node ${i}`);
          continue;
        }
        const targets = branchTargets(n);
        if (targets.length > 0 || isBranch(n)) {
          const locals = before.locals.slice();
          const stack = before.stack.slice();
          execute(cf, n, locals, stack);
          for (const t of targets) {
            const f = frames.get(t);
            if (!f) problems.push(`no recorded frame at a branch target`);
            else check({ locals, stack }, f, `branch at node ${i}`);
          }
          if (!isUnconditionalTransfer(n.op)) {
            let j = i + 1;
            let f: Frame | undefined;
            while (j < code.nodes.length && isLabel(code.nodes[j]!)) f ??= frames.get(code.nodes[j] as never), j++;
            if (f) check({ locals, stack }, f, `branch fall-through at node ${i}`);
          }
        }
      }
      for (const tc of code.tryCatch) {
        const hf = frames.get(tc.handler)!;
        for (let i = pos.get(tc.start)!; i < pos.get(tc.end)!; i++) {
          const n = code.nodes[i]!;
          const before = sim[i];
          if (isLabel(n) || !before) continue;
          check({ locals: before.locals, stack: hf.stack }, hf, `handler edge at node ${i}`);
        }
      }
    }
    const ms = performance.now() - t0;
    console.log(`[${jarName}] simulateFrames: ${methods} methods, ${recordedFrames} recorded frames, ${checkedEdges} edges checked, ${problems.length} disagreements, ${ms.toFixed(0)} ms`);
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('blocks partition the code; checks bound every unchecked path by MaxPath', () => {
    const jar = debianJar(jarName);
    const maxPath = 50;
    let methods = 0;
    let blocksTotal = 0;
    let insns = 0;
    let pieces = 0;
    let checked = 0;
    let extra = 0;
    let irreducible = 0;
    const problems: string[] = [];
    const t0 = performance.now();
    for (const { cf, method, code } of methodsOf(jar)) {
      methods++;
      const where = `${cf.thisClass}.${method.name}${method.desc}`;
      const blocks = computeBlocks(code);
      blocksTotal += blocks.length;
      let next = 0;
      for (const b of blocks) {
        if (b.start !== next) problems.push(`${where}: block ${b.index} starts at ${b.start}, expected ${next}`);
        next = b.end;
        insns += b.insnCount;
      }
      if (next !== code.nodes.length) problems.push(`${where}: blocks end at ${next} of ${code.nodes.length}`);
      const split = computeBlocks(code, { maxPath });
      pieces += split.length;
      const loops = findLoops(split);
      if (loops.irreducibleEdges.length > 0) irreducible++;
      const checks = placeChecks(split, loops.headers, { maxPath });
      checked += checks.size;
      for (const r of checks.values()) if (r === 'maxpath') extra++;
      // Independent check: longest run of bytecodes between checks, by relaxation over all edges
      // (it converges only if the unchecked blocks form no cycle).
      const out = split.map((b) => b.insnCount);
      for (let round = 0, changed = true; changed; round++) {
        changed = false;
        if (round > split.length + 1) {
          problems.push(`${where}: a cycle without a check`);
          break;
        }
        for (const b of split) {
          for (const s of [...b.successors, ...b.handlers]) {
            if (checks.has(s)) continue;
            const v = out[b.index]! + split[s]!.insnCount;
            if (v > out[s]!) {
              out[s] = v;
              changed = true;
            }
          }
        }
      }
      const worst = Math.max(0, ...out);
      if (worst > maxPath) problems.push(`${where}: ${worst} bytecodes between checks`);
    }
    const ms = performance.now() - t0;
    console.log(
      `[${jarName}] blocks: ${methods} methods, ${blocksTotal} blocks (${(insns / Math.max(1, blocksTotal)).toFixed(2)} insns each), ` +
        `${pieces} pieces at MaxPath ${maxPath}, ${checked} checks (${((100 * checked) / pieces).toFixed(1)}% of pieces, ` +
        `${extra} for MaxPath), ${irreducible} methods with irreducible loops, ${ms.toFixed(0)} ms`,
    );
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('computeFrames agrees with the recorded frames (equal or more precise)', () => {
    const jar = debianJar(jarName);
    const h = new ClassHierarchy();
    for (const cf of classesOf(jar)) h.addClass(cf);
    let methods = 0;
    let points = 0;
    let equal = 0;
    let morePrecise = 0;
    let extra = 0;
    let unreachable = 0;
    const mismatches: string[] = [];
    const absent: string[] = [];
    const t0 = performance.now();
    for (const { cf, method, code } of methodsOf(jar)) {
      methods++;
      const computed = computeFramesDetailed(cf, method, code, h);
      unreachable += computed.unreachable.length;
      const recorded = code.frames ?? new Map();
      for (const [label, rf] of recorded) {
        points++;
        const cf2 = computed.frames.get(label);
        if (!cf2) {
          absent.push(`${cf.thisClass}.${method.name}${method.desc} @${label.origOffset}`);
          continue;
        }
        if (sameFrame(cf2, rf)) equal++;
        else if (assignableFrame(h, cf2, rf)) morePrecise++;
        else mismatches.push(`${cf.thisClass}.${method.name}${method.desc} @${label.origOffset}: computed ${JSON.stringify(cf2)} recorded ${JSON.stringify(rf)}`);
      }
      for (const l of computed.frames.keys()) if (!recorded.has(l)) extra++;
    }
    const ms = performance.now() - t0;
    console.log(
      `[${jarName}] computeFrames: ${methods} methods, ${points} recorded frame points: ${equal} equal, ${morePrecise} more precise, ` +
        `${mismatches.length} mismatches, ${absent.length} without a computed frame; ${extra} computed frames where none was recorded; ` +
        `${unreachable} unreachable insns; missing classes ${JSON.stringify(h.missing)}; ${ms.toFixed(0)} ms`,
    );
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect(absent.slice(0, 10)).toEqual([]);
  });

  it("classes re-encoded with only computed frames pass HotSpot's verifier", () => {
    // The decisive test of computeFrames: drop every recorded frame, encode the computed ones, verify.
    const jar = debianJar(jarName);
    const h = new ClassHierarchy();
    const classes = classesOf(jar);
    for (const cf of classes) h.addClass(cf);
    const out = mkdtempSync(join(tmpdir(), `komorium-frames-${jarName}-`));
    try {
      let replaced = 0;
      for (const cf of classes) {
        for (const method of cf.methods) {
          const k = method.attributes.findIndex((a) => a.name === 'Code');
          if (k < 0) continue;
          const code = readCode(cf, method, method.attributes[k]!);
          if (code.frames === null || code.frames.size === 0) continue;
          code.frames = computeFramesDetailed(cf, method, code, h).frames;
          // No recorded kinds: the encoder picks compact kinds, as it does for transformed code.
          code.frameKinds = new Map();
          method.attributes[k] = writeCode(cf, method, code);
          replaced++;
        }
        const file = join(out, cf.entry);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, cf.toBytes());
      }
      const r = verifyJar(out, debianClasspathFor(jarName));
      console.log(`[${jarName}] re-encoded ${replaced} methods with computed frames: ${describeVerify(r, 5)}`);
      expect(r.verifyErrors, describeVerify(r)).toEqual([]);
      expect(r.other, describeVerify(r)).toEqual([]);
      expect(r.verified).toBeGreaterThan(classes.length * 0.9);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

function isBranch(n: Insn): boolean {
  return branchTargets(n).length > 0 || n.op === OP.JSR;
}
