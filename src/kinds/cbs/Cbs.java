package komorium.runtime;

import java.util.concurrent.locks.LockSupport;

/**
 * The runtime of the {@code cbs} profile kind: counter-based sampling of the dynamic call graph
 * (seed 004, Arnold and Grove 2005). Figure 3 of the paper runs at every call that instrumented
 * code makes: while {@link #armed} is false (the common case) a call costs the inline test of
 * that flag; once a trigger arms it, the next calls are counted, and every STRIDE-th one is a
 * sample, SAMPLES of them per trigger, the first one 1 to STRIDE calls after the trigger (drawn at
 * random). A sample records the edge (call site, method that actually ran), as {@code call-edges}
 * counts it, so the two profiles compare edge by edge.
 *
 * <p>Why the call and not the callee's entry: the paper's VM runs Figure 3 in every method's
 * prologue, the JDK's included. A rewritten jar has prologues only in its own methods, and most
 * calls of real programs go to the JDK (three calls in four in JFlex). The instrumented call site
 * sees every call the exhaustive profile counts, knows its caller and site as constants, and finds
 * the method that ran from the receiver, so no stack walk is needed
 * ({@code KOMORIUM_CBS_PLACEMENT} at instrument time builds the entry placements that were
 * measured against it, BENCHMARKS-cbs.md).
 *
 * <p>Triggers ({@code -Dkomorium.cbs.trigger}):
 * <ul>
 * <li>{@code timer} (the paper's): a daemon thread arms the flag every {@code komorium.cbs.period}
 *   (default 10ms). The period it really achieved is recorded beside the one asked for.</li>
 * <li>{@code checks}: every call counts, and every {@code komorium.cbs.period} calls (a number)
 *   arm a window; the start offsets come from {@code komorium.seed}. A program whose threads call
 *   in the same order gives the same call graph on every run, JIT and machine.</li>
 * <li>{@code bytecodes}: Komorium's bytecode clock exists only in code Komorium rewrote (its
 *   thread context, passed through every extended method), which cannot share a jar with the
 *   framework's kinds; counting bytecodes per block here would cost what Komorium's floor costs.
 *   So this trigger counts calls, as {@code checks} does, and says so in the profile.</li>
 * </ul>
 * {@code komorium.cbs.stride} (default 7) and {@code komorium.cbs.samples} (samples per trigger,
 * default 16) apply to all. A bad value stops the JVM before the program runs (Config.strictInteger).
 *
 * <p>The timer's counters are shared by all threads, as in seed 000: a race loses a count or moves
 * a sample by a call, never a recorded edge. The counting triggers count each thread's calls apart
 * (CbsClock says why). Samples go to per-thread tables.
 */
public final class Cbs {
    /** Figure 3's {@code profilingEnabledByTimer}, tested inline before every instrumented call. */
    public static volatile boolean armed;

    static final String TRIGGER = Config.strictChoice("komorium.cbs.trigger", "timer", "timer", "checks", "bytecodes");
    private static final boolean TIMER = TRIGGER.equals("timer");
    private static final int STRIDE = Config.strictInteger("komorium.cbs.stride", 7, 1);
    private static final int SAMPLES = Config.strictInteger("komorium.cbs.samples", 16, 1);
    /**
     * Timer, {@code komorium.cbs.spread=calls} (the default): a window's first sample comes a
     * number of calls drawn from [0, skipBound) after the tick. A tick lands where the program
     * spends its time, so the calls right after it are those that follow call-free stretches
     * (JFlex: 49% accuracy from 37,000 samples at 10 ms, 63 x 64); a start spread over the period's
     * calls is a draw by calls. The calls of a period are not counted (that would cost what the
     * counting trigger costs), so the bound is learnt from the ticks: it grows by a quarter when the
     * window closed before the next tick and shrinks by a quarter when a tick finds the window still
     * skipping, which settles where about half the skips outlast the period, near a period's calls.
     * A tick that finds the window sampling says nothing about the skip and changes nothing.
     * {@code none}: the paper's window, right after the tick. The counting triggers and the grid's
     * cells start as the paper does, and their profiles say {@code spread none}.
     */
    private static final boolean SPREAD = Config.strictChoice("komorium.cbs.spread", "calls", "none", "calls").equals("calls");
    private static int skipBound = 1024;
    /** Timer: nanoseconds; the counting triggers: calls between two windows. */
    private static final long PERIOD = TIMER
            ? Config.strictDuration("komorium.cbs.period", 10000000L, 1000L)
            : Config.strictInteger("komorium.cbs.period", 100000, 1,
                    "a number of calls >= 1 with komorium.cbs.trigger=" + TRIGGER + "; a duration only with the timer");

