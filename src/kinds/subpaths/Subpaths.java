package komorium.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * The runtime of the {@code subpaths} profile kind: online subpath profiling after seed 003 (OSP).
 * Every block entry of instrumented code calls {@link #enterBlock(int)} (the framework's exhaustive
 * layout with {@code block} events). Its fast path is the thesis' skip logic: one decrement of the
 * running thread's skip counter. When it runs out, a subpath of 2^n blocks starts here (n = 1..N,
 * probability proportional to 1/2^n), the following blocks of the same thread are appended, and the
 * finished subpath goes into the hot list ({@link SubpathHotList}), a Gibbons–Matias concise sample in
 * bounded memory. {@code -Dkomorium.subpaths.mode=exact} counts every subpath instead (the ground
 * truth, {@link SubpathExact}); {@code skip} runs the skip logic alone, the thesis' t3.
 *
 * <p>The running thread's state: the thread that initialised this class compares itself with a
 * constant ({@code Thread.currentThread()} is an intrinsic) and its state is a constant too, so its
 * blocks cost a compare and a decrement. Any other thread finds its state through a one-entry cache,
 * the state of the other thread that ran last, which a plain static holds: C2 must reload it and its
 * thread at every block, which cost JFlex's single thread about a fifth of its CPU time more
 * (2.4 against 2.0 times the uninstrumented run's, BENCHMARKS-subpaths.md). The price is the failed
 * compare on every block of the other threads: Sunflow, whose render thread runs nearly every
 * block, went from 2.6–2.7 to 2.9–3.0 times. A thread that misses the cache looks its state up,
 * and takes the cache over at its 64th miss since it last did, so that two threads running at once
 * do not write the shared slot on every block. Each thread's counter, random generator and
 * unfinished subpaths are its own: a subpath never mixes two threads' blocks, and a thread samples
 * the same way whatever the others do.
 */
public final class Subpaths {
    static final int MODE_SAMPLE = 0;
    static final int MODE_SKIP = 1;
    static final int MODE_EXACT = 2;

    static final int MODE = SubpathConfig.mode();
    /** N: subpaths of 2^1 .. 2^N blocks. */
    static final int LOG_MAX = SubpathConfig.logMaxLength();
    static final int MAX_LENGTH = 1 << LOG_MAX;
    // Every setting is read now, in every mode, so that a bad value stops the program before it runs.
    static final String CONFIDENCE = SubpathConfig.confidence();
    /** A sampled start yields every length (its prefixes of 2, 4, … blocks), not one drawn length. */
    static final boolean ALL_LENGTHS = SubpathConfig.allLengths();
    static final int MEMORY = SubpathConfig.memory();
    static final int INTERVAL = SubpathConfig.interval();
    static final int EXACT_LIMIT = SubpathConfig.exactLimit();
    static final int EXACT_TOP = SubpathConfig.exactTop();

    private static final List<SubpathState> STATES = new ArrayList<SubpathState>();
    /** Threads that ran instrumented code; guarded by STATES. */
    private static int registered;
    /** Blocks of the threads whose state was dropped when they ended; guarded by STATES. */
    private static long endedBlocks;
    private static final ThreadLocal<SubpathState> MINE = new ThreadLocal<SubpathState>() {
        @Override
        protected SubpathState initialValue() {
            Thread t = Thread.currentThread();
            return t == OWNER ? FIRST : register(t);
        }
    };

    private static SubpathState register(Thread t) {
        synchronized (STATES) {
            if ((registered & 63) == 63) {
                dropEnded();
            }
            SubpathState s = new SubpathState(t, registered++);
            STATES.add(s);
            return s;
        }
    }

    /** The thread that initialised this class, and its state (the first registered). */
    private static final Thread OWNER = Thread.currentThread();
    private static final SubpathState FIRST = register(OWNER);
    /** The state of the other thread that ran last; racy on purpose (a state is only ever changed by its own thread). */
    private static SubpathState cached = new SubpathState(null, -1);

    static {
        Profiles.register(new SubpathSection());
    }

    private Subpaths() {
    }

    /** A basic block of instrumented code starts: the thesis' enterBlock. */
    public static void enterBlock(int site) {
        Thread t = Thread.currentThread();
        SubpathState s = t == OWNER ? FIRST : other(t);
        if (--s.skip <= 0) {
            s.slow(site);
        }
    }

    private static SubpathState other(Thread t) {
        SubpathState s = cached;
        return s.thread == t ? s : miss();
    }

    private static SubpathState miss() {
        SubpathState s = MINE.get();
        if (++s.misses >= 64) {
            s.misses = 0;
            cached = s;
        }
        return s;
    }

    /**
     * Keeps the blocks of threads that ended and lets their state (and Thread) go, so that a program
     * that starts thread after thread does not keep them all; their unfinished subpaths never ended.
     */
    private static void dropEnded() {
        for (java.util.Iterator<SubpathState> it = STATES.iterator(); it.hasNext(); ) {
            SubpathState s = it.next();
            if (!s.thread.isAlive()) {
                endedBlocks += s.blocks();
                it.remove();
            }
        }
    }

    /** Blocks run by all threads, ended ones included (racy for threads still running). */
    static long blocks() {
        synchronized (STATES) {
            long n = endedBlocks;
            for (SubpathState s : STATES) {
                n += s.blocks();
            }
            return n;
        }
    }

    /** Threads that ran instrumented code. */
    static int threads() {
        synchronized (STATES) {
            return registered;
        }
    }
}
