package komorium.runtime;

/**
 * A method identifier: one element of a reified call stack (seed 002, §3.1, Figure 1).
 *
 * <p>This is a marker interface. The instrumented program only ever stores instances of
 * {@link MIDImpl} into reified stacks (one per instrumented method, created by the class's static
 * initializer). A profiling agent may store its own implementations into the part of the stack
 * it was given, as {@link SamplingAgent} does with the nodes of its samples tree (§6.2), because
 * the program never reads the stack back.
 */
public interface MID {
}