    /*
     * While the flag is up, a call only decrements its clock's countdown: the calls until the
     * next event, a sample or (counting triggers) the end of a period. The rest of Figure 3 runs
     * in reached(), out of line where C2 cannot inline it, so that the code the JIT puts at every
     * call site stays a decrement, a branch and a call (reached() says what inlining it cost).
     * FIRST is the timer's clock, and the clock of the thread that initialised this class, which
     * finds it by comparing itself with a constant. With a counting trigger every other thread has
     * its own clock, from a ThreadLocal; the one that called last finds it in {@link #recent}
     * without that lookup (a render thread makes nearly every call of Sunflow, not the main thread
     * that initialised Cbs: the lookup at every call took its CPU time from 1.6 to 2.9 times the
     * uninstrumented run's, and the cache alone for every thread cost JFlex 1.39 to 1.65 times).
     * Sunflow still pays for the cache (2.0 times against 1.5 to 1.65 with one shared countdown):
     * the cost of a graph that does not depend on how threads interleave. A MutableCallSite that C2
     * folds to the busiest thread's clock, relinked when another thread becomes the busiest, cost
     * Sunflow 2.8 times. The constants fold in C2, so the timer's handler decrements one field as it
     * did a static.
     */
    private static final Thread OWNER = Thread.currentThread();
    private static final CbsClock FIRST = new CbsClock(0);
    private static final Counts.PerThread<CbsClock> THREAD_CLOCK = new Counts.PerThread<CbsClock>() {
        @Override
        CbsClock create() {
            Thread t = Thread.currentThread();
            return t == OWNER ? FIRST : startClock(new CbsClock(t.getName().hashCode() + 1L));
        }
    };

    /**
     * A thread and its clock, read as one reference so that no thread can take another's clock. The
     * clock does not hold its thread: the clocks of ended threads stay for the profile, their
     * Threads (and what they hold) need not.
     */
    private static final class Recent {
        final Thread thread;
        final CbsClock clock;

        Recent(Thread thread, CbsClock clock) {
            this.thread = thread;
            this.clock = clock;
        }
    }

    private static Recent recent = new Recent(OWNER, FIRST);

    private static CbsClock clock() {
        if (TIMER) {
            return FIRST;
        }
        Thread t = Thread.currentThread();
        return t == OWNER ? FIRST : otherClock(t);
    }

    private static CbsClock otherClock(Thread t) {
        Recent r = recent;
        return r.thread == t ? r.clock : clockOf(t);
    }

    /**
     * A thread takes the cache over at its 64th miss since it last did, so that two threads calling
     * at once do not replace it (an allocation) at every call, as in Subpaths.
     */
    private static CbsClock clockOf(Thread t) {
        CbsClock c = THREAD_CLOCK.get();
        if (++c.misses >= 64) {
            c.misses = 0;
            recent = new Recent(t, c);
        }
        return c;
    }

    /** The window's edges; with komorium.cbs.grid one window per cell, fed by the same calls. */
    private static final CbsWindow[] WINDOWS = CbsWindow.fromOptions(STRIDE, SAMPLES);
    private static final CbsWindow ONE = WINDOWS[0];
    private static final boolean GRID = WINDOWS.length > 1;
    /** The grid with a counting trigger: calls until the next period's end. */
    private static long untilWindow = PERIOD;

    /** Timer ticks, and the grid's periods (the counting triggers' periods are counted at the end). */
    static long ticks;
    /** Samples of an entry placement whose caller was not an instrumented call site (a callback from the JDK). */
    static long dropped;
    /** How the instrumented code finds the caller (KOMORIUM_CBS_PLACEMENT), noted by the first sample. */
    static volatile String placement = "call";

