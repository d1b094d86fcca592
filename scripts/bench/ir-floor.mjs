#!/usr/bin/env node
// The floor of a pipeline without an object IR (issue 23, target 4), measured before anyone
// rewrites src/ for it. For every class of a jar it does, straight on the class bytes and typed
// arrays, the core of what any block-counting instrumenter does:
//   - walks the constant pool once (offsets and tags, no string decoded);
//   - decodes each method's code into per-offset marks (instruction starts, block leaders);
//   - inserts a 15-byte counter update at every leader (`getstatic Rt.c:[[I; sipush class;
//     aaload; sipush block; dup2; iaload; iconst_1; iadd; iastore`), re-lays out the code (switch
//     padding), relocates every branch, the exception table, the StackMapTable (re-encoding
//     frame types whose offset delta grows), LineNumberTable and LocalVariable(Type)Table;
//   - appends the six constant-pool entries the update needs and writes the class back;
// then writes the jar with the project's own zip writer (src/jar/zip.ts, deflate level 6).
//
// It is not Komorium's instrumentation (no stack reification, checks, wrappers, frames computed,
// or other kinds), and it keeps a method as it was where a short branch would overflow or the code
// would pass 65,535 bytes (it does not widen) and for jsr/ret. Type annotations on code keep their
// old offsets. Its output loads and verifies (test/support/VerifyAll.java), which is what makes the
// figure a floor and not a guess: every step above has to happen in a real rewrite too.
//
//   npm run build && node scripts/bench/ir-floor.mjs IN.jar OUT.jar [--stats] [--verify CLASSPATH]
//
// --verify links every class of OUT.jar in HotSpot with verification on (CLASSPATH: the jar's
// dependencies) and exits 1 if the output has more problems than IN.jar; timed runs leave it out.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readZip, writeZip } from '../../dist/jar/zip.js';
import { OPCODE_FORMATS, Fmt, OP, isUnconditionalTransfer } from '../../dist/bytecode/opcodes.js';
import { insnSize as codeInsnSize } from '../../dist/bytecode/code-table.js';

const [input, output, ...rest] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node scripts/bench/ir-floor.mjs IN.jar OUT.jar [--stats] [--verify CLASSPATH]');
  process.exit(2);
}
const stats = { classes: 0, methods: 0, kept: 0, blocks: 0, skippedClasses: 0 };
const UPDATE = 15;
const ascii = (s) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const NAMES = {
  Code: ascii('Code'),
  StackMapTable: ascii('StackMapTable'),
  LineNumberTable: ascii('LineNumberTable'),
  LocalVariableTable: ascii('LocalVariableTable'),
  LocalVariableTypeTable: ascii('LocalVariableTypeTable'),
};

/** A growable byte sink. */
class Out {
  constructor(n) {
    this.b = new Uint8Array(n);
    this.n = 0;
  }
  room(k) {
    if (this.n + k <= this.b.length) return;
    const g = new Uint8Array(Math.max(this.n + k, this.b.length * 2));
    g.set(this.b.subarray(0, this.n));
    this.b = g;
  }
  u1(v) { this.room(1); this.b[this.n++] = v; }
  u2(v) { this.room(2); this.b[this.n++] = v >>> 8; this.b[this.n++] = v; }
  u4(v) { this.room(4); this.b[this.n++] = v >>> 24; this.b[this.n++] = v >>> 16; this.b[this.n++] = v >>> 8; this.b[this.n++] = v; }
  bytes(src, from, to) { this.room(to - from); this.b.set(src.subarray(from, to), this.n); this.n += to - from; }
  at(p, v) { this.b[p] = v >>> 8; this.b[p + 1] = v; }
  at4(p, v) { this.b[p] = v >>> 24; this.b[p + 1] = v >>> 16; this.b[p + 2] = v >>> 8; this.b[p + 3] = v; }
}

const u2 = (b, p) => (b[p] << 8) | b[p + 1];
const s2 = (b, p) => ((b[p] << 24) >> 16) | b[p + 1];
const s4 = (b, p) => (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];

