/**
 * Fuzzing class files (issue 8): a seeded generator, the byte layout of a valid class file (where
 * its constant-pool indices, attribute lengths, StackMapTables and instructions are), and mutators
 * that damage exactly those places. The layout is read by a small walker of its own (JVMS 4), not by
 * src/classfile, so that a bug there cannot hide the places it misreads.
 */
import { OPCODE_FORMATS, Fmt } from '../../src/bytecode/opcodes.js';

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length)]!;
  }
}

export interface Range {
  start: number;
  end: number;
}

export interface CodeLayout {
  /** The code array. */
  code: Range;
  /** Absolute offsets of instruction opcodes. */
  instructions: number[];
}

export interface StackMapLayout {
  /** The attribute's info (after attribute_length). */
  info: Range;
  /** frame_type bytes. */
  frameTypes: number[];
  /** offset_delta u2 fields. */
  offsetDeltas: number[];
  /** verification_type_info tag bytes. */
  typeTags: number[];
  /** Object_variable cpool_index and Uninitialized_variable offset u2 fields. */
  typeOperands: number[];
}

export interface ClassLayout {
  cpCount: number;
  /** Offsets of u2 fields holding a constant-pool index (u1 for ldc: see cpRefs1). */
  cpRefs: number[];
  /** Offsets of ldc's u1 constant-pool index. */
  cpRefs1: number[];
  /** Offsets of u4 attribute_length fields, at every level. */
  attrLengths: number[];
  codes: CodeLayout[];
  stackMaps: StackMapLayout[];
}