    private static final Timer TIMER_THREAD = TIMER ? Timer.launch() : null;

    /** Set at exit, before the sections are written: sampling has stopped. */
    private static volatile boolean exiting;

    static {
        Profiles.register(new Section());
        Profiles.beforeWrite(new Runnable() {
            @Override
            public void run() {
                stop();
            }
        });
        startClock(FIRST);
        if (!TIMER) {
            // Every call counts: the flag stays up.
            armed = true;
        }
    }

    private Cbs() {
    }

    private static CbsClock startClock(CbsClock c) {
        if (GRID) {
            // Every call goes to the grid, which keeps each cell's own count.
            c.schedule(1);
        } else if (!TIMER) {
            // The PERIOD-th call opens the first window.
            c.schedule((int) PERIOD);
        }
        return c;
    }

    /** At exit: no more ticks, no more samples while the profile is written. */
    private static void stop() {
        if (TIMER_THREAD != null) {
            TIMER_THREAD.finish();
        }
        armed = false;
        exiting = true;
    }

    /** A call whose callee the instruction fixes: static, special, private or final. */
    public static void call(int site) {
        CbsClock c = clock();
        if (--c.countdown <= 0) {
            reached(c, site, null, CALL);
        }
    }

    /** A virtual or interface call on {@code receiver}; a null receiver makes no call and is not counted. */
    public static void call(Object receiver, int site) {
        CbsClock c = clock();
        if (receiver != null && --c.countdown <= 0) {
            reached(c, site, receiver, CALL);
        }
    }

    /*
     * The entry placements, built by KOMORIUM_CBS_PLACEMENT for measurement (CbsCallers): Figure 3
     * at the entry of each instrumented method, the caller found from the stack, or from a call
     * site number stored before every invoke in a static or a per-thread slot.
     */

    /** Entry of the method of entry site {@code site}; the caller from a stack walk. */
    public static void entry(int site) {
        CbsClock c = clock();
        if (--c.countdown <= 0) {
            reached(c, site, null, ENTRY_STACK);
        }
    }

    /** Entry, the caller from the site every instrumented invoke stored in {@link #lastSite}. */
    public static void entryAfterSite(int site) {
        CbsClock c = clock();
        if (--c.countdown <= 0) {
            reached(c, site, null, ENTRY_STATIC);
        }
    }

    /** Entry, the caller from the site every instrumented invoke stored in its thread's slot. */
    public static void entryAfterThreadSite(int site) {
        CbsClock c = clock();
        if (--c.countdown <= 0) {
            reached(c, site, null, ENTRY_THREAD);
        }
    }

    /** What reached() was reached by: a call, or an entry whose caller comes from the stack, the static slot or the thread's slot. */
    private static final int CALL = 0;
    private static final int ENTRY_STACK = 1;
    private static final int ENTRY_STATIC = 2;
    private static final int ENTRY_THREAD = 3;

    /**
     * The event that brought countdown to zero: the rest of Figure 3, out of line. A call site that
     * the flag was up at while its method was profiled gets its handler compiled in, and C2 inlines
     * a hot callee of up to FreqInlineSize (325) bytes of bytecode: with Figure 3 behind a handler
     * of 24 bytes, due(), the callee lookup and the recording (its ThreadLocal and hash table) went
     * into every such site (JFlex's IntCharSet.and grew from 5.6 to 43 KB of compiled code, Rhino's
     * C2 CPU time from 1.3 to 4.5 s: BENCHMARKS-cbs.md). Each handler above is a decrement, a
     * branch and a call of this method, which the block under {@link OutOfLine#NEVER} keeps above that size
     * (test/cbs.test.ts checks both). The decrement stays inline: with a counting trigger, whose
     * flag is always up, a call of this method at every call cost JFlex 20% more CPU time.
     */
    private static void reached(CbsClock c, int site, Object receiver, int event) {
        if (due(c)) {
            if (event == CALL) {
                sample(site, receiver);
            } else if (event == ENTRY_STACK) {
                CbsCallers.fromStack(site);
            } else if (event == ENTRY_STATIC) {
                CbsCallers.fromSlot(site, lastSite, "entry-site");
            } else {
                CbsCallers.fromSlot(site, THREAD_SITE.get()[0], "entry-thread");
            }
        }
        if (OutOfLine.NEVER) {
            OutOfLine.padding = new int[] {
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
            };
        }
    }

