/**
 * Where the probes of the selected kinds go in one method, and the class's site table: every
 * place a kind records (a call, a field access, a method entry, ...) gets a number within its
 * class, and the runtime learns each site's method, bytecode index, line and named member from
 * one string registered in the class's static initializer (runtime Sites.forClass). Sites are
 * positions in the original code, so that every layout (and the exhaustive profile) names the
 * same sites.
 */
import type { ClassFile } from '../classfile/classfile.js';
import type { MemberInfo } from '../classfile/model.js';
import { ACC } from '../classfile/model.js';
import { isLabel, type Frame, type Insn, type MethodCode } from '../bytecode/ir.js';
import { simulateFrames } from '../analysis/frames.js';
import { OPCODE_NAMES, OP, isArrayAccess, isFieldInsn, isInvoke, isReturn } from '../bytecode/opcodes.js';
import type { ClassHierarchy } from '../hierarchy/hierarchy.js';
import type { BackEdge, Cfg } from '../analysis/cfg.js';
import { lastInsn } from '../analysis/cfg.js';
import type { EventKind, KindProbes } from './events.js';

/** One handler call of a probe. */
export interface ProbeCall {
  /** The site's number within its class. */
  site: number;
  owner: string;
  handler: string;
  /** Pass the call's receiver: a virtual or interface call whose callee depends on it. */
  receiver: boolean;
  /** The runtime class's static boolean that must be true for the call to run (EventRequest.guard). */
  guard?: string;
  /** Pass the object (and array index) the field or array instruction touches (events.ts `operands`); 'null' where the object may not be seen yet. */
  operands?: 'pass' | 'null';
}

/** The probes of one method, by position in its original code. */
export interface MethodProbes {
  entry: ProbeCall[];
  /** Before an instruction: calls, field and array accesses, returns. */
  before: Map<Insn, ProbeCall[]>;
  /** At the start of a block, by block index. */
  blocks: Map<number, ProbeCall[]>;
  /** When a backedge is taken. */
  backedges: Map<BackEdge, ProbeCall[]>;
  /** Number of probe calls, for reports. */
  count: number;
}

export function isEmpty(p: MethodProbes): boolean {
  return p.count === 0;
}

/** A row of the site table. */
interface SiteRow {
  method: number;
  bci: number;
  line: number;
  what: string;
  owner: string;
  name: string;
  desc: string;
}

/** The sites of one class, and the methods they are in, in the order they were added. */
export class SiteTable {
  readonly methods: { name: string; desc: string; line: number }[] = [];
  readonly rows: SiteRow[] = [];

  /** Registers a method; its sites refer to the returned index. */
  addMethod(name: string, desc: string, line: number): number {
    this.methods.push({ name, desc, line });
    return this.methods.length - 1;
  }

  add(row: SiteRow): number {
    this.rows.push(row);
    return this.rows.length - 1;
  }

  /** `name TAB descriptor TAB firstLine NEWLINE` per method, as MID.forClass reads it. */
  packedMethods(): string {
    return this.methods.map((m) => `${m.name}\t${m.desc}\t${m.line}\n`).join('');
  }

  /** `methodIndex TAB bci TAB line TAB what TAB owner TAB name TAB descriptor NEWLINE` per site, as Sites.forClass reads it. */
  packedSites(): string {
    return this.rows.map((r) => `${r.method}\t${r.bci}\t${r.line}\t${r.what}\t${r.owner}\t${r.name}\t${r.desc}\n`).join('');
  }
}

/** What finding the sites of a method needs. */
export interface SiteContext {
  cf: ClassFile;
  method: MemberInfo;
  /** The method's index in the class's registered method list. */
  methodIndex: number;
  code: MethodCode;
  cfg: Cfg;
  kinds: readonly KindProbes[];
  hierarchy: ClassHierarchy;
  table: SiteTable;
}

