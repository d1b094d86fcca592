package komorium.runtime;

/**
 * The thread context (seed 002, §3.2, Figures 2 and 5): one per thread, passed by the
 * instrumented code as an extra argument to every instrumented method, together with the reified
 * stack and the stack pointer.
 *
 * <p>The members are the contract with the bytecode transform (docs/runtime-contract.md); the
 * transform inlines the counter update and the granularity check, so the only calls on the fast
 * path are {@link #push} and, once per granularity, {@link #triggerSampling}. None of this class
 * is instrumented, so the runtime's own bytecodes are never counted.
 */
public final class TC {
    /*
     * Starting (issue 26). With an instrumented JDK (komorium-ts instrument-jdk), java.base itself
     * calls jdkTC() from its wrappers, from the first bytecodes the VM runs: this class may then be
     * initialised in the middle of VM start-up (inside String's or System's initialisation), before
     * system properties, the class path or even ThreadLocal's own initialisation are ready. So its
     * static initializer touches nothing but the three fields below, in this order, and the agent is
     * started later, by the first getTC() of application code ({@link #start}); until then, and
     * while it starts, every JDK entry gets the shared, muted context {@link #MUTED} and counts
     * nothing. getTC() is only ever called by application code, which runs after the VM booted.
     */
    private static final int NEW = 0;
    private static final int STARTING = 1;
    private static final int READY = 2;

    /**
     * The context of JDK code that runs before counting starts, shared by all threads: its counts
     * are dropped, it never samples, and {@link #enter} gives it a small private stack every time
     * (threads share it, so it keeps no stack of its own). First: the JDK code the other
     * initializers run re-enters {@link #jdkTC} while this class is still being initialised.
     */
    private static final TC MUTED = new TC(null, 0);

    /**
     * Associates each thread with its context (ThreadLocal is never instrumented: README,
     * "Counting the JDK's bytecodes"). Made by {@link #start}, not here: ThreadLocal's initializer
     * initialises AtomicInteger and Unsafe, and when String's initializer is what loads this class,
     * that comes before the VM has set Unsafe's constants (its address size read as 0, every
     * allocateMemory then returned address 0: a crash in VM start-up).
     */
    private static ThreadLocal<TC> CURRENT;

    /** Held while the agent starts; the starting thread may re-enter. */
    private static final Object START_LOCK = new Object();
    private static volatile int state = NEW;

    /** Set by {@link #start}, before any context but {@link #MUTED} exists. */
    private static int stackSize;
    private static int maxStacks;

    /** Every context created so far, for the exit flush of pending bytecodes (§7.2). */
    private static final Object REGISTRY = new Object();
    private static TC[] live = new TC[16];
    private static int liveCount;
    /** Pending bytecodes of finished threads whose contexts were dropped from {@link #live}. */
    private static long retiredPending;
    /** Registration index of the next context: 0 for the first thread that runs instrumented code. */
    private static int nextIndex;

    /** The agent being called; null for {@code none}, while loading, and after it failed. */
    private static volatile SamplingProfiler profiler;

    /**
     * Starts the agent, once: called by the first getTC() of application code. Other threads wait
     * until it has started; the starting thread itself goes on (an instrumented agent class calls
     * getTC() while it is constructed), with the agent still null, and is registered afterwards.
     */
    private static void start() {
        synchronized (START_LOCK) {
            if (state != NEW) {
                return;
            }
            CURRENT = new ThreadLocal<TC>();
            state = STARTING;
            stackSize = Config.stackSize();
            maxStacks = Config.maxStacks();
            // The JDK's method table (MID), read while JDK code is still muted.
            MID.count();
            SamplingProfiler p = Lifecycle.start();
            profiler = p;
            state = READY;
            TC early = CURRENT.get();
            if (early != null && p != null) {
                // This thread ran instrumented agent code before the agent existed: register it now.
                early.register();
            }
        }
    }

    /** Whether this runtime was loaded from a patched java.base (the instrumented JDK), not from the application's jar. */
    static boolean inJavaBase() {
        return TC.class.getClassLoader() == null;
    }