/** The layout of a valid class file; throws on anything it does not understand. */
export function classLayout(b: Uint8Array): ClassLayout {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 8;
  const u1 = () => b[p++]!;
  const u2 = () => {
    const v = dv.getUint16(p);
    p += 2;
    return v;
  };
  const u4 = () => {
    const v = dv.getUint32(p);
    p += 4;
    return v;
  };
  const ref = () => {
    L.cpRefs.push(p);
    return u2();
  };
  const L: ClassLayout = { cpCount: 0, cpRefs: [], cpRefs1: [], attrLengths: [], codes: [], stackMaps: [] };
  const cpCount = (L.cpCount = u2());
  const utf8: (string | null)[] = new Array<string | null>(cpCount).fill(null);
  for (let i = 1; i < cpCount; i++) {
    const tag = u1();
    switch (tag) {
      case 1: {
        const n = u2();
        utf8[i] = Buffer.from(b.subarray(p, p + n)).toString('latin1');
        p += n;
        break;
      }
      case 3: case 4: p += 4; break;
      case 5: case 6: p += 8; i++; break;
      case 7: case 8: case 16: case 19: case 20: ref(); break;
      case 9: case 10: case 11: case 12: ref(); ref(); break;
      case 15: p += 1; ref(); break;
      case 17: case 18: p += 2; ref(); break;
      default: throw new Error(`classLayout: constant pool tag ${tag} at ${p - 1}`);
    }
  }
  p += 2; // access_flags
  ref(); // this_class
  ref(); // super_class
  const ni = u2();
  for (let i = 0; i < ni; i++) ref();
  const attributes = (where: 'class' | 'member' | 'code') => {
    const n = u2();
    for (let i = 0; i < n; i++) {
      const name = utf8[ref()];
      L.attrLengths.push(p);
      const len = u4();
      const end = p + len;
      if (name === 'Code' && where === 'member') code(end);
      else if (name === 'StackMapTable' && where === 'code') stackMap(end);
      else if ((name === 'SourceFile' || name === 'Signature' || name === 'ConstantValue' || name === 'NestHost') && len === 2) ref();
      else if (name === 'Exceptions' || name === 'NestMembers' || name === 'PermittedSubclasses') {
        const k = u2();
        for (let j = 0; j < k; j++) ref();
      } else if (name === 'InnerClasses') {
        const k = u2();
        for (let j = 0; j < k; j++) (ref(), ref(), ref(), (p += 2));
      } else if (name === 'EnclosingMethod') (ref(), ref());
      else if (name === 'LocalVariableTable' || name === 'LocalVariableTypeTable') {
        const k = u2();
        for (let j = 0; j < k; j++) ((p += 4), ref(), ref(), (p += 2));
      } else if (name === 'BootstrapMethods') {
        const k = u2();
        for (let j = 0; j < k; j++) {
          ref();
          const a = u2();
          for (let q = 0; q < a; q++) ref();
        }
      }
      p = end;
    }
  };
  const code = (end: number) => {
    p += 4; // max_stack, max_locals
    const len = u4();
    const start = p;
    const instructions: number[] = [];
    let pc = 0;
    while (pc < len) {
      const at = start + pc;
      instructions.push(at);
      const op = b[at]!;
      const f = OPCODE_FORMATS[op]!;
      let n: number;
      switch (f) {
        case Fmt.NONE: case Fmt.VAR_IMPLICIT: n = 1; break;
        case Fmt.S1: case Fmt.ATYPE: case Fmt.VAR: n = 2; break;
        case Fmt.CP1: L.cpRefs1.push(at + 1); n = 2; break;
        case Fmt.S2: case Fmt.IINC: case Fmt.BRANCH: n = 3; break;
        case Fmt.CP2: L.cpRefs.push(at + 1); n = 3; break;
        case Fmt.MULTIANEWARRAY: L.cpRefs.push(at + 1); n = 4; break;
        case Fmt.INVOKEINTERFACE: case Fmt.INVOKEDYNAMIC: L.cpRefs.push(at + 1); n = 5; break;
        case Fmt.BRANCH_W: n = 5; break;
        case Fmt.WIDE: n = b[at + 1] === 0x84 ? 6 : 4; break;
        case Fmt.TABLESWITCH: {
          const q = start + ((pc + 4) & ~3);
          const lo = dv.getInt32(q + 4);
          const hi = dv.getInt32(q + 8);
          n = q - at + 12 + 4 * (hi - lo + 1);
          break;
        }
        case Fmt.LOOKUPSWITCH: {
          const q = start + ((pc + 4) & ~3);
          n = q - at + 8 + 8 * dv.getInt32(q + 4);
          break;
        }
        default: throw new Error(`classLayout: opcode ${op} at ${at}`);
      }
      pc += n;
    }
    p = start + len;
    L.codes.push({ code: { start, end: p }, instructions });
    const ne = u2();
    for (let i = 0; i < ne; i++) ((p += 6), ref());
    attributes('code');
    if (p !== end) throw new Error(`classLayout: Code ends at ${p}, not ${end}`);
  };
  const stackMap = (end: number) => {
    const s: StackMapLayout = { info: { start: p, end }, frameTypes: [], offsetDeltas: [], typeTags: [], typeOperands: [] };
    const vtype = () => {
      s.typeTags.push(p);
      const tag = u1();
      if (tag === 7 || tag === 8) {
        s.typeOperands.push(p);
        if (tag === 7) L.cpRefs.push(p);
        p += 2;
      }
    };
    const n = u2();
    for (let i = 0; i < n; i++) {
      s.frameTypes.push(p);
      const t = u1();
      if (t < 64) continue;
      if (t < 128) {
        vtype();
        continue;
      }
      if (t < 247) throw new Error(`classLayout: reserved frame type ${t}`);
      s.offsetDeltas.push(p);
      p += 2;
      if (t === 247) vtype();
      else if (t >= 252 && t <= 254) for (let k = 0; k < t - 251; k++) vtype();
      else if (t === 255) {
        for (let part = 0; part < 2; part++) {
          const k = u2();
          for (let j = 0; j < k; j++) vtype();
        }
      }
    }
    L.stackMaps.push(s);
    p = end;
  };
  for (let m = 0; m < 2; m++) {
    const n = u2();
    for (let i = 0; i < n; i++) {
      p += 2;
      ref();
      ref();
      attributes('member');
    }
  }
  attributes('class');
  if (p !== b.length) throw new Error(`classLayout: class ends at ${p}, not ${b.length}`);
  return L;
}

export const MUTATORS = ['bitflip', 'truncate', 'cpindex', 'attrlength', 'stackmap', 'opcode'] as const;
export type Mutator = (typeof MUTATORS)[number];

function put16(b: Uint8Array, at: number, v: number): void {
  b[at] = (v >>> 8) & 0xff;
  b[at + 1] = v & 0xff;
}
function put32(b: Uint8Array, at: number, v: number): void {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setUint32(at, v >>> 0);
}
function get32(b: Uint8Array, at: number): number {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at);
}

/**
 * A damaged copy of `orig`, and what was done to it; null when the class offers nothing to
 * damage this way (no StackMapTable, say).
 */