    /** The call site about to invoke, for {@link #entryAfterSite} (racy between threads: measured, not exact). */
    public static int lastSite = -1;

    public static void site(int site) {
        lastSite = site;
    }

    private static final ThreadLocal<int[]> THREAD_SITE = new ThreadLocal<int[]>() {
        @Override
        protected int[] initialValue() {
            return new int[] {-1};
        }
    };

    public static void threadSite(int site) {
        THREAD_SITE.get()[0] = site;
    }

    /**
     * The call that brought countdown to zero: Figure 3's slow path. Returns whether it is a
     * sample. With a counting trigger every call counts towards the end of the period, in a window
     * or not; the call that ends a period outside a window opens one and is its first call (so
     * that period 1, stride 1 and unbounded samples record every call: the exhaustive profile).
     */
    static boolean due(CbsClock c) {
        if (GRID) {
            c.schedule(1);
            return true;
        }
        if (!TIMER) {
            c.counted += c.pending;
            if (!c.window) {
                c.window = true;
                c.left = SAMPLES;
                int start = c.nextStart(STRIDE);
                if (start > 1) {
                    c.schedule(start - 1);
                    return false;
                }
            }
        }
        if (--c.left > 0) {
            c.schedule(STRIDE);
        } else {
            c.window = false;
            if (TIMER) {
                armed = false;
                c.schedule(Integer.MAX_VALUE);
            } else {
                c.schedule((int) ((c.counted / PERIOD + 1) * PERIOD - c.counted));
            }
        }
        return true;
    }

    /**
     * A timer tick: a window opens unless one is open, its first sample 1 to STRIDE calls away. A
     * window that is open while the flag is down lost a race with the call that closed the one
     * before (it lowered the flag after this thread opened the next); it opens again.
     */
    static void timerTick() {
        ticks++;
        if (GRID) {
            for (CbsWindow w : WINDOWS) {
                w.start();
            }
        } else if (!FIRST.window || !armed) {
            if (SPREAD && !FIRST.window) {
                skipBound = Math.min(1 << 30, skipBound + (skipBound >> 2) + 1);
            }
            FIRST.left = SAMPLES;
            FIRST.schedule(FIRST.nextStart(STRIDE) + (SPREAD ? FIRST.below(skipBound) : 0));
            FIRST.window = true;
        } else if (SPREAD && FIRST.left == SAMPLES) {
            skipBound = Math.max(1, skipBound - (skipBound >> 2));
        }
        armed = true;
    }

    /** A sample of the call at {@code site}: the method it runs, from the receiver when it has one. */
    static void sample(int site, Object receiver) {
        if (GRID) {
            gridCall(site, receiver);
        } else {
            record(site, receiver == null ? Callees.named(site) : Callees.of(site, receiver));
        }
    }

    static void record(int site, int callee) {
        ONE.record(site, callee);
    }

    /** The grid's call: every cell's window counts it (CbsWindow.count); the callee is looked up once, if a cell samples. */
    private static void gridCall(int site, Object receiver) {
        if (!TIMER && --untilWindow <= 0) {
            untilWindow = PERIOD;
            ticks++;
            for (CbsWindow w : WINDOWS) {
                w.start();
            }
        }
        int callee = -1;
        boolean open = false;
        for (CbsWindow w : WINDOWS) {
            if (w.count()) {
                if (callee < 0) {
                    callee = receiver == null ? Callees.named(site) : Callees.of(site, receiver);
                }
                w.record(site, callee);
            }
            open |= w.open;
        }
        if (TIMER && !open) {
            armed = false;
        }
    }

    /** Triggers so far: timer ticks, or the periods the counted calls completed. */
    private static long triggers() {
        if (TIMER || GRID) {
            return ticks;
        }
        long periods = 0;
        for (CbsClock c : clocks()) {
            periods += c.calls() / PERIOD;
        }
        return periods;
    }