/** The probes the selected kinds want in one method, their sites added to the class's table. */
export function findProbes(ctx: SiteContext): MethodProbes {
  const { code, cfg, kinds } = ctx;
  const probes: MethodProbes = { entry: [], before: new Map(), blocks: new Map(), backedges: new Map(), count: 0 };
  const wanted = (e: EventKind) => kinds.some((k) => k.events.some((r) => r.event === e));
  const lines = lineOfEachInsn(code);
  const methodIndex = ctx.methodIndex;
  const site = (insn: Insn | null, what: string, owner = '', name = '', desc = ''): number => {
    const bci = insn === null ? 0 : (code.offsets?.get(insn) ?? -1);
    const line = insn === null ? firstLine(code) : (lines.get(insn) ?? -1);
    return ctx.table.add({ method: methodIndex, bci, line, what, owner, name, desc });
  };
  const callsFor = (e: EventKind, siteNo: number, receiver = false, operands: 'pass' | 'null' = 'pass'): ProbeCall[] => {
    const out: ProbeCall[] = [];
    for (const k of kinds) {
      for (const r of k.events) {
        if (r.event !== e || r.siteOnly) continue;
        const call: ProbeCall = { site: siteNo, owner: k.runtimeClass, handler: r.handler, receiver: receiver && r.receiver === true };
        if (r.guard !== undefined) call.guard = r.guard;
        if (r.operands === true && (e === 'field' || e === 'array')) call.operands = operands;
        out.push(call);
      }
    }
    probes.count += out.length;
    return out;
  };
  const at = (insn: Insn, calls: ProbeCall[]) => {
    if (calls.length === 0) return;
    const list = probes.before.get(insn);
    if (list) list.push(...calls);
    else probes.before.set(insn, calls);
  };

  if (wanted('entry')) probes.entry = callsFor('entry', site(null, 'entry'));
  const call = wanted('call');
  const field = wanted('field');
  const array = wanted('array');
  const exit = wanted('exit');
  const unseen = unseenReceivers(ctx);
  for (const [i, n] of code.nodes.entries()) {
    if (isLabel(n)) continue;
    if (call && isInvoke(n.op)) {
      const c = callSite(ctx, n);
      at(n, callsFor('call', site(n, OPCODE_NAMES[n.op]!, c.owner, c.name, c.desc), c.dispatch));
    } else if (field && isFieldInsn(n.op)) {
      const f = fieldSite(ctx, n);
      at(n, callsFor('field', site(n, OPCODE_NAMES[n.op]!, f.owner, f.name, f.desc), false, unseen(i, n) ? 'null' : 'pass'));
    } else if (array && isArrayAccess(n.op)) {
      at(n, callsFor('array', site(n, OPCODE_NAMES[n.op]!)));
    } else if (exit && isReturn(n.op)) {
      at(n, callsFor('exit', site(n, OPCODE_NAMES[n.op]!)));
    }
  }
  if (wanted('block')) {
    for (const b of cfg.blocks) {
      if (!cfg.reachable[b.index]) continue;
      probes.blocks.set(b.index, callsFor('block', site(code.nodes[b.firstInsn] as Insn, 'block')));
    }
  }
  if (wanted('backedge')) {
    for (const e of cfg.backEdges) {
      if (!e.branch && !e.fallthrough) continue;
      // A jsr's edge cannot pass through a probe: the old verifier would see a second
      // subroutine entering the first one's code. Cycles through subroutines go uncounted.
      const last = lastInsn(cfg, e.from);
      if (last.op === OP.JSR || last.op === OP.JSR_W) continue;
      probes.backedges.set(e, callsFor('backedge', site(last, 'backedge')));
    }
  }
  return probes;
}

/**
 * Whether the object of a putfield may still be uninitialized (`this` before a constructor's super
 * call, where javac stores outer-instance fields): no method may be passed it. Decided from the
 * frame before the instruction; where the frame is not known in a constructor, assumed so.
 */
function unseenReceivers(ctx: SiteContext): (index: number, insn: Insn) => boolean {
  if (ctx.method.name !== '<init>' || !ctx.kinds.some((k) => k.events.some((r) => r.event === 'field' && r.operands === true))) return () => false;
  let frames: (Frame | null)[] | null = null;
  return (index, insn) => {
    if (insn.op !== OP.PUTFIELD) return false;
    try {
      frames ??= simulateFrames(ctx.cf, ctx.method, ctx.code);
    } catch {
      return true;
    }
    const f = frames[index];
    if (!f || f.stack.length < 2) return true;
    return f.stack[f.stack.length - 2] === 'U';
  };
}