    /**
     * Bytecode counter: counts down from the granularity, and the instrumented code calls
     * {@link #triggerSampling} when it reaches 0 or less (§4.2). Public so the transform can
     * update it inline.
     */
    public int instrCounter;

    /** The granularity the counter started from: {@code gran - instrCounter} bytecodes ran since. */
    int gran;

    /**
     * Set by instrumented code before it calls code that may call back into instrumented code
     * (the JDK, uninstrumented jars, interface and invokedynamic calls): {@code outStack = stack;
     * outSp = sp}, and {@code outSp = -1} after the call returns. {@link #enter} continues this
     * stack so that callbacks keep the caller's calling context.
     */
    public int[] outStack;

    /** See {@link #outStack}; -1 when no call-out is in progress. */
    public int outSp = -1;

    /** The stack pointer to start at, set by {@link #enter}: 0 on a fresh stack. */
    public int enterSp;

    /** Pool of reified stacks (§3.2), used as a stack. */
    private final int[][] pool;
    private int pooled;

    final Thread thread;

    /** This thread's registration index, and whether {@code komorium.threads} selects it (see {@link Config}). */
    int index;
    boolean recorded = true;

    /** The name the built-in agents last saw this thread under, and its number in their thread table. */
    String threadName;
    int threadId = -1;

    /** The built-in agent's call lines of this thread ({@link CallPath}), and that agent. */
    CallPath callPath;
    Object callPathOwner;

    /** True while this thread runs agent code: nested triggers must not call the agent again. */
    private boolean inAgent;

    /**
     * Greater than 0 while the runtime itself runs on this thread (writing a profile, a dump):
     * the JDK code it calls counts nothing and never samples ({@link #mute}). {@link #MUTED} and
     * the contexts of the runtime's own threads stay muted for good.
     */
    private int muted;
    /** The counter when this thread was muted, restored when it is unmuted. */
    private int mutedCounter;
    private int[] mutedOutStack;
    private int mutedOutSp;

    private TC(Thread thread, int poolSize) {
        this.thread = thread;
        this.pool = new int[poolSize][];
        this.instrCounter = this.gran = this.mutedCounter = Integer.MAX_VALUE;
        if (thread == null) {
            muted = 1;
        }
    }

    /**
     * Returns the context of the current thread, creating and registering it on first use. Called
     * by application code only: its first call starts the agent.
     */
    public static TC getTC() {
        if (state != READY) {
            start();
        }
        TC tc = CURRENT.get();
        return tc != null ? tc : create();
    }

    /**
     * getTC() for the instrumented JDK's wrappers and methods instrumented in place: the muted
     * context until the application's first getTC() has started the agent, so that JDK code the
     * VM runs before that (start-up, class loading, the agent's own start) counts nothing.
     */
    public static TC jdkTC() {
        if (state != READY) {
            TC m = MUTED;
            // Null only while this class's first initializer runs.
            return m != null ? m : new TC(null, 0);
        }
        TC tc = CURRENT.get();
        return tc != null ? tc : create();
    }

    private static TC create() {
        TC tc = new TC(Thread.currentThread(), maxStacks);
        // Set before registering: agent code run by register() (and JDK code that enlisting
        // runs) then finds this context.
        CURRENT.set(tc);
        tc.muted = 1;
        boolean system = systemThread(tc.thread);
        if (system) {
            // The VM's own threads (Reference Handler, Finalizer, Common-Cleaner, Signal
            // Dispatcher) run JDK code when the garbage collector says so: counting them would make
            // profiles differ from run to run. Their context stays muted and unregistered.
            return tc;
        }
        tc.muted = 0;
        enlist(tc);
        tc.register();
        return tc;
    }

    /** A thread of the "system" thread group (the root group), which application threads never are. */
    private static boolean systemThread(Thread t) {
        ThreadGroup g = t.getThreadGroup();
        return g != null && g.getParent() == null && inJavaBase();
    }

