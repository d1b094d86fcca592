/**
 * Companion interfaces: how a call through an interface reaches the callee's extended method.
 *
 * Lambdas, Proxy classes and other classes made at run time implement an interface with its
 * original methods only, so an interface call cannot simply call `m$komorium` (GUIDE §3). Each
 * instrumented interface I gets a synthetic companion `I$$komoriumCalls` that declares the
 * extended methods of I's instance methods, and every instrumented class whose instances provably
 * select an extended method for each of them implements it. A call site tests the receiver:
 *
 *     instanceof I$$komoriumCalls ? invokeinterface I$$komoriumCalls.m$komorium(args, tc, stack, sp)
 *                                 : <call-out> invokeinterface I.m(args)
 *
 * so the instrumented callee is entered directly, without the wrapper's TC lookup, and every other
 * receiver gets exactly the call it had. I itself is untouched: its reflection, its proxies and
 * its lambdas see no new method.
 */
import { ClassFile } from '../../classfile/classfile.js';
import { ACC } from '../../classfile/model.js';
import { MissingClassError } from '../../hierarchy/hierarchy.js';
import { minimalClassBytes } from '../../classfile/minimal.js';
import { RT, extendDescriptor, extendedName } from './runtime-names.js';
import { companionMethods, hasExtended, methodKey, overridable, planClass, type ClassPlan } from './plan.js';
import { packageOf, type ProgramView } from './calls.js';

export function companionName(iface: string): string {
  return iface + RT.COMPANION_SUFFIX;
}

/** The companion of interface `cf` (class access and version as the interface's), or null when it has none. */
export function buildCompanion(cf: ClassFile): { name: string; bytes: Uint8Array } | null {
  const methods = companionMethods(planClass(cf.thisClass, cf.access, cf.methods, true));
  if (methods.length === 0) return null;
  const name = companionName(cf.thisClass);
  const access = ACC.INTERFACE | ACC.ABSTRACT | ACC.SYNTHETIC | (cf.access & ACC.PUBLIC);
  const companion = ClassFile.parse(minimalClassBytes(name, 'java/lang/Object', cf.major, cf.minor, access), `${name}.class`);
  for (const m of methods) {
    const mName = extendedName(m.name);
    const desc = extendDescriptor(m.desc);
    companion.methods.push(companion.newMember(ACC.PUBLIC | ACC.ABSTRACT, mName, desc));
  }
  return { name, bytes: companion.toBytes() };
}

/**
 * The companions that class `name` implements: those of its instrumented superinterfaces for whose
 * every method virtual dispatch on this class selects a method with a safe extended version. An
 * abstract class that leaves one unimplemented gets none; its concrete subclasses get it. A class
 * outside a package-private interface's package never lists that companion itself.
 */
export function companionsOf(name: string, program: ProgramView): string[] {
  let interfaces: string[];
  try {
    interfaces = program.hierarchy.allInterfaces(name);
  } catch (e) {
    if (e instanceof MissingClassError) return [];
    throw e;
  }
  const out: string[] = [];
  for (const i of interfaces) {
    const plan = program.plans.get(i);
    if (!plan) continue;
    // A companion has its interface's access: a package-private one cannot be a superinterface of a
    // subclass in another package (IllegalAccessError at class loading). That subclass still gets
    // the companion from the superclass in the interface's package, which implements it.
    if ((plan.access & ACC.PUBLIC) === 0 && packageOf(i) !== packageOf(name)) continue;
    const methods = companionMethods(plan);
    if (methods.length > 0 && methods.every((m) => selectsExtended(name, m, program))) out.push(companionName(i));
  }
  return out.sort();
}

/**
 * Whether invoking `m` on an instance of class `name` selects a method whose extended version the
 * companion call may take: one declared by an instrumented class, with an extended version that
 * guards virtual dispatch (or cannot be overridden). An inherited default method is not enough:
 * its extended version does not check for an uninstrumented subclass that overrides it.
 */
function selectsExtended(name: string, m: { name: string; desc: string }, program: ProgramView): boolean {
  const r = program.hierarchy.resolveMethod(name, m.name, m.desc, false);
  if (!r.declaringClass) return false;
  const plan: ClassPlan | undefined = program.plans.get(r.declaringClass);
  const pm = plan?.methods.get(methodKey(m.name, m.desc));
  if (!plan || !pm || !plan.instrumented || plan.isInterface || !hasExtended(pm.kind)) return false;
  if ((pm.access & (ACC.STATIC | ACC.PRIVATE)) !== 0) return false;
  // Synchronized overridable methods have no dispatch guard (plan.ts dispatchChecked).
  return (pm.access & ACC.SYNCHRONIZED) === 0 || !overridable(plan.access, pm);
}
