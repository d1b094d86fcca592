package komorium.runtime;

/**
 * Where the calls of {@code cbs} are counted between two events (a sample, a window's start, a
 * period's end): Figure 3's counters. The timer has one clock, shared by all threads as seed 000
 * shares its counter (a race loses a count or moves a sample by a call, never a recorded edge).
 * The counting triggers give each thread its own: a window then opens after that thread's own
 * PERIOD calls and samples that thread's next calls, so a program whose threads each call in the
 * same order on every run gives the same call graph however the threads interleave (shared, the
 * countdown raced: ecj's and H2's call graphs differed run to run).
 */
final class CbsClock {
    /** Calls until the next event; the handler at every call site decrements it. */
    int countdown = Integer.MAX_VALUE;
    /** What countdown was last set to: the calls that pass before the next event. */
    int pending;
    /** Counting triggers: the calls before the current countdown. */
    long counted;
    /** Whether a window is open, and its samples still to take (Figure 3's samplesThisTimerInterrupt). */
    boolean window;
    int left;
    /** Windows opened. */
    long windows;
    /** Calls that found another thread's clock in Cbs's cache since this clock last took it over. */
    int misses;
    private long random;

    /** A clock whose draws are those of {@code komorium.seed} mixed with {@code salt} (0 for the first clock). */
    CbsClock(long salt) {
        long r = Config.seed() ^ 0x2545F4914F6CDD1DL ^ salt * 0x9E3779B97F4A7C15L;
        random = r == 0 ? 0x2545F4914F6CDD1DL : r;
    }

    void schedule(int calls) {
        countdown = calls;
        pending = calls;
    }

    /** A window opens: how many calls away its first sample is, 1 to {@code stride} (the paper's random start). */
    int nextStart(int stride) {
        windows++;
        return 1 + below(stride);
    }

    /** A number drawn uniformly from [0, bound). */
    int below(int bound) {
        long x = random;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        random = x;
        return (int) ((x >>> 1) % bound);
    }

    /** Calls counted so far (counting triggers). */
    long calls() {
        return counted + pending - countdown;
    }
}