    /**
     * Mutes the current thread while the runtime runs on it (writing a profile, a dump): the JDK
     * code it calls counts nothing, never samples, and does not continue the program's reified
     * stack. A thread without a context (one of the runtime's own) gets a muted one that is never
     * registered. Pair with {@link #unmute} in a finally block. Does nothing before the agent
     * started: the JDK is muted then anyway.
     */
    static void mute() {
        if (state != READY) {
            return;
        }
        TC tc = CURRENT.get();
        if (tc == null) {
            tc = new TC(Thread.currentThread(), maxStacks);
            tc.muted = 1;
            CURRENT.set(tc);
        }
        if (tc.muted++ == 0) {
            tc.mutedCounter = tc.instrCounter;
            tc.mutedOutStack = tc.outStack;
            tc.mutedOutSp = tc.outSp;
            tc.instrCounter = Integer.MAX_VALUE;
            tc.outSp = -1;
        }
    }

    /** Ends a {@link #mute}: what the runtime counted meanwhile is dropped. */
    static void unmute() {
        if (state != READY) {
            return;
        }
        TC tc = CURRENT.get();
        if (tc == null || tc.muted == 0) {
            return;
        }
        if (--tc.muted == 0) {
            tc.instrCounter = tc.mutedCounter;
            tc.outStack = tc.mutedOutStack;
            tc.outSp = tc.mutedOutSp;
            tc.mutedOutStack = null;
        }
    }

    /** Figure 2's initialize(): asks the agent for the first granularity of this thread. */
    private void register() {
        instrCounter = gran = Integer.MAX_VALUE;
        SamplingProfiler p = profiler;
        if (p == null || !recorded) {
            return;
        }
        int first = callAgent(p, null, 0, 0, -1);
        if (agentFailure == null && first > 0) {
            instrCounter = gran = first;
        } else {
            disable(p, "register", agentFailure, first);
        }
    }

    /** What the last {@link #callAgent} threw, or null. */
    private Throwable agentFailure;

    /**
     * Calls {@code p.register(thread)} ({@code stack == null}) or {@code p.processSample}, marked as
     * inside the agent: instrumented code the agent calls must not continue the program's stack (the
     * agent is reading it), so it takes fresh stacks from the pool, and it never samples. Returns what
     * the agent returned, or 0 with {@link #agentFailure} set when it threw. The built-in agents are
     * also given where the block that ran is (its line's distance from the method's first line) and
     * this context (for the thread's name).
     */
    private int callAgent(SamplingProfiler p, int[] stack, int sp, int executed, int lineDelta) {
        int[] savedOut = outStack;
        int savedOutSp = outSp;
        outSp = -1;
        inAgent = true;
        agentFailure = null;
        try {
            if (stack == null) {
                return p.register(thread);
            }
            return p instanceof TreeAgent ? ((TreeAgent) p).sample(stack, sp, executed, lineDelta, this)
                    : p.processSample(stack, sp, executed);
        } catch (Throwable t) {
            agentFailure = t;
            return 0;
        } finally {
            inAgent = false;
            outStack = savedOut;
            outSp = savedOutSp;
        }
    }

    /** Returns a reified stack, from the pool if possible. */
    public int[] newStack() {
        if (pooled == 0) {
            return new int[thread == null ? 4 : stackSize];
        }
        int[] s = pool[--pooled];
        pool[pooled] = null;
        return s;
    }

    /** Returns a reified stack that is no longer used to the pool, unless the pool is full. */
    public void releaseStack(int[] stack) {
        if (pooled < pool.length && stack != null) {
            pool[pooled++] = stack;
        }
    }

    /**
     * Pushes {@code mid} and returns the new stack pointer. Never fails: when the stack is full,
     * the top slot is overwritten with {@code mid}, the slot below it becomes
     * {@link MID#TRUNCATED}, and the stack pointer stays at {@code stack.length}.
     */
    public static int push(int[] stack, int sp, int mid) {
        if (sp < stack.length) {
            stack[sp] = mid;
            return sp + 1;
        }
        return truncate(stack, mid);
    }

    // Out of line so that push stays small enough to be inlined everywhere.
    private static int truncate(int[] stack, int mid) {
        int top = stack.length - 1;
        if (top > 0) {
            stack[top - 1] = MID.TRUNCATED;
        }
        stack[top] = mid;
        return stack.length;
    }

    /*
     * Instrumented methods keep their thread's counter in a local variable, which the JIT keeps in
     * a register, and store it into instrCounter only where another frame may read it: before a
     * call, a return or a throw, and here. These helpers are the slow paths and the call-out
     * bookkeeping; each is small enough to be inlined.
     */