export function mutate(orig: Uint8Array, L: ClassLayout, kind: Mutator, rng: Rng): { bytes: Uint8Array; what: string } | null {
  const b = Uint8Array.from(orig);
  switch (kind) {
    case 'bitflip': {
      const n = rng.int(1, 5);
      const at: number[] = [];
      for (let i = 0; i < n; i++) {
        const byte = rng.int(0, b.length);
        const bit = rng.int(0, 8);
        b[byte]! ^= 1 << bit;
        at.push(byte * 8 + bit);
      }
      return { bytes: b, what: `bits ${at.join(',')}` };
    }
    case 'truncate': {
      const len = rng.next() < 0.2 ? rng.int(0, Math.min(64, b.length)) : rng.int(0, b.length);
      return { bytes: b.subarray(0, len), what: `length ${len} of ${b.length}` };
    }
    case 'cpindex': {
      const sites = L.cpRefs.length + L.cpRefs1.length;
      if (sites === 0) return null;
      const i = rng.int(0, sites);
      const r = rng.next();
      if (i < L.cpRefs.length) {
        const v = r < 0.6 ? rng.int(1, L.cpCount) : r < 0.75 ? 0 : rng.int(L.cpCount, 65536);
        put16(b, L.cpRefs[i]!, v);
        return { bytes: b, what: `u2 constant-pool index at ${L.cpRefs[i]} := ${v} (count ${L.cpCount})` };
      }
      const at = L.cpRefs1[i - L.cpRefs.length]!;
      const v = r < 0.8 ? rng.int(1, Math.min(256, L.cpCount)) : rng.int(0, 256);
      b[at] = v;
      return { bytes: b, what: `ldc index at ${at} := ${v}` };
    }
    case 'attrlength': {
      const sites = L.attrLengths;
      if (sites.length === 0) return null;
      const at = rng.pick(sites);
      const old = get32(b, at);
      const r = rng.next();
      let v: number;
      let how: string;
      if (r < 0.35 && sites.length > 1) {
        let other = rng.pick(sites);
        for (let k = 0; k < 10 && get32(b, other) === old; k++) other = rng.pick(sites);
        v = get32(b, other);
        put32(b, other, old);
        how = `swapped with the one at ${other}`;
      } else if (r < 0.8) {
        v = Math.max(0, old + rng.pick([-4, -2, -1, 1, 2, 3, 8, 100]));
        how = `${old} -> ${v}`;
      } else {
        v = rng.pick([0, 0xffffffff, 0x7fffffff, rng.int(0, 0x100000000)]);
        how = `${old} -> ${v}`;
      }
      put32(b, at, v);
      return { bytes: b, what: `attribute_length at ${at}: ${how}` };
    }
    case 'stackmap': {
      if (L.stackMaps.length === 0) return null;
      const s = rng.pick(L.stackMaps);
      const r = rng.next();
      if (r < 0.2 && s.frameTypes.length) {
        const at = rng.pick(s.frameTypes);
        b[at] = rng.int(0, 256);
        return { bytes: b, what: `StackMapTable frame_type at ${at} := ${b[at]}` };
      }
      if (r < 0.4 && s.offsetDeltas.length) {
        const at = rng.pick(s.offsetDeltas);
        const v = rng.next() < 0.5 ? rng.int(0, 64) : rng.int(0, 65536);
        put16(b, at, v);
        return { bytes: b, what: `StackMapTable offset_delta at ${at} := ${v}` };
      }
      if (r < 0.6 && s.typeTags.length) {
        const at = rng.pick(s.typeTags);
        b[at] = rng.int(0, rng.next() < 0.8 ? 9 : 256);
        return { bytes: b, what: `StackMapTable verification type tag at ${at} := ${b[at]}` };
      }
      if (r < 0.7 && s.typeOperands.length) {
        const at = rng.pick(s.typeOperands);
        const v = rng.int(0, 65536);
        put16(b, at, v);
        return { bytes: b, what: `StackMapTable type operand at ${at} := ${v}` };
      }
      if (r < 0.8 && s.info.end - s.info.start >= 2) {
        const v = rng.int(0, 65536);
        put16(b, s.info.start, v);
        return { bytes: b, what: `StackMapTable number_of_entries := ${v}` };
      }
      const n = rng.int(1, 4);
      const at: number[] = [];
      for (let i = 0; i < n; i++) {
        const k = rng.int(s.info.start, s.info.end);
        b[k] = rng.int(0, 256);
        at.push(k);
      }
      return { bytes: b, what: `StackMapTable bytes at ${at.join(',')}` };
    }
    case 'opcode': {
      const codes = L.codes.filter((c) => c.instructions.length > 0);
      if (codes.length === 0) return null;
      const c = rng.pick(codes);
      const at = rng.pick(c.instructions);
      const old = b[at]!;
      // Half valid opcodes (a different instruction, its operands now misread), half anything.
      let v = rng.int(0, 256);
      if (rng.next() < 0.5) while (OPCODE_FORMATS[v] === Fmt.INVALID || v === old) v = rng.int(0, 256);
      else if (v === old) v = (v + 1) & 0xff;
      b[at] = v;
      return { bytes: b, what: `opcode at ${at}: ${old} -> ${v}` };
    }
  }
}