/** Indices of the Utf8 constants named in NAMES (0 when absent), and the pool's end. */
function scanPool(b) {
  const count = u2(b, 8);
  const found = { Code: 0, StackMapTable: 0, LineNumberTable: 0, LocalVariableTable: 0, LocalVariableTypeTable: 0 };
  let p = 10;
  for (let i = 1; i < count; i++) {
    const tag = b[p];
    switch (tag) {
      case 1: {
        const len = u2(b, p + 1);
        for (const k in NAMES) {
          const name = NAMES[k];
          if (name.length !== len || found[k] !== 0) continue;
          let same = true;
          for (let j = 0; j < len && same; j++) same = b[p + 3 + j] === name[j];
          if (same) found[k] = i;
        }
        p += 3 + len;
        break;
      }
      case 3: case 4: p += 5; break;
      case 5: case 6: p += 9; i++; break;
      case 7: case 8: case 16: case 19: case 20: p += 3; break;
      case 9: case 10: case 11: case 12: case 17: case 18: p += 5; break;
      case 15: p += 4; break;
      default: throw new Error(`constant pool tag ${tag} at index ${i}`);
    }
  }
  return { count, end: p, found };
}

/** Bytes of the instruction at pc (switch padding from its old position). */
function insnSize(code, pc) {
  const size = codeInsnSize(code, pc, code.length);
  if (size < 0) throw new Error(`opcode ${code[pc]} at ${pc}`);
  return size;
}

/**
 * The rewritten Code attribute body, or null to keep the method as it was. `ctx` carries the
 * class's fieldref, its number and the next block number.
 */
