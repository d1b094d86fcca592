/** The runtime members that instrumented code refers to: docs/runtime-contract.md, in JVMS form. */
export const RT = {
  TC: 'komorium/runtime/TC',
  MID: 'komorium/runtime/MID',
  TC_DESC: 'Lkomorium/runtime/TC;',
  /** The reified stack holds method identifiers as ints (no card mark, no array-store check). */
  STACK_DESC: '[I',
  MID_DESC: 'I',
  /** Appended to every extended method's argument list (seed 002 §4.1). */
  EXTRA_ARGS: 'Lkomorium/runtime/TC;[II',
  /** Verification types of the three extra arguments, in slot order. */
  EXTRA_VTYPES: ['Lkomorium/runtime/TC;', '[I', 'I'] as const,
  PACKAGE_PREFIX: 'komorium/runtime/',
  MID_FIELD_PREFIX: 'komorium$mid$',
  /** The class that holds the method identifiers of an interface, or of a class whose <clinit> has no room. */
  HOLDER_SUFFIX: '$$komorium',
  /** The companion interface of an instrumented interface (companion.ts): its methods, extended. */
  COMPANION_SUFFIX: '$$komoriumCalls',
  /**
   * `protected synthetic Class komorium$class()`, declared by every instrumented class: returns the
   * class itself (null where that cannot be trusted), so that an extended method can tell that the
   * receiver's class is instrumented (method-body.ts emitDispatchCheck).
   */
  CLASS_METHOD: 'komorium$class',
  CLASS_METHOD_DESC: '()Ljava/lang/Class;',
  /**
   * `public static synthetic C komorium$new(A TC int[] int)`: constructs a C through the extended
   * constructor of argument list A, which is package-private (extendedMember); `new C(…)` in
   * another package calls it (method-body.ts factoryCall).
   */
  FACTORY_METHOD: 'komorium$new',
  /**
   * `public static final synthetic int komorium$new`, constant 0: the factory call replaces
   * `new C; dup` by `getstatic C.komorium$new; pop`, which initializes C where `new` did, before
   * the arguments are evaluated (JLS 12.4.1).
   */
  FACTORY_INIT_FIELD: 'komorium$new',
} as const;

/** `(A)V` of a constructor of `owner` → `(A TC int[] int)Lowner;`, the descriptor of its factory. */
export function factoryDescriptor(owner: string, desc: string): string {
  const close = desc.lastIndexOf(')');
  return `${desc.slice(0, close)}${RT.EXTRA_ARGS})L${owner};`;
}

/** `m(A)R` → `m(A TC int[] int)R`. */
export function extendDescriptor(desc: string): string {
  const close = desc.lastIndexOf(')');
  return desc.slice(0, close) + RT.EXTRA_ARGS + desc.slice(close);
}

/**
 * Extended methods get their own name (constructors cannot): frameworks that look a method up by
 * name alone (Rhino's FunctionObject, many DI containers) must keep finding exactly one. The
 * suffix cannot collide with javac-generated names.
 */
export function extendedName(name: string): string {
  return name === '<init>' ? name : name + '$komorium';
}
