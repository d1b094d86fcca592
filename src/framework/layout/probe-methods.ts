/**
 * Probes moved into methods of their own: the probe at a point without operands (a method entry,
 * a block start, a backedge) becomes `invokestatic komorium$p<site>()V`, 3 bytes instead of 8 to
 * 10 per handler call, and the synthetic private method holds the probe's code. For a method whose
 * exhaustive probes would push it past HotSpot's HugeMethodLimit, which plain `java` never
 * compiles: Rhino's Interpreter.interpretLoop, 6,791 bytes with 388 blocks, stays under 8,000 with
 * subpaths' block probes only so. The JIT inlines each probe method (a few bytes), so compiled
 * code is as without them; the interpreter pays one more call per probe.
 */
import type { ClassFile } from '../../classfile/classfile.js';
import { ACC, type MemberInfo } from '../../classfile/model.js';
import type { Insn, MethodCode, Node } from '../../bytecode/ir.js';
import { OP } from '../../bytecode/opcodes.js';
import { invoke, op } from '../../bytecode/emit.js';
import { writeCode } from '../../bytecode/code-writer.js';
import type { ProbeCall } from '../sites.js';
import { probeCode, type SiteBase } from '../probes.js';

export const PROBE_METHOD_PREFIX = 'komorium$p';

export class ProbeMethods {
  /** The methods made so far, to add to the class when the layout that asked for them is kept. */
  readonly made: MemberInfo[] = [];

  constructor(
    private readonly cf: ClassFile,
    private readonly base: SiteBase,
  ) {}

  /** Interfaces keep their probes in line (a private interface method needs class file version 53). */
  static for(cf: ClassFile, base: SiteBase): ProbeMethods | null {
    return (cf.access & ACC.INTERFACE) !== 0 ? null : new ProbeMethods(cf, base);
  }

  /**
   * The call of a method that runs `calls` at a point without operands, or null when some call
   * needs more than its site (a receiver, operands or a guard: those stay in line).
   */
  call(calls: readonly ProbeCall[]): Insn | null {
    if (calls.length === 0 || calls.some((c) => c.receiver || c.operands || c.guard !== undefined)) return null;
    const cp = this.cf.cp;
    const name = `${PROBE_METHOD_PREFIX}${calls[0]!.site}`;
    const m = this.cf.newMember(ACC.PRIVATE | ACC.STATIC | ACC.SYNTHETIC, name, '()V');
    const nodes: Node[] = [...probeCode(cp, this.base, calls, null, 0), op(OP.RETURN)];
    const code: MethodCode = { maxStack: 0, maxLocals: 0, nodes, tryCatch: [], attributes: [], frames: null, frameKinds: new Map() };
    m.attributes = [writeCode(this.cf, m, code)];
    this.made.push(m);
    return invoke(cp, OP.INVOKESTATIC, this.cf.thisClass, name, '()V');
  }
}
