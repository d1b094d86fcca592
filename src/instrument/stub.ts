/**
 * The fallback for a class the transform cannot rewrite: its code stays exactly as it was, and
 * every method that the plan gives an extended version gets a stand-in forwarding to the original,
 * so that call sites in other classes, rewritten against the plan, still link.
 */
import { ClassFile } from '../classfile/classfile.js';
import { ACC } from '../classfile/model.js';
import { writeCode } from '../bytecode/code-writer.js';
import { extendedMember } from './method-body.js';
import { forwarderCode } from './members.js';
import { planClass } from './plan.js';
import type { ClassResult, InstrumentOptions } from './class-transform.js';

export function stubClass(bytes: Uint8Array, entry: string, options: InstrumentOptions): ClassResult {
  const cf = ClassFile.parse(bytes, entry);
  const plan = planClass(cf.thisClass, cf.access, cf.methods, true);
  let forwarders = 0;
  for (const m of [...cf.methods]) {
    const kind = plan.methods.get(m.name + m.desc)!.kind;
    if (kind !== 'body' && kind !== 'native' && kind !== 'forwarder') continue;
    const ext = extendedMember(cf, m);
    ext.access &= ~(ACC.ABSTRACT | ACC.NATIVE);
    ext.attributes = [writeCode(cf, ext, forwarderCode(cf, m, kind === 'forwarder', options.callbacks))];
    cf.methods.push(ext);
    forwarders++;
  }
  return {
    bytes: cf.toBytes(),
    extra: [],
    report: {
      className: cf.thisClass,
      methods: cf.methods.length - forwarders,
      instrumented: 0,
      wrappers: 0,
      reverseWrappers: 0,
      forwarders,
      blocks: 0,
      counters: 0,
      checks: 0,
      checksDropped: 0,
      leaf: 0,
      extendedCalls: 0,
      callouts: 0,
      overJitLimit: [],
      leftAsIs: cf.methods
        .slice(0, cf.methods.length - forwarders)
        .filter((m) => ['body', 'in-place'].includes(plan.methods.get(m.name + m.desc)!.kind))
        .map((m) => ({ method: m.name + m.desc, reason: 'the class could not be rewritten' })),
    },
  };
}
