package komorium.runtime;

/**
 * What keeps a probe's handler out of the compiled code of the method that calls it. HotSpot's C2
 * inlines a callee of at most FreqInlineSize (325) bytes of bytecode at a call site it counts as
 * hot, and gives application classes no inlining hint; a handler that must stay a call is made
 * longer than that by a block under {@link #NEVER}, which javac keeps and C2, to which a static
 * final is a constant, drops. The handlers of call-edges and field-access are such: inlined with
 * their ThreadLocal lookup and hash table into every probe that ran while its method was profiled,
 * they took C2's inlining budget from the program's own callees (BENCHMARKS-framework.md); so are
 * Cbs.reached and Burst.take, the slow paths of the cbs and bursty-tracing checks. The padding
 * block is written out in each of them, since it is its own bytecode that must be long: a call of
 * a shared piece would be three bytes.
 */
final class OutOfLine {
    /** False, but not a constant to javac: the block it guards is bytecode that never runs. */
    static final boolean NEVER = OutOfLine.class.getName().isEmpty();

    /** Never written (NEVER is false). */
    static int[] padding;

    private OutOfLine() {
    }
}