function rewriteCode(b, start, names, ctx) {
  const maxStack = u2(b, start);
  const maxLocals = u2(b, start + 2);
  const len = s4(b, start + 4);
  const cs = start + 8;
  const code = b.subarray(cs, cs + len);
  const isStart = new Uint8Array(len + 1);
  const leader = new Uint8Array(len + 1);
  leader[0] = 1;
  for (let pc = 0; pc < len; ) {
    isStart[pc] = 1;
    const op = code[pc];
    const size = insnSize(code, pc);
    const f = OPCODE_FORMATS[op];
    if (op === OP.JSR || op === OP.JSR_W || op === OP.RET || (op === OP.WIDE && code[pc + 1] === OP.RET)) return null;
    if (f === Fmt.BRANCH) leader[pc + s2(code, pc + 1)] = 1;
    else if (f === Fmt.BRANCH_W) leader[pc + s4(code, pc + 1)] = 1;
    else if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
      const q = (pc + 4) & ~3;
      leader[pc + s4(code, q)] = 1;
      const n = f === Fmt.TABLESWITCH ? s4(code, q + 8) - s4(code, q + 4) + 1 : s4(code, q + 4);
      for (let k = 0; k < n; k++) leader[pc + s4(code, f === Fmt.TABLESWITCH ? q + 12 + 4 * k : q + 12 + 8 * k)] = 1;
    }
    if (f === Fmt.BRANCH || f === Fmt.BRANCH_W || f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH || isUnconditionalTransfer(op)) leader[pc + size] = 1;
    pc += size;
  }
  isStart[len] = 1;
  leader[len] = 0;
  let p = cs + len;
  const nExc = u2(b, p);
  const excAt = p + 2;
  for (let k = 0; k < nExc; k++) leader[u2(b, excAt + 8 * k + 4)] = 1;

  // New layout: the update goes before the leader's instruction, so branches to it count.
  const insertAt = new Int32Array(len + 1);
  const newPc = new Int32Array(len + 1);
  let pos = 0;
  for (let pc = 0; pc < len; ) {
    if (leader[pc]) {
      insertAt[pc] = pos;
      pos += UPDATE;
    } else insertAt[pc] = -1;
    newPc[pc] = pos;
    const op = code[pc];
    const size = insnSize(code, pc);
    const f = OPCODE_FORMATS[op];
    // a switch's padding follows its new position
    if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) pos = ((pos + 4) & ~3) + size - (((pc + 4) & ~3) - pc);
    else pos += size;
    pc += size;
  }
  const newLen = pos;
  newPc[len] = newLen;
  insertAt[len] = newLen;
  if (newLen > 65535) return null;
  const into = (t) => (leader[t] ? insertAt[t] : newPc[t]);

  const out = new Out(newLen + 64);
  out.u2(0); // max_stack, set below
  out.u2(maxLocals);
  out.u4(newLen);
  const c0 = out.n;
  out.room(newLen);
  const nc = out.b;
  let w = c0;
  for (let pc = 0; pc < len; ) {
    const op = code[pc];
    const size = insnSize(code, pc);
    if (leader[pc]) {
      const block = ctx.block++;
      nc[w] = OP.GETSTATIC; nc[w + 1] = ctx.field >>> 8; nc[w + 2] = ctx.field;
      nc[w + 3] = OP.SIPUSH; nc[w + 4] = ctx.id >>> 8; nc[w + 5] = ctx.id;
      nc[w + 6] = OP.AALOAD;
      nc[w + 7] = OP.SIPUSH; nc[w + 8] = block >>> 8; nc[w + 9] = block;
      nc[w + 10] = OP.DUP2; nc[w + 11] = OP.IALOAD; nc[w + 12] = OP.ICONST_1; nc[w + 13] = OP.IADD; nc[w + 14] = OP.IASTORE;
      w += UPDATE;
    }
    const np = newPc[pc];
    const f = OPCODE_FORMATS[op];
    if (f === Fmt.BRANCH) {
      const d = into(pc + s2(code, pc + 1)) - np;
      if (d < -32768 || d > 32767) return null;
      nc[w] = op; nc[w + 1] = d >>> 8; nc[w + 2] = d;
      w += 3;
    } else if (f === Fmt.BRANCH_W) {
      const d = into(pc + s4(code, pc + 1)) - np;
      nc[w] = op; nc[w + 1] = d >>> 24; nc[w + 2] = d >>> 16; nc[w + 3] = d >>> 8; nc[w + 4] = d;
      w += 5;
    } else if (f === Fmt.TABLESWITCH || f === Fmt.LOOKUPSWITCH) {
      const q = (pc + 4) & ~3;
      nc[w] = op;
      const nq = c0 + ((np + 4) & ~3);
      for (let z = w + 1; z < nq; z++) nc[z] = 0;
      const rel = (at) => into(pc + s4(code, at)) - np;
      const put = (z, v) => { nc[z] = v >>> 24; nc[z + 1] = v >>> 16; nc[z + 2] = v >>> 8; nc[z + 3] = v; };
      put(nq, rel(q));
      if (f === Fmt.TABLESWITCH) {
        const n = s4(code, q + 8) - s4(code, q + 4) + 1;
        nc.set(code.subarray(q + 4, q + 12), nq + 4);
        for (let k = 0; k < n; k++) put(nq + 12 + 4 * k, rel(q + 12 + 4 * k));
        w = nq + 12 + 4 * n;
      } else {
        const n = s4(code, q + 4);
        nc.set(code.subarray(q + 4, q + 8), nq + 4);
        for (let k = 0; k < n; k++) {
          nc.set(code.subarray(q + 8 + 8 * k, q + 12 + 8 * k), nq + 8 + 8 * k);
          put(nq + 12 + 8 * k, rel(q + 12 + 8 * k));
        }
        w = nq + 8 + 8 * n;
      }
    } else {
      nc.set(code.subarray(pc, pc + size), w);
      w += size;
    }
    pc += size;
  }
  out.n = w;
  out.at(0, Math.min(65535, maxStack + 4));

  out.u2(nExc);
  for (let k = 0; k < nExc; k++) {
    const e = excAt + 8 * k;
    out.u2(into(u2(b, e)));
    out.u2(into(u2(b, e + 2)));
    out.u2(into(u2(b, e + 4)));
    out.u2(u2(b, e + 6));
  }
  p = excAt + 8 * nExc;
  const nAttr = u2(b, p);
  out.u2(nAttr);
  p += 2;
  for (let k = 0; k < nAttr; k++) {
    const name = u2(b, p);
    const alen = s4(b, p + 2);
    const body = p + 6;
    if (name === names.StackMapTable) rewriteFrames(b, body, out, name, into, newPc);
    else if (name === names.LineNumberTable) {
      out.u2(name); out.u4(alen);
      const n = u2(b, body);
      out.u2(n);
      for (let j = 0; j < n; j++) { out.u2(into(u2(b, body + 2 + 4 * j))); out.u2(u2(b, body + 4 + 4 * j)); }
    } else if (name === names.LocalVariableTable || name === names.LocalVariableTypeTable) {
      out.u2(name); out.u4(alen);
      const n = u2(b, body);
      out.u2(n);
      for (let j = 0; j < n; j++) {
        const e = body + 2 + 10 * j;
        const s = u2(b, e);
        const end = s + u2(b, e + 2);
        const ns = into(s);
        out.u2(ns); out.u2((end >= len ? newLen : into(end)) - ns);
        out.bytes(b, e + 4, e + 10);
      }
    } else out.bytes(b, p, body + alen);
    p = body + alen;
  }
  return out.b.subarray(0, out.n);
}

