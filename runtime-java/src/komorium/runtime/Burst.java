package komorium.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Bursty tracing (seed 001 §4.1, Figure 4; Hirzel and Chilimbi, FDDO-4 2001) on the Arnold–Ryder
 * layouts. Checks sit at every method entry and backedge of the checking code. A sparse phase of
 * {@code komorium.burst.sparsity} checks runs the checking code; then {@code komorium.burst.length}
 * checks in a row jump to the duplicated, profiling code (a burst, which follows calls and
 * returns), and the next check goes back: the sampled fraction of checks is length / (length +
 * sparsity), the paper's frequency.
 *
 * <p>With the {@code counter} mechanism every check decrements {@link #counter} and calls
 * {@link #take} when it runs out: the paper's software counters, whose cost while nothing is
 * sampled is its basic overhead. The timer mechanisms ({@link BurstFlag}, {@link BurstVolatile},
 * {@link BurstIndy}) keep the counting out of the checks: a timer thread arms them for
 * {@code komorium.burst.awake} ms of every {@code komorium.burst.period} ms, and only armed
 * checks call {@link #tick}, which counts. To keep the sampled fraction the one asked for, the
 * sparse phase while armed is shortened by the armed share of the time.
 *
 * <p>All state is shared by all threads and unsynchronized, as in seed 000: a race can move a
 * burst by a check or end one early, never lose recorded data or block a thread.
 */
public final class Burst {
    private static final int SPARSITY = KindOptions.BURST_SPARSITY;
    private static final int LENGTH = KindOptions.BURST_LENGTH;

    /** Checks left in the sparse phase; at zero or below, a check calls take(). Racy by design. */
    public static int counter;

    /** The sparse phase while checks count: SPARSITY, or shorter for a timer mechanism (below MAX_VALUE: counter starts one above). */
    private static int sparsity = Math.min(SPARSITY, Integer.MAX_VALUE - 1);
    private static boolean inBurst;
    /** Checks left in the current burst after the one that runs. */
    private static int left;
    /** Bursts started (racy: a count for the profile). */
    static long bursts;

    private static final List<Switch> SWITCHES = new ArrayList<Switch>();
    private static long awakeMs;
    private static long periodMs;
    private static volatile long startNs;
    private static volatile long armedNs;
    private static volatile long armedSinceNs;
    private static volatile long switches;
    private static volatile long lateNs;

    static {
        counter = sparsity + 1;
        BurstState.used = true;
    }

    private Burst() {
    }

    /** Sets the armed state of one timer mechanism's checks. */
    interface Switch {
        void set(boolean armed);
    }

    /**
     * The slow path of a check whose counter ran out: starts a burst, continues it, or ends it.
     * Returns whether this check runs the profiling code.
     *
     * <p>Kept out of line: a check whose counter ran out while its method was profiled gets this
     * call compiled in, and C2 inlines a hot callee of up to FreqInlineSize (325) bytes of bytecode
     * into every such check (the lesson of issue 20, BENCHMARKS-cbs.md). The block under
     * {@link OutOfLine#NEVER} keeps this method above that size; test/hps.test.ts checks it.
     */
    public static boolean take() {
        if (OutOfLine.NEVER) {
            OutOfLine.padding = new int[] {
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
            };
        }
        if (!inBurst) {
            inBurst = true;
            left = LENGTH - 1;
            counter = 0;
            bursts++;
            BurstState.epoch++;
            return true;
        }
        if (sparsity == 0 || left > 0) {
            left--;
            counter = 0;
            return true;
        }
        inBurst = false;
        // This check is the first of the sparse phase.
        counter = sparsity;
        return false;
    }


    /**
     * An armed check of a timer mechanism (and every check of the counter mechanism under
     * KOMORIUM_CHECK_FORM=call): the software counters. Small enough for C1 and C2 to inline at
     * every check (at most MaxInlineSize, 35 bytes; test/hps.test.ts checks it); take() is not.
     */
    public static boolean tick() {
        if (--counter > 0) {
            return false;
        }
        return take();
    }

    /**
     * Registers a timer mechanism's switch; the first one starts the timer thread, with the
     * mechanism's default period and awake time unless the properties set them.
     */
    static void arm(Switch s, String mechanism, int defaultPeriodMs, int defaultAwakeMs) {
        synchronized (SWITCHES) {
            SWITCHES.add(s);
            if (SWITCHES.size() > 1) {
                BurstState.mechanism = BurstState.mechanism + "+" + mechanism;
                s.set(armedSinceNs != 0);
                return;
            }
            BurstState.mechanism = mechanism;
            periodMs = KindOptions.BURST_PERIOD_MS != 0 ? KindOptions.BURST_PERIOD_MS : defaultPeriodMs;
            awakeMs = Math.min(periodMs, KindOptions.BURST_AWAKE_MS != 0 ? KindOptions.BURST_AWAKE_MS : defaultAwakeMs);
            sparsity = armedSparsity((double) awakeMs / periodMs);
            counter = sparsity + 1;
            startNs = System.nanoTime();
        }
        if (awakeMs >= periodMs) {
            setAll(true);
            armedSinceNs = startNs;
            return;
        }
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                timer();
            }
        }, "komorium-burst-timer");
        t.setDaemon(true);
        t.start();
    }

    /** S' such that length / (length + S') while armed, times the armed share, is length / (length + S). */
    private static int armedSparsity(double armedShare) {
        long shortened = Math.round(armedShare * ((long) SPARSITY + LENGTH) - LENGTH);
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE - 1, shortened));
    }

    private static void setAll(boolean armed) {
        Switch[] all;
        // Not under the lock: a switch may wait for its class's initialization, which may be
        // registering another switch.
        synchronized (SWITCHES) {
            all = SWITCHES.toArray(new Switch[0]);
        }
        for (Switch s : all) {
            s.set(armed);
        }
        switches++;
    }

    /** Arms the checks for awakeMs of every periodMs, on a fixed schedule; records what the sleeps achieved. */
    private static void timer() {
        long period = periodMs * 1000000L;
        long awake = awakeMs * 1000000L;
        long next = System.nanoTime();
        while (true) {
            long t0 = System.nanoTime();
            lateNs = Math.max(lateNs, t0 - next);
            armedSinceNs = t0;
            setAll(true);
            sleepUntil(t0 + awake);
            setAll(false);
            long t1 = System.nanoTime();
            armedSinceNs = 0;
            armedNs += t1 - t0;
            // Timer wake-ups come late under load: the sparse phase follows the share achieved.
            sparsity = armedSparsity((double) armedNs / Math.max(1, t1 - startNs));
            // The next armed window starts with a whole sparse phase, as the first did.
            inBurst = false;
            counter = sparsity + 1;
            BurstState.epoch++;
            next = Math.max(t0 + period, t1);
            sleepUntil(next);
        }
    }

    private static void sleepUntil(long deadline) {
        for (long now = System.nanoTime(); now < deadline; now = System.nanoTime()) {
            LockSupport.parkNanos(deadline - now);
        }
    }

    static int sparsity() {
        return SPARSITY;
    }

    static int length() {
        return LENGTH;
    }

    /** The sparse phase while armed (the requested one for the counter mechanism). */
    static int armedSparsity() {
        return sparsity;
    }

    static long awakeMs() {
        return awakeMs;
    }

    static long periodMs() {
        return periodMs;
    }

    /** Parts per million of the time since the timer started that the checks were armed (all of it without a timer). */
    static long armedPpm() {
        if (startNs == 0) {
            return 1000000;
        }
        long now = System.nanoTime();
        long since = armedSinceNs;
        long armed = armedNs + (since != 0 ? now - since : 0);
        long total = Math.max(1, now - startNs);
        return Math.min(1000000, armed * 1000000 / total);
    }

    static long switches() {
        return switches;
    }

    /** The latest a timer wake-up came after it was due, in microseconds. */
    static long lateMicros() {
        return lateNs / 1000;
    }
}
