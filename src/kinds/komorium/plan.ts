/**
 * What becomes of each method of each class, decided for the whole input before any class is
 * rewritten: a call site in one class may only pass the extra arguments when the method it
 * resolves to (in another class) really gets an extended version.
 */
import { ACC } from '../../classfile/model.js';
import { argSlots } from '../../classfile/descriptor.js';

export type MethodKind =
  /** Body moves into the extended method; the original signature becomes a wrapper (§4.3). */
  | 'body'
  /** Native: kept, plus an extended reverse wrapper that calls it (§4.3). */
  | 'native'
  /** Abstract in a class: kept, plus a concrete extended forwarder that calls it. */
  | 'forwarder'
  /** <clinit>, or too many argument slots for three more: instrumented in place, no extended version. */
  | 'in-place'
  /** No extended version: abstract interface methods, methods of classes left alone. */
  | 'none';

export interface PlannedMethod {
  name: string;
  desc: string;
  access: number;
  kind: MethodKind;
}

export interface ClassPlan {
  name: string;
  isInterface: boolean;
  /** The class's access flags (ACC_FINAL decides whether a subclass can override anything). */
  access: number;
  /** False for classes matched by --exclude or otherwise left as they are. */
  instrumented: boolean;
  methods: Map<string, PlannedMethod>;
  /**
   * A class of the instrumented JDK (instrument-jdk): the identifier of its first method with a body.
   * Its methods' identifiers are constants (MID.JDK_FIRST onwards, see jdkMidOrder), not fields
   * set in <clinit>: JDK classes are initialised before anything could register them.
   */
  midBase?: number;
}

/** The JVM allows 255 argument slots including `this` (JVMS 4.3.3). */
export const MAX_ARG_SLOTS = 255;

export function methodKey(name: string, desc: string): string {
  return name + desc;
}

export function kindOf(
  classAccess: number,
  classInstrumented: boolean,
  m: { name: string; desc: string; access: number },
): MethodKind {
  if (!classInstrumented) return 'none';
  const isInterface = (classAccess & ACC.INTERFACE) !== 0;
  if (m.name === '<clinit>') return 'in-place';
  if ((m.access & ACC.NATIVE) !== 0) return 'native';
  if ((m.access & ACC.ABSTRACT) !== 0) return isInterface ? 'none' : 'forwarder';
  const slots = argSlots(m.desc) + ((m.access & ACC.STATIC) !== 0 ? 0 : 1);
  if (slots + 3 > MAX_ARG_SLOTS) return 'in-place';
  return 'body';
}

export function planClass(
  name: string,
  access: number,
  methods: { name: string; desc: string; access: number }[],
  instrumented: boolean,
  /** Methods (methodKey) kept exactly as they are, with no extended version (the JDK's caller-sensitive ones). */
  leftAsIs?: readonly string[],
): ClassPlan {
  const map = new Map<string, PlannedMethod>();
  const keep = new Set(leftAsIs ?? []);
  for (const m of methods) {
    const key = methodKey(m.name, m.desc);
    map.set(key, { ...m, kind: keep.has(key) ? 'none' : kindOf(access, instrumented, m) });
  }
  return { name, isInterface: (access & ACC.INTERFACE) !== 0, access, instrumented, methods: map };
}

/** The methods of a JDK class that get identifiers, in order: the n-th is `midBase + n`. */
export function jdkMidOrder(plan: ClassPlan): PlannedMethod[] {
  return [...plan.methods.values()].filter((m) => m.kind === 'body' || m.kind === 'in-place');
}

export function hasExtended(kind: MethodKind): boolean {
  return kind === 'body' || kind === 'native' || kind === 'forwarder';
}

/**
 * Whether a call whose resolved method is `m` declared in `declaring` may call the extended
 * version. Abstract and default interface methods are excluded: lambdas and Proxy classes
 * implement only the original signature, so those calls keep it and the callee's wrapper
 * continues the caller's reified stack through TC.enter().
 */
export function callsExtended(declaring: ClassPlan, m: PlannedMethod): boolean {
  if (!declaring.instrumented || !hasExtended(m.kind)) return false;
  if (declaring.isInterface) {
    return (m.access & (ACC.STATIC | ACC.PRIVATE)) !== 0;
  }
  return true;
}

/**
 * The methods an instrumented interface offers through its companion interface (companion.ts):
 * its abstract methods that have room for the three extra arguments. Default methods are left
 * out: a class that inherits one has no extended version of it that guards virtual dispatch, and
 * would then not get the companion at all. Annotation types have none: their instances are JDK
 * proxies that only know the original methods.
 */
export function companionMethods(plan: ClassPlan): PlannedMethod[] {
  return [...plan.methods.values()].filter((m) => inCompanion(plan, m));
}

export function inCompanion(plan: ClassPlan, m: PlannedMethod): boolean {
  if (!plan.instrumented || !plan.isInterface || (plan.access & ACC.ANNOTATION) !== 0) return false;
  if (m.name === '<clinit>' || (m.access & (ACC.STATIC | ACC.PRIVATE)) !== 0) return false;
  if ((m.access & ACC.ABSTRACT) === 0) return false;
  return argSlots(m.desc) + 1 + 3 <= MAX_ARG_SLOTS;
}

/**
 * Whether constructor `m` of the class of `plan` has a factory (RT.FACTORY_METHOD): a public
 * constructor with an extended version, of a public class that can be instantiated. Only those
 * can be called with `new` from another package, where the extended constructor is out of reach.
 */
export function hasFactory(plan: ClassPlan, m: PlannedMethod): boolean {
  if (!plan.instrumented || (plan.access & (ACC.PUBLIC | ACC.ABSTRACT | ACC.INTERFACE)) !== ACC.PUBLIC) return false;
  return m.name === '<init>' && (m.access & ACC.PUBLIC) !== 0 && m.kind === 'body';
}

/**
 * Whether a class made or loaded at run time (a mock, a proxy, a subclass defined by a class loader
 * from bytes) can override `m` of a class with `classAccess`: an instance method, not private,
 * final or a constructor, of a class that is neither final nor an interface. Such a subclass only
 * overrides the original signature, never the extended one.
 */
export function overridable(classAccess: number, m: { name: string; access: number }): boolean {
  if ((classAccess & (ACC.INTERFACE | ACC.FINAL)) !== 0 || m.name === '<init>') return false;
  return (m.access & (ACC.STATIC | ACC.PRIVATE | ACC.FINAL)) === 0;
}

/**
 * Whether the extended method of `m` guards virtual dispatch (GUIDE §3: an extended method reached
 * by virtual dispatch must not skip an override of the original method in an uninstrumented
 * subclass). Instrumented code calls it with invokevirtual and a stack pointer sp >= 0 (a virtual
 * entry: the method first checks that the receiver's class is instrumented, see method-body.ts), or,
 * from its wrapper and from invokespecial (super.m()), with ~sp < 0 (a direct entry: no check).
 * Synchronized methods are not guarded: instrumented code calls them virtually with the original
 * signature (a call-out), so that no override ever runs inside their monitor.
 */
export function dispatchChecked(classAccess: number, m: { name: string; access: number; kind: MethodKind }): boolean {
  return (m.kind === 'body' || m.kind === 'native') && overridable(classAccess, m) && (m.access & ACC.SYNCHRONIZED) === 0;
}