/** verification_type_info entries from b[p], rewritten (Uninitialized offsets) into out; returns the end. */
function copyTypes(b, p, n, out, newPc) {
  for (let k = 0; k < n; k++) {
    const tag = b[p];
    out.u1(tag);
    if (tag === 7) { out.u2(u2(b, p + 1)); p += 3; }
    else if (tag === 8) { out.u2(newPc[u2(b, p + 1)]); p += 3; }
    else p += 1;
  }
  return p;
}

/** The StackMapTable with each frame moved to its leader's new offset, frame types re-chosen for the new deltas. */
function rewriteFrames(b, body, out, name, into, newPc) {
  out.u2(name);
  const lenAt = out.n;
  out.u4(0);
  const n = u2(b, body);
  out.u2(n);
  let p = body + 2;
  let old = -1;
  let prev = -1;
  for (let k = 0; k < n; k++) {
    const t = b[p];
    let delta;
    if (t < 64) delta = t;
    else if (t < 128) delta = t - 64;
    else delta = u2(b, p + 1);
    old = k === 0 ? delta : old + delta + 1;
    const at = into(old);
    const nd = k === 0 ? at : at - prev - 1;
    prev = at;
    if (t < 64) {
      if (nd < 64) out.u1(nd); else { out.u1(251); out.u2(nd); }
      p += 1;
    } else if (t < 128) {
      if (nd < 64) out.u1(64 + nd); else { out.u1(247); out.u2(nd); }
      p = copyTypes(b, p + 1, 1, out, newPc);
    } else if (t === 247) {
      out.u1(247); out.u2(nd);
      p = copyTypes(b, p + 3, 1, out, newPc);
    } else if (t >= 248 && t <= 251) {
      out.u1(t); out.u2(nd);
      p += 3;
    } else if (t >= 252 && t <= 254) {
      out.u1(t); out.u2(nd);
      p = copyTypes(b, p + 3, t - 251, out, newPc);
    } else if (t === 255) {
      out.u1(t); out.u2(nd);
      const nl = u2(b, p + 3);
      out.u2(nl);
      p = copyTypes(b, p + 5, nl, out, newPc);
      const ns = u2(b, p);
      out.u2(ns);
      p = copyTypes(b, p + 2, ns, out, newPc);
    } else throw new Error(`stack map frame type ${t}`);
  }
  out.at4(lenAt, out.n - lenAt - 4);
}

function utf8Entry(out, s) {
  out.u1(1);
  out.u2(s.length);
  for (let i = 0; i < s.length; i++) out.u1(s.charCodeAt(i));
}