/**
 * What a call site names, resolved (JVMS 5.4.3.3/4) so that the static target is the declaring
 * method, and whether the callee depends on the receiver: a virtual or interface call of a method
 * that can be overridden. invokedynamic names its bootstrap method's class with the call site's
 * name and type.
 */
function callSite(ctx: SiteContext, insn: Insn): { owner: string; name: string; desc: string; dispatch: boolean } {
  const cp = ctx.cf.cp;
  if (insn.op === OP.INVOKEDYNAMIC) {
    const d = cp.dynamic(insn.cp!);
    let owner = '';
    try {
      owner = bootstrapOwner(ctx.cf, d.bsm);
    } catch {
      owner = '';
    }
    return { owner, name: d.name, desc: d.desc, dispatch: false };
  }
  const ref = cp.memberRef(insn.cp!);
  const isArray = ref.owner.startsWith('[');
  const r = ctx.hierarchy.resolveMethod(ref.owner, ref.name, ref.desc, ref.isInterface);
  const owner = r.declaringClass ?? (isArray ? 'java/lang/Object' : ref.owner);
  if (insn.op !== OP.INVOKEVIRTUAL && insn.op !== OP.INVOKEINTERFACE) return { owner, name: ref.name, desc: ref.desc, dispatch: false };
  if (isArray) return { owner, name: ref.name, desc: ref.desc, dispatch: false };
  let fixed = false;
  if (r.declaringClass !== null && 'access' in r) {
    const declaring = ctx.hierarchy.lookup(r.declaringClass);
    fixed = (r.access & (ACC.FINAL | ACC.PRIVATE | ACC.STATIC)) !== 0 || (declaring !== null && (declaring.access & ACC.FINAL) !== 0);
  }
  return { owner, name: ref.name, desc: ref.desc, dispatch: !fixed };
}

function bootstrapOwner(cf: ClassFile, bsm: number): string {
  const refs = bootstrapRefs(cf);
  const ref = refs[bsm];
  if (ref === undefined) return '';
  return cf.cp.methodHandle(ref).ref.owner;
}

const bootstrapCache = new WeakMap<ClassFile, number[]>();

/** The bootstrap_method_ref of each BootstrapMethods entry (JVMS 4.7.23). */
function bootstrapRefs(cf: ClassFile): number[] {
  let refs = bootstrapCache.get(cf);
  if (refs) return refs;
  refs = [];
  const a = cf.attributes.find((x) => x.name === 'BootstrapMethods');
  if (a && a.info.length >= 2) {
    const b = a.info;
    const n = (b[0]! << 8) | b[1]!;
    let p = 2;
    for (let i = 0; i < n && p + 4 <= b.length; i++) {
      refs.push((b[p]! << 8) | b[p + 1]!);
      const args = (b[p + 2]! << 8) | b[p + 3]!;
      p += 4 + 2 * args;
    }
  }
  bootstrapCache.set(cf, refs);
  return refs;
}

/** A field access names the field's declaring class where the hierarchy finds it. */
function fieldSite(ctx: SiteContext, insn: Insn): { owner: string; name: string; desc: string } {
  const ref = ctx.cf.cp.memberRef(insn.cp!);
  const owner = ctx.hierarchy.resolveField(ref.owner, ref.name, ref.desc) ?? ref.owner;
  return { owner, name: ref.name, desc: ref.desc };
}

/** The source line of every instruction, from the LineNumberTable. */
export function lineOfEachInsn(code: MethodCode): Map<Insn, number> {
  const lineAt = new Map<unknown, number>();
  for (const slot of code.attributes) {
    if (slot.kind === 'LineNumberTable') for (const e of slot.entries) lineAt.set(e.start, e.line);
  }
  const out = new Map<Insn, number>();
  let line = -1;
  for (const n of code.nodes) {
    if (isLabel(n)) {
      const l = lineAt.get(n);
      if (l !== undefined) line = l;
    } else out.set(n, line);
  }
  return out;
}

export function firstLine(code: MethodCode): number {
  let min = -1;
  for (const slot of code.attributes) {
    if (slot.kind !== 'LineNumberTable') continue;
    for (const e of slot.entries) if (min < 0 || e.line < min) min = e.line;
  }
  return min;
}