    /**
     * A granularity check that fired: {@code counter} is the method's local counter, {@code lineDelta}
     * where the check's block is (see {@link #triggerSampling(int[], int, int)}); returns the new counter.
     */
    public static int sample(TC tc, int counter, int[] stack, int sp, int lineDelta) {
        tc.instrCounter = counter;
        tc.triggerSampling(stack, sp, lineDelta);
        return tc.instrCounter;
    }

    /** {@link #sample} for leaf methods (§5.1). */
    public static int sampleLeaf(TC tc, int counter, int[] stack, int sp, int mid, int lineDelta) {
        tc.instrCounter = counter;
        tc.triggerSamplingLeaf(stack, sp, mid, lineDelta);
        return tc.instrCounter;
    }

    /** {@link #sample} without a line: the checks of methods without line numbers call it. */
    public static int sample(TC tc, int counter, int[] stack, int sp) {
        return sample(tc, counter, stack, sp, -1);
    }

    /** {@link #sampleLeaf} without a line. */
    public static int sampleLeaf(TC tc, int counter, int[] stack, int sp, int mid) {
        return sampleLeaf(tc, counter, stack, sp, mid, -1);
    }

    /** Before a call out of instrumented code: publishes the counter and the reified stack for callbacks. */
    public static void callOut(TC tc, int counter, int[] stack, int sp) {
        tc.instrCounter = counter;
        tc.outStack = stack;
        tc.outSp = sp;
    }

    /** After a call out returned: no callback can continue this stack any more; returns the counter. */
    public static int callBack(TC tc) {
        tc.outSp = -1;
        return tc.instrCounter;
    }

    /**
     * At an exception handler, and where an exception leaves a method: {@code synced} is the local
     * counter's value at its last store into (or load from) {@link #instrCounter}, {@code counter}
     * its value now. An exception the JVM threw in this method skipped the store of what the
     * method counted since; one that came from a callee was thrown after the store, and the callee
     * counted into the field itself. Either way the counter is {@code instrCounter - (synced -
     * counter)}: stored, and returned as the method's new local counter (and its new sync value).
     */
    public static int caught(TC tc, int synced, int counter) {
        int c = tc.instrCounter - (synced - counter);
        tc.instrCounter = c;
        return c;
    }

    /*
     * The compact form, for methods that the inline form would push past HotSpot's 8,000-byte
     * HugeMethodLimit (they would then never be JIT-compiled): each counter update, check and
     * call-out publication is one call here instead of its inline bytecodes, so the method keeps
     * being compiled. Same counts, same sampling points; the JIT may not inline these into a method
     * that large (DesiredMethodLimit), and then each is a real call.
     */
    /** A block's counter update without a check. */
    public static void count(TC tc, int n) {
        tc.instrCounter -= n;
    }
    /**
     * A block's counter update and its granularity check; {@code lineDelta} as for
     * {@link #triggerSampling(int[], int, int)} (-1 without a line).
     */
    public static void countCheck(TC tc, int n, int[] stack, int sp, int lineDelta) {
        if ((tc.instrCounter -= n) <= 0) {
            tc.triggerSampling(stack, sp, lineDelta);
        }
    }
    /** {@link #countCheck} in a leaf method (§5.1). */
    public static void countCheckLeaf(TC tc, int n, int[] stack, int sp, int mid, int lineDelta) {
        if ((tc.instrCounter -= n) <= 0) {
            tc.triggerSamplingLeaf(stack, sp, mid, lineDelta);
        }
    }
    /** Before a call-out: {@code outStack = stack; outSp = sp}, see {@link #outStack}. */
    public static void publish(TC tc, int[] stack, int sp) {
        tc.outStack = stack;
        tc.outSp = sp;
    }
    /**
     * The slow path of a granularity check (§4.2): calls the agent with the current stack.
     * {@code lineDelta} is the source line of the block the check is in minus the first line of the
     * method ({@link MID#getFirstLine}), or -1: a constant the check pushes on this path only, kept
     * short because a method's size in bytecodes counts against the JIT's inlining limits.
     */
    public void triggerSampling(int[] stack, int sp, int lineDelta) {
        sample(stack, sp, gran - instrCounter, lineDelta);
    }

