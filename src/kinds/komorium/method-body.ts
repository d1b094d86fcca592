/**
 * The Komorium rewrite of one method body (seed 002 §4.1, §4.2, §5.1, §5.2): push the method
 * identifier on entry, decrement the thread's bytecode counter at the start of every block
 * (piece) by its number of original instructions, test it where a check is placed, pass the
 * reified stack to extended callees, and publish it around call-outs. The parts: body/entry.ts
 * (the calling convention at entry and exit), body/counter.ts (counters and checks), body/calls.ts
 * (call sites); body/context.ts holds what they share, the locals of the convention among it.
 *
 * Frames are not recomputed: the inserted code is stack-neutral and touches only the new locals,
 * whose types never change, so every existing stack map frame stays true once the new locals are
 * added to it (edit/method-editor.ts shiftLocals), and a new branch target (after a check) has the
 * frame of the block it guards, found by straight-line simulation from the nearest preceding
 * frame. No class hierarchy is needed, and nothing is guessed.
 */
import type { ClassFile } from '../../classfile/classfile.js';
import type { MemberInfo } from '../../classfile/model.js';
import { ACC } from '../../classfile/model.js';
import { isLabel, type Frame, type Insn, type MethodCode } from '../../bytecode/ir.js';
import { isInvoke, isReturn } from '../../bytecode/opcodes.js';
import { extendDescriptor, extendedName } from './runtime-names.js';
import type { ProgramView } from './calls.js';
import { Body, type BodyOptions, type BodyStats, type Piece } from './body/context.js';
import { Counter, deferredCounters } from './body/counter.js';
import { CallSites, otherPackageConstructors } from './body/calls.js';
import { emitEntry, emitInPlaceExit } from './body/entry.js';

export { NotInstrumentable, type BodyOptions, type BodyStats, type Piece } from './body/context.js';

export function instrumentBody(
  cf: ClassFile,
  method: MemberInfo,
  code: MethodCode,
  pieces: Piece[],
  /** Frame before each original node, or null where unknown; null when the method needs no frames. */
  framesBefore: (Frame | null)[] | null,
  program: ProgramView,
  options: BodyOptions,
): BodyStats {
  // Decided on the code as read, before the locals move.
  const factories = otherPackageConstructors(cf, method, code, framesBefore, program);
  const nodes = code.nodes;
  const pieceAt = new Map<number, Piece>();
  for (const p of pieces) pieceAt.set(p.firstInsn, p);
  const deferred = deferredCounters(nodes, code.tryCatch, pieceAt);

  const b = new Body(cf, method, code, pieces, framesBefore, program, options);
  const counter = new Counter(b);
  const calls = new CallSites(b, counter, factories);
  emitEntry(b, counter);
  const replace = new Map([...factories.replace].map(([insn, make]) => [insn, make()]));
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (isLabel(n)) {
      b.out.push(n);
      counter.atLabel(n);
      calls.atLabel();
      continue;
    }
    counter.beforeInsn(i);
    const piece = deferred.moved.has(i) ? undefined : pieceAt.get(i);
    if (piece) counter.piece(piece, i);
    const late = deferred.to.get(i);
    if (late) counter.piece(late, i);
    counter.beforeExit(n);
    if (b.inPlace && isReturn(n.op)) emitInPlaceExit(b);
    if (isInvoke(n.op)) {
      calls.rewrite(n, i);
      continue;
    }
    const replaced = replace.get(n);
    if (replaced) b.out.push(...replaced);
    else b.out.push(n);
  }
  counter.finish();
  if (b.newFrames && factories.gone.size > 0) {
    // The uninitialized instances of the `new`s that factories replaced are no longer on the stack.
    for (const f of b.newFrames.values()) f.stack = f.stack.filter((v) => !factories.gone.has(v as Insn));
  }
  b.finish();
  return b.stats;
}

/** The extended member for `method`: synthetic, with the extra arguments, and no reflective attributes. */
export function extendedMember(cf: ClassFile, method: MemberInfo): MemberInfo {
  const desc = extendDescriptor(method.desc);
  const name = extendedName(method.name);
  // getConstructors() must not show extended constructors (Rhino, DI containers count them), so
  // those of public and protected constructors are protected: super(…) from a subclass in another
  // package still reaches them, and `new` there goes through a factory (RT.FACTORY_METHOD).
  let access = (method.access | ACC.SYNTHETIC) & ~(ACC.VARARGS | ACC.BRIDGE);
  if (method.name === '<init>' && (access & ACC.PUBLIC) !== 0) access = (access & ~ACC.PUBLIC) | ACC.PROTECTED;
  return cf.newMember(access, name, desc);
}