    /** Windows opened by the clocks (the grid's cells count their own). */
    private static long windows() {
        long n = 0;
        for (CbsClock c : clocks()) {
            n += c.windows;
        }
        return n;
    }

    private static java.util.List<CbsClock> clocks() {
        java.util.List<CbsClock> all = THREAD_CLOCK.all();
        if (!all.contains(FIRST)) {
            all.add(0, FIRST);
        }
        return all;
    }

    /** The timer trigger: a daemon thread (it never keeps the JVM alive) that arms the flag every period. */
    private static final class Timer extends Thread {
        private volatile boolean stopped;
        private long first;
        private long last;

        private Timer() {
            super("komorium-cbs-timer");
            setDaemon(true);
        }

        static Timer launch() {
            Timer t = new Timer();
            try {
                t.start();
            } catch (RuntimeException | Error e) {
                Report.error("komorium: cbs cannot start its timer thread (" + Report.describe(e) + "); no call will be sampled");
            }
            return t;
        }

        @Override
        public void run() {
            // Fixed rate: each tick is due a period after the previous one was due, so a late
            // wake-up (a loaded machine) does not shift all later ticks; ticks more than a period
            // late are skipped, and the achieved period shows it.
            long due = System.nanoTime() + PERIOD;
            while (!stopped) {
                long now = System.nanoTime();
                if (now < due) {
                    LockSupport.parkNanos(this, due - now);
                    continue;
                }
                synchronized (this) {
                    if (ticks == 0) {
                        first = now;
                    }
                    last = now;
                }
                timerTick();
                due += PERIOD;
                if (due < now) {
                    due = now + PERIOD;
                }
            }
        }

        /** Nanoseconds between ticks on average, or 0 before the second one. */
        synchronized long achieved() {
            return ticks < 2 ? 0 : (last - first) / (ticks - 1);
        }

        void finish() {
            stopped = true;
            interrupt();
        }
    }

    private static final class Section extends KindSection {
        Section() {
            super("cbs");
        }

        /*
         * Profiles writes a section at exit and for every online dump (Control, Dumps) while the
         * program runs: sampling stops only at exit (stop()), and the grid's cells, one file each
         * beside the final profile, are written only then.
         */
        @Override
        String writeRecords(ProfileFile file) {
            String description = "cbs: " + writeSection(file, ONE);
            if (GRID && exiting) {
                // The grid's cells: one file each beside the profile (which holds the first cell).
                for (CbsWindow w : WINDOWS) {
                    String out = Config.out().replaceFirst("(\\.kprof)?$", "") + ".stride-" + w.stride + ".samples-" + w.samples + ".kprof";
                    try {
                        ProfileFile cell = new ProfileFile();
                        writeSection(cell, w);
                        cell.write(new java.io.File(out));
                    } catch (java.io.IOException | RuntimeException e) {
                        Report.error("komorium: cannot write the grid profile " + out + ": " + e);
                    }
                }
                description += "; " + WINDOWS.length + " grid cells beside it";
            }
            return description;
        }

        private String writeSection(ProfileFile file, CbsWindow w) {
            EdgeCounts edges = EdgeCounts.of(file, w.tables());
            file.section(kind());
            file.record("trigger", TRIGGER);
            file.record("placement", placement);
            file.record("period", PERIOD);
            file.record("achieved", TIMER_THREAD != null ? TIMER_THREAD.achieved() : PERIOD);
            file.record("stride", w.stride);
            file.record("window", w.samples);
            file.record("spread", SPREAD && TIMER && !GRID ? "calls" : "none");
            file.record("seed", Config.seed());
            file.record("ticks", triggers());
            long windows = GRID ? w.draws.windows : windows();
            file.record("windows", windows);
            file.record("samples", edges.calls);
            file.record("dropped", dropped);
            for (EdgeCounts.Edge e : edges.edges) {
                file.record("edge", e.site, e.callee, e.count);
            }
            return edges.calls + " samples on " + edges.edges.size() + " edges in " + windows + " windows";
        }
    }
}
