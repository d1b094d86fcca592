package komorium.runtime;

/**
 * A profiling agent: the API for writing your own profiler in pure Java (seed 002, §3.3,
 * Figure 3).
 *
 * <p>An instrumented program counts the bytecodes each thread executes. Every thread calls its
 * agent periodically: after about <em>granularity</em> bytecodes it hands the agent a sample of
 * its reified call stack together with the number of bytecodes executed since its previous call.
 * The granularity is chosen by the agent itself, per thread and per call, through the return
 * values of both methods.
 *
 * <h2>Installing an agent</h2>
 * Put the class on the class path of the instrumented program and run it with
 * {@code -Dkomorium.agent=com.example.MyAgent} (see {@link Config}). The class needs a public
 * no-argument constructor. It is loaded through the context class loader of the thread that first
 * runs instrumented code (then the system class loader). If it also implements
 * {@link AgentLifecycle}, its {@link AgentLifecycle#shutdown(long)} is called once at exit; that
 * is where an agent writes its results. The agent's own classes should not be instrumented; if
 * they are, their bytecodes are neither counted nor sampled while the agent runs.
 *
 * <h2>Threading</h2>
 * <ul>
 * <li>Both methods are called <em>by the profiled threads themselves</em>, synchronously, in the
 * middle of the program's code: {@code register(t)} is called by {@code t}, and
 * {@code processSample} by the thread the sample belongs to. So they are called concurrently by
 * all threads of the program. Shared state needs synchronization; per-thread state may live in a
 * {@code ThreadLocal} set up in {@code register}.</li>
 * <li>Whatever an agent method costs, the program pays on that thread. Keep
 * {@code processSample} short; do I/O at shutdown, not per sample.</li>
 * <li>While an agent method runs, further samples of the same thread are suppressed: if the agent
 * calls instrumented code, that code does not call the agent again and its bytecodes are not
 * counted.</li>
 * <li>An agent must not block forever and must not call {@code System.exit}.</li>
 * </ul>
 *
 * <h2>Failures</h2>
 * If either method throws, or returns a granularity {@code <= 0}, the runtime reports it once on
 * standard error, disables the agent for all threads (they stop sampling) and the program goes
 * on undisturbed. The exception is a {@link StackOverflowError} in {@code processSample} (a sample
 * taken in very deep recursion): that sample is dropped, its bytecodes are carried to the next
 * one, and the agent stays enabled, so an agent should leave its data consistent at every point
 * where a nested call could overflow.
 */
public interface SamplingProfiler {

    /**
     * Registers a new thread.
     *
     * <p>Called once per thread, by that thread, the first time it runs instrumented code and
     * before its first {@link #processSample}. Threads that never run instrumented code are never
     * registered. The agent may allocate per-thread data here.
     *
     * @param t the thread being registered; always {@code Thread.currentThread()}
     * @return the thread's first sampling granularity: the approximate number of bytecodes it
     *         executes before it calls {@link #processSample} for the first time; must be
     *         {@code > 0} ({@code Integer.MAX_VALUE} means "practically never")
     */
    int register(Thread t);

    /**
     * Processes one sample of the calling thread's reified call stack.
     *
     * <p>{@code stack[i]} for {@code 0 <= i < sp} is the i-th frame, as a method identifier
     * ({@link MID#get}{@code (stack[i])} names the method): {@code stack[0]} is the outermost
     * instrumented frame the runtime knows of, {@code stack[sp - 1]} the method that is executing
     * now. Frames of uninstrumented code (the JDK, native methods) do not appear: when such code
     * calls back into instrumented code, the callback continues the caller's stack when the
     * runtime can tell who called out, or starts a fresh one. When the real stack is deeper than
     * the array, the array is full ({@code sp == stack.length}), {@code stack[sp - 1]} is the
     * innermost method and {@code stack[sp - 2]} is {@link MID#TRUNCATED}. {@code sp} may be 0 (no
     * known frame).
     *
     * <p>The array belongs to the calling thread and is reused for its next frames as soon as this
     * method returns: do not keep a reference to it, copy what you need. The program only ever
     * writes identifiers ({@code >= 0}) to it, so an agent may replace entries below {@code sp}
     * with negative numbers of its own (e.g. a cache of the path it already resolved, as
     * {@link SamplingAgent} does); entries that the program later overwrites simply belong to newer
     * frames.
     *
     * @param stack     the calling thread's reified stack; valid from 0 to {@code sp - 1}
     * @param sp        the stack pointer: number of valid entries, {@code 0 <= sp <= stack.length}
     * @param bytecodes the approximate number of bytecodes the calling thread executed since its
     *                  previous call (or its registration). Approximate because a basic block is
     *                  counted as a whole when it starts, even if an exception cuts it short, and
     *                  because checks happen only at some block boundaries. With granularities near
     *                  {@code Integer.MAX_VALUE} it can overflow to a negative {@code int}; read it as
     *                  unsigned ({@code Integer.toUnsignedLong(bytecodes)}). The bytecodes executed
     *                  after a thread's last call are given to {@link AgentLifecycle#shutdown(long)}.
     * @return the calling thread's next granularity: the approximate number of bytecodes before it
     *         calls this method again; must be {@code > 0}. Returning a varying value (e.g. a
     *         constant plus a small random number, §7.1) avoids sampling in lock-step with loops.
     */
    int processSample(int[] stack, int sp, int bytecodes);
}
