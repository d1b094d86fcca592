/**
 * The fallback for a class the transform cannot rewrite: its code stays exactly as it was, and
 * every method that the plan gives an extended version gets a stand-in forwarding to the original,
 * so that call sites in other classes, rewritten against the plan, still link.
 */
import { ClassFile } from '../../classfile/classfile.js';
import { ACC } from '../../classfile/model.js';
import { writeCode } from '../../bytecode/code-writer.js';
import { extendedMember } from './method-body.js';
import { addFactories, forwarderCode } from './members.js';
import { dispatchChecked, planClass } from './plan.js';
import { buildCompanion } from './companion.js';
import { emptyReport, type ClassResult, type InstrumentOptions } from './class-transform.js';

export function stubClass(bytes: Uint8Array, entry: string, options: InstrumentOptions): ClassResult {
  const cf = ClassFile.parse(bytes, entry);
  const plan = planClass(cf.thisClass, cf.access, cf.methods, true);
  const original = [...cf.methods];
  let forwarders = 0;
  for (const m of original) {
    const kind = plan.methods.get(m.name + m.desc)!.kind;
    if (kind !== 'body' && kind !== 'native' && kind !== 'forwarder') continue;
    const ext = extendedMember(cf, m);
    ext.access &= ~(ACC.ABSTRACT | ACC.NATIVE);
    const mode = kind === 'forwarder' ? 'virtual' : dispatchChecked(cf.access, { ...m, kind }) ? 'dual' : 'special';
    ext.attributes = [writeCode(cf, ext, forwarderCode(cf, m, mode, options.callbacks))];
    cf.methods.push(ext);
    forwarders++;
  }
  addFactories(cf, plan);
  // Call sites elsewhere test receivers against an interface's companion, which must exist.
  const companion = (cf.access & ACC.INTERFACE) !== 0 ? buildCompanion(cf) : null;
  return {
    bytes: cf.toBytes(),
    extra: companion ? [companion] : [],
    report: {
      ...emptyReport(cf.thisClass, original.length),
      forwarders,
      leftAsIs: original
        .filter((m) => ['body', 'in-place'].includes(plan.methods.get(m.name + m.desc)!.kind))
        .map((m) => ({ method: m.name + m.desc, reason: 'the class could not be rewritten' })),
    },
  };
}