function rewriteClass(b, id) {
  const { count, end, found } = scanPool(b);
  if (count + 6 > 65535) return null;
  const out = new Out(b.length * 2 + 256);
  out.bytes(b, 0, 8);
  out.u2(count + 6);
  out.bytes(b, 10, end);
  // Utf8 Rt, Class Rt, Utf8 c, Utf8 [[I, NameAndType, Fieldref: indices count … count+5.
  utf8Entry(out, 'komorium/floor/Rt');
  out.u1(7); out.u2(count);
  utf8Entry(out, 'c');
  utf8Entry(out, '[[I');
  out.u1(12); out.u2(count + 2); out.u2(count + 3);
  out.u1(9); out.u2(count + 1); out.u2(count + 4);
  const ctx = { field: count + 5, id, block: 0 };
  let p = end + 6;
  const nIf = u2(b, p);
  p += 2 + 2 * nIf;
  // fields: copied as they are
  const nF = u2(b, p);
  let q = p + 2;
  for (let k = 0; k < nF; k++) q = skipMember(b, q);
  out.bytes(b, end, q);
  const nM = u2(b, q);
  out.u2(nM);
  q += 2;
  for (let k = 0; k < nM; k++) {
    out.bytes(b, q, q + 6);
    const na = u2(b, q + 6);
    out.u2(na);
    let a = q + 8;
    for (let j = 0; j < na; j++) {
      const name = u2(b, a);
      const alen = s4(b, a + 2);
      if (name === found.Code && found.Code !== 0) {
        stats.methods++;
        const body = rewriteCode(b, a + 6, found, ctx);
        if (body === null) {
          stats.kept++;
          out.bytes(b, a, a + 6 + alen);
        } else {
          out.u2(name);
          out.u4(body.length);
          out.bytes(body, 0, body.length);
        }
      } else out.bytes(b, a, a + 6 + alen);
      a += 6 + alen;
    }
    q = a;
  }
  out.bytes(b, q, b.length); // class attributes
  stats.blocks += ctx.block;
  if (ctx.block > 32767) return null;
  return out.b.slice(0, out.n);
}

function skipMember(b, p) {
  const na = u2(b, p + 6);
  p += 8;
  for (let j = 0; j < na; j++) p += 6 + s4(b, p + 2);
  return p;
}

const t0 = performance.now();
const entries = readZip(input, readFileSync(input));
const t1 = performance.now();
let id = 0;
for (const e of entries) {
  if (e.isDirectory || !e.name.endsWith('.class') || e.name.startsWith('META-INF/')) continue;
  stats.classes++;
  const rewritten = rewriteClass(e.data, id++);
  if (rewritten === null) stats.skippedClasses++;
  else e.data = rewritten;
}
const t2 = performance.now();
writeFileSync(output, writeZip(entries, new Date(Date.UTC(1980, 1, 1))));
const t3 = performance.now();
if (rest.includes('--stats')) {
  console.log(JSON.stringify({ ...stats, readMs: Math.round(t1 - t0), rewriteMs: Math.round(t2 - t1), writeMs: Math.round(t3 - t2) }));
}
const vi = rest.indexOf('--verify');
if (vi >= 0) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const harness = join(root, '.cache', 'sweep-harness');
  if (!existsSync(join(harness, 'VerifyAll.class'))) {
    mkdirSync(harness, { recursive: true });
    execFileSync('javac', ['--release', '8', '-Xlint:-options', '-d', harness, join(root, 'test', 'support', 'VerifyAll.java')]);
  }
  const problems = (jar) => {
    const text = execFileSync('java', ['-XX:+UnlockDiagnosticVMOptions', '-XX:+BytecodeVerificationRemote', '-Xss8m', '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true', '-cp', harness, 'VerifyAll', jar, rest[vi + 1] ?? ''], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const summary = text.split('\n').find((l) => l.startsWith('classes='));
    const m = /verifyErrors=(\d+) missing=(\d+) other=(\d+)/.exec(summary ?? '');
    if (!m) throw new Error(`VerifyAll on ${jar} gave no summary`);
    return { summary, count: Number(m[1]) + Number(m[2]) + Number(m[3]), verify: text.split('\n').filter((l) => l.startsWith('VERIFY ')) };
  };
  const before = problems(input);
  const after = problems(output);
  console.log(`verify ${input}: ${before.summary}\nverify ${output}: ${after.summary}`);
  for (const l of after.verify.slice(0, 5)) console.log(l.slice(0, 400));
  if (after.count > before.count) process.exit(1);
}
