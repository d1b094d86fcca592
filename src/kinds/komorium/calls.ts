/**
 * Call sites (seed 002 §4.1, GUIDE §3 "Call sites"): a call passes the extra arguments only when
 * the method it resolves to is declared in an instrumented class that gives it an extended
 * version. That is decided from the class hierarchy (JVMS 5.4.3.3/5.4.3.4), never from names.
 * Every other call is a call-out: it may reach uninstrumented code that calls back into
 * instrumented code, so the caller's reified stack is published in TC.outStack/outSp first.
 */
import type { ClassHierarchy } from '../../hierarchy/hierarchy.js';
import { parseMethodDescriptor } from '../../classfile/descriptor.js';
import { OP } from '../../bytecode/opcodes.js';
import { ACC } from '../../classfile/model.js';
import { callsExtended, dispatchChecked, hasFactory, inCompanion, methodKey, overridable, type ClassPlan, type PlannedMethod } from './plan.js';

export type CallDecision =
  /** Call the extended method: same owner, name and invoke kind, descriptor with the extra arguments. */
  | 'extended'
  /** As 'extended', with ~sp: a non-virtual call (invokespecial) of a method that guards virtual dispatch. */
  | 'extended-direct'
  /** Keep the call and publish the reified stack around it. */
  | 'callout'
  /** Keep the call; the callee provably cannot call back into instrumented code. */
  | 'plain'
  /**
   * A constructor of an instrumented class in another package, whose extended version is not public
   * (extendedMember): method-body.ts looks at the receiver. `new C(…)` goes through C's factory
   * (RT.FACTORY_METHOD) when there is one and the site has the shape `new C; dup; …; invokespecial`;
   * `super(…)` of a public or protected constructor calls the protected extended one; anything
   * else is a call-out.
   */
  | 'other-package-init'
  /**
   * An instance method of an instrumented interface: a receiver that implements the interface's
   * companion (companion.ts) gets the extended call through it, any other one (a lambda, a proxy)
   * the original call as a call-out.
   */
  | 'companion';

export interface CallSite {
  op: number;
  owner: string;
  name: string;
  desc: string;
  isInterface: boolean;
  /** The class that contains the call. */
  caller: string;
}

export function packageOf(name: string): string {
  return name.slice(0, Math.max(0, name.lastIndexOf('/')));
}

export interface ProgramView {
  plans: Map<string, ClassPlan>;
  hierarchy: ClassHierarchy;
  /** Called when a decision needs a type that is not available; the call then keeps its signature. */
  missingType(site: CallSite, missing: string): void;
  /** Whether the class implements java.io.Serializable (false, with a warning, when undecidable). */
  isSerializable(name: string): boolean;
  /** The program is the JDK itself (instrument-jdk): its classes call each other's extended versions. */
  jdk?: boolean;
}

/** Classes of the JDK: they never extend or implement classes of the program (they cannot see them). */
export function isJdkClass(name: string): boolean {
  return (
    name.startsWith('java/') ||
    name.startsWith('javax/') ||
    name.startsWith('jdk/') ||
    name.startsWith('sun/') ||
    name.startsWith('com/sun/') ||
    name.startsWith('[')
  );
}

/** Final JDK classes whose methods never call code they were not given. */
const INERT_OWNERS = new Set([
  'java/lang/Math',
  'java/lang/StrictMath',
  'java/lang/String',
  'java/lang/StringBuilder',
  'java/lang/StringBuffer',
  'java/lang/Integer',
  'java/lang/Long',
  'java/lang/Short',
  'java/lang/Byte',
  'java/lang/Character',
  'java/lang/Boolean',
  'java/lang/Float',
  'java/lang/Double',
]);

const INERT_METHODS = new Set([
  'java/lang/System.arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V',
  'java/lang/System.nanoTime()J',
  'java/lang/System.currentTimeMillis()J',
  'java/lang/System.identityHashCode(Ljava/lang/Object;)I',
  'java/lang/String.equals(Ljava/lang/Object;)Z',
  'java/lang/Object.getClass()Ljava/lang/Class;',
]);

/** Argument types through which no user code can be reached. */
function isInertType(t: string): boolean {
  return t.length === 1 || t === 'Ljava/lang/String;' || (t.length === 2 && t[0] === '[');
}

function isInertCall(site: CallSite): boolean {
  if (INERT_METHODS.has(`${site.owner}.${site.name}${site.desc}`)) return true;
  if (!INERT_OWNERS.has(site.owner) || site.op === OP.INVOKEDYNAMIC) return false;
  return parseMethodDescriptor(site.desc).args.every(isInertType);
}

export function decideCall(site: CallSite, program: ProgramView): CallDecision {
  if (site.op === OP.INVOKEDYNAMIC) return 'callout';
  if (isJdkClass(site.owner) && !(program.jdk && program.plans.has(site.owner))) return isInertCall(site) ? 'plain' : 'callout';
  const key = methodKey(site.name, site.desc);
  const ownerPlan = program.plans.get(site.owner);
  // Resolution looks in the named class first, so a method declared there decides it.
  const declared = ownerPlan?.methods.get(key);
  if (ownerPlan && declared) {
    if (viaCompanion(site, ownerPlan, declared)) return 'companion';
    if (!callsExtended(ownerPlan, declared)) return 'callout';
    // Extended constructors are package-private (see extendedMember).
    if (site.name === '<init>' && packageOf(site.owner) !== packageOf(site.caller)) return 'other-package-init';
    return extendedKind(site, ownerPlan, declared);
  }
  if (site.name === '<init>') return 'callout';
  const resolved = program.hierarchy.resolveMethod(site.owner, site.name, site.desc, site.isInterface);
  if (resolved.missing) {
    program.missingType(site, resolved.missing);
    return 'callout';
  }
  if (!resolved.declaringClass) return 'callout';
  const plan = program.plans.get(resolved.declaringClass);
  const m = plan?.methods.get(key);
  if (plan && m && viaCompanion(site, plan, m)) return 'companion';
  return plan && m && callsExtended(plan, m) ? extendedKind(site, plan, m) : 'callout';
}

/** For a call decided 'other-package-init': whether `new` may use a factory, and `super(…)` the extended constructor. */
export function otherPackageInit(site: CallSite, program: ProgramView): { factory: boolean; inherited: boolean } {
  const plan = program.plans.get(site.owner)!;
  const m = plan.methods.get(methodKey(site.name, site.desc))!;
  return { factory: hasFactory(plan, m), inherited: (m.access & (ACC.PUBLIC | ACC.PROTECTED)) !== 0 };
}

/** Virtual and interface calls of a companion method; invokespecial (I.super.m()) stays a call-out. */
function viaCompanion(site: CallSite, declaring: ClassPlan, m: PlannedMethod): boolean {
  return (site.op === OP.INVOKEINTERFACE || site.op === OP.INVOKEVIRTUAL) && inCompanion(declaring, m);
}

/**
 * A call that may pass the extra arguments to `m` (declared in `declaring`). A virtual call of a
 * synchronized overridable method keeps the original signature (see dispatchChecked); an
 * invokespecial of a method that guards virtual dispatch is a direct entry.
 */
function extendedKind(site: CallSite, declaring: ClassPlan, m: PlannedMethod): CallDecision {
  if (site.op === OP.INVOKEVIRTUAL && (m.access & ACC.SYNCHRONIZED) !== 0 && overridable(declaring.access, m)) return 'callout';
  return site.op === OP.INVOKESPECIAL && dispatchChecked(declaring.access, m) ? 'extended-direct' : 'extended';
}
