/**
 * What becomes of each method of each class, decided for the whole input before any class is
 * rewritten: a call site in one class may only pass the extra arguments when the method it
 * resolves to (in another class) really gets an extended version.
 */
import { ACC } from '../classfile/model.js';
import { argSlots } from '../classfile/descriptor.js';

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
  /** False for classes matched by --exclude or otherwise left as they are. */
  instrumented: boolean;
  methods: Map<string, PlannedMethod>;
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
): ClassPlan {
  const map = new Map<string, PlannedMethod>();
  for (const m of methods) {
    map.set(methodKey(m.name, m.desc), { ...m, kind: kindOf(access, instrumented, m) });
  }
  return { name, isInterface: (access & ACC.INTERFACE) !== 0, instrumented, methods: map };
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
