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
import { dispatchChecked, planClass } from './plan.js';
import { buildCompanion } from './companion.js';
import { emptyReport, type ClassResult, type InstrumentOptions } from './class-transform.js';

export function stubClass(bytes: Uint8Array, entry: string, options: InstrumentOptions): ClassResult {
  const cf = ClassFile.parse(bytes, entry);
  const plan = planClass(cf.thisClass, cf.access, cf.methods, true);
  let forwarders = 0;
  for (const m of [...cf.methods]) {
    const kind = plan.methods.get(m.name + m.desc)!.kind;
    if (kind !== 'body' && kind !== 'native' && kind !== 'forwarder') continue;
    const ext = extendedMember(cf, m);
    ext.access &= ~(ACC.ABSTRACT | ACC.NATIVE);
    const mode = kind === 'forwarder' ? 'virtual' : dispatchChecked(cf.access, { ...m, kind }) ? 'dual' : 'special';
    ext.attributes = [writeCode(cf, ext, forwarderCode(cf, m, mode, options.callbacks))];
    cf.methods.push(ext);
    forwarders++;
  }
  // Call sites elsewhere test receivers against an interface's companion, which must exist.
  const companion = (cf.access & ACC.INTERFACE) !== 0 ? buildCompanion(cf) : null;
  return {
    bytes: cf.toBytes(),
    extra: companion ? [companion] : [],
    report: {
      ...emptyReport(cf.thisClass, cf.methods.length - forwarders),
      forwarders,
      leftAsIs: cf.methods
        .slice(0, cf.methods.length - forwarders)
        .filter((m) => ['body', 'in-place'].includes(plan.methods.get(m.name + m.desc)!.kind))
        .map((m) => ({ method: m.name + m.desc, reason: 'the class could not be rewritten' })),
    },
  };
}
