/**
 * What a profile kind built on the framework asks for: the events it records and the static
 * methods of its runtime class that record them. The framework decides where the probes go and
 * how the code is laid out (layouts/); a kind never sees an instruction list.
 */

export type EventKind =
  /** The method starts (once per call). */
  | 'entry'
  /** The method returns normally (before each return instruction). */
  | 'exit'
  /** A backedge is taken: a loop iterates. */
  | 'backedge'
  /** A call site runs its invoke instruction. */
  | 'call'
  /** getfield, putfield, getstatic or putstatic runs. */
  | 'field'
  /** An array element load or store runs. */
  | 'array'
  /** A basic block starts (calls do not end a block). */
  | 'block';

export const EVENT_KINDS: readonly EventKind[] = ['entry', 'exit', 'backedge', 'call', 'field', 'array', 'block'];

/**
 * One event of one kind: the probe calls `handler` of the kind's runtime class with the site's
 * number, as `static void handler(int site)`, or, with `receiver`, for a virtual or interface
 * call, as `static void handler(Object receiver, int site)` so that the runtime can tell which
 * method the call really runs (calls whose callee the instruction fixes still use `(int)`).
 */
export interface EventRequest {
  event: EventKind;
  handler: string;
  receiver?: boolean;
  /**
   * A static boolean field of the kind's runtime class that the probe tests inline (getstatic,
   * ifeq) before it pushes anything and calls the handler: while the field is false the probe
   * costs one load and a branch. For kinds that decide themselves when to record (`sampling: 'own'`).
   */
  guard?: string;
  /** Number the event's sites but place no code: the kind finds them at run time (from the stack). */
  siteOnly?: boolean;
  /**
   * For `field` and `array`: also pass what the instruction touches, as
   * `static void handler(Object object, int site)` (null for a static field, and for a field of
   * `this` set before the constructor's super call, which no method may see) or, for an array,
   * `static void handler(Object array, int index, int site)`.
   */
  operands?: boolean;
}

/** The instrumentation side of a profile kind. */
export interface KindProbes {
  /** The kind's name, as `--profile` takes it and as its profile section is named. */
  readonly name: string;
  /** Internal name of its runtime class (in package komorium/runtime). */
  readonly runtimeClass: string;
  readonly events: readonly EventRequest[];
  /**
   * Who decides when the probes record. 'framework' (the default): they run in the code that the
   * framework's checks select (the layouts of seed 000). 'own': the kind samples in its runtime
   * (seed 004's trigger and stride, seed 003's skip counter), so its probes run at every event and
   * its classes are laid out exhaustively, the only layout it takes (layout/context.ts layoutFor).
   */
  readonly sampling?: 'framework' | 'own';
}