    /**
     * The slow path of a granularity check in a leaf method (§5.1, Figure 5): a leaf method does
     * not push its identifier on entry, so it is pushed here, which is idempotent.
     */
    public void triggerSamplingLeaf(int[] stack, int sp, int mid, int lineDelta) {
        int executed = gran - instrCounter;
        if (profiler != null && !inAgent && muted == 0) {
            sp = push(stack, sp, mid);
        }
        sample(stack, sp, executed, lineDelta);
    }

    /** {@link #triggerSampling(int[], int, int)} without a line. */
    public void triggerSampling(int[] stack, int sp) {
        triggerSampling(stack, sp, -1);
    }

    /** {@link #triggerSamplingLeaf(int[], int, int, int)} without a line. */
    public void triggerSamplingLeaf(int[] stack, int sp, int mid) {
        triggerSamplingLeaf(stack, sp, mid, -1);
    }

    /**
     * The sample itself. It must stay out of line: every granularity check of the program calls
     * it, and where the JIT inlined it (with the agent below it) into each of thousands of check
     * sites, compiled code grew so much that Sunflow ran 1.3x slower at granularity 10,000
     * (BENCHMARKS.md, "Optimizations tried"). HotSpot inlines at hot call sites only methods of at
     * most FreqInlineSize bytecodes (325 on every JVM 8+) and has no inlining hint for
     * application classes, so this method is kept longer than that: see {@link #pad}.
     */
    private void sample(int[] stack, int sp, int executed, int lineDelta) {
        if (pad) {
            // Never runs (see above); test/runtime.test.ts checks the length.
            long x = executed;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            x = x * 0x9E3779B97F4A7C15L + sp;
            pad = x == 0;
        }
        if (muted > 0) {
            // The runtime's own work (or JDK code before counting started): dropped, see mute().
            instrCounter = Integer.MAX_VALUE;
            return;
        }
        SamplingProfiler p = profiler;
        if (p == null || inAgent || !recorded) {
            // No agent, or komorium.threads leaves this thread out: come back practically never
            // (Fig. 2). Inside the agent: the agent's own code is not profiled; the outer call
            // resets the counter when the agent returns.
            instrCounter = gran = Integer.MAX_VALUE;
            return;
        }
        int previousGran = gran;
        // The counter is reset before the call so that code the agent runs never triggers.
        instrCounter = gran = Integer.MAX_VALUE;
        int next;
        try {
            next = callAgent(p, stack, sp, executed, lineDelta);
        } catch (StackOverflowError e) {
            // Too deep even to enter callAgent: like an overflow in the agent. Left uncaught, it
            // would leave the counter reset above, and this thread would never sample again.
            agentFailure = e;
            next = 0;
        }
        Throwable failure = agentFailure;
        if (failure == null && next > 0) {
            instrCounter = gran = next;
        } else if (failure instanceof StackOverflowError) {
            // Sampling this deep overflowed: drop the sample, keep the agent, carry the bytecodes.
            long carried = (long) previousGran + executed;
            instrCounter = previousGran;
            gran = carried > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) carried;
            try {
                Lifecycle.sampleDropped(p);
            } catch (Throwable ignored) {
                // Still too deep even to report; the program must not see our overflow.
            }
        } else {
            disable(p, "processSample", failure, next);
        }
    }

    /** Never true: the branch that keeps {@link #sample} above the JIT's inlining size limit. */
    private static boolean pad;

    private void disable(SamplingProfiler p, String method, Throwable failure, int returned) {
        synchronized (REGISTRY) {
            if (profiler == p) {
                profiler = null;
            }
        }
        instrCounter = gran = Integer.MAX_VALUE;
        Lifecycle.agentFailed(p, method, failure, returned);
    }

    /**
     * Called by a wrapper (or an instrumented-in-place method) when uninstrumented code calls into
     * instrumented code. If the call comes back from a call-out of instrumented code on this thread
     * ({@link #outSp} {@code > 0}), continues that stack at {@code outSp}, after a
     * {@link MID#UNINSTRUMENTED} frame for the code in between, so the callback keeps its calling
     * context; otherwise takes a fresh stack from the pool. Sets {@link #enterSp}.
     */
    public int[] enter() {
        if (thread == null) {
            // MUTED, shared by threads: a private stack each time, nothing kept.
            enterSp = 0;
            return new int[4];
        }
        int sp = outSp;
        if (sp > 0) {
            // Cleared so that a nested entry that is not a callback of this call-out (a class
            // initializer run by the callback, say) does not write over the callback's frames.
            outSp = -1;
            int[] stack = outStack;
            enterSp = push(stack, sp, MID.UNINSTRUMENTED);
            return stack;
        }
        // outSp == 0 (a call-out from a leaf with no frame pushed) has an empty context too, so a
        // fresh stack is equivalent, and "sp == 0 means fresh" lets exit() tell the cases apart.
        enterSp = 0;
        return newStack();
    }

    /**
     * Called with the stack and stack pointer that {@link #enter} gave, when the instrumented code
     * returns normally: restores the call-out state for the next callback of the same call-out,
     * or releases a fresh stack to the pool. (After an exception it is not called; the stack is
     * then left to the garbage collector, as in §4.4.)
     */
    public void exit(int[] stack, int sp) {
        if (thread == null) {
            return;
        }
        if (sp > 0) {
            outStack = stack;
            // Below the marker enter() pushed, for the next callback to push again. (Not read back
            // from the slot: an agent may have replaced it by its own cache entry, Figure 9.)
            outSp = sp - 1;
        } else {
            releaseStack(stack);
            outSp = -1;
        }
    }

    /** The agent that is called, or null (none configured, or disabled after a failure). */
    static SamplingProfiler activeProfiler() {
        return profiler;
    }

    /**
     * Starts the agent if no application code has yet: for {@link Control} and the per-test
     * listener, which are called from application code (a test framework) before any instrumented
     * method may have run.
     */
    static void ensureStarted() {
        if (state != READY) {
            start();
        }
    }

    // ---- registry of contexts for the exit flush (§7.2)

    private static void enlist(TC tc) {
        synchronized (REGISTRY) {
            if (liveCount == live.length) {
                retireFinished();
                if (liveCount > live.length / 2) {
                    TC[] bigger = new TC[live.length * 2];
                    System.arraycopy(live, 0, bigger, 0, liveCount);
                    live = bigger;
                }
            }
            live[liveCount++] = tc;
            tc.index = nextIndex++;
            tc.recorded = Config.recordsThread(tc.index);
        }
    }

    /** The registration index of {@code t} if it is the current thread and has a context, else -1. */
    static int registrationIndex(Thread t) {
        TC tc = CURRENT == null ? null : CURRENT.get();
        return tc != null && tc.thread == t ? tc.index : -1;
    }

    /**
     * Folds the pending bytecodes of finished threads into {@link #retiredPending} and drops their
     * contexts, so that programs that start many short threads do not accumulate contexts.
     */
    private static void retireFinished() {
        int kept = 0;
        for (int i = 0; i < liveCount; i++) {
            TC tc = live[i];
            // isAlive() == false also makes the finished thread's last counter value visible here.
            if (tc.thread.isAlive()) {
                live[kept++] = tc;
            } else {
                retiredPending += tc.pending();
            }
        }
        for (int i = kept; i < liveCount; i++) {
            live[i] = null;
        }
        liveCount = kept;
    }

    private long pending() {
        if (muted > 0) {
            long p = (long) gran - mutedCounter;
            return p > 0 ? p : 0;
        }
        if (inAgent || !recorded) {
            return 0; // reset while the agent runs; the agent was given this thread's bytecodes
        }
        long p = (long) gran - instrCounter;
        return p > 0 ? p : 0;
    }

    /**
     * The bytecodes executed by all threads that ever had a context, since each one's last
     * sample: finished threads exactly, running ones as a snapshot.
     */
    static long pendingBytecodes() {
        synchronized (REGISTRY) {
            long sum = retiredPending;
            for (int i = 0; i < liveCount; i++) {
                sum += live[i].pending();
            }
            return sum;
        }
    }
}
