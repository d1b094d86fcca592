package komorium.runtime;

/**
 * One thread's profiler state (seed 003 Figure 2.1): the skip counter, the subpaths being sampled,
 * a random generator, and the number of blocks the thread ran. Only its own thread changes it; the
 * profile writer reads the block count racily (a thread still running at exit adds its blocks so far).
 *
 * <p>Subpath starts form a Bernoulli process over block positions: each block starts one with
 * probability 1/f, so the skip between two starts is geometric with mean f, counted from the last
 * start (not from the end of its subpath). Subpaths that overlap are sampled side by side, so every
 * occurrence of a subpath is in the sample independently with probability P(length)/f: the estimate
 * count × f / P(length) is unbiased and the Chernoff bounds of §2.3.6 apply.
 */
final class SubpathState {
    final Thread thread;
    final int index;

    /** Blocks left before {@link #slow} runs: the start distance, or 1 while a subpath is being sampled. */
    int skip;
    /** Consecutive cache misses ({@link Subpaths#enterBlock}). */
    int misses;
    /** The value {@link #skip} was last set to. */
    private int set;
    /** Blocks run before {@link #skip} was last set. */
    private long base;
    /** Blocks until the next subpath start (sample and skip modes). */
    private long untilStart;
    /** The rate f the pending start was drawn with. */
    private int drawnRate;
    private long random;

    /** The subpaths being sampled: blocks so far, blocks wanted, the rate each was started at. */
    private int active;
    private int[][] paths = new int[0][];
    private int[] have = new int[0];
    private int[] need = new int[0];
    private int[] rates = new int[0];

    /** Exact mode: the last blocks, as a ring, and a window of them in order. */
    private final int[] ring;
    private final int[] scratch;
    private int ringPos;
    private long ringFilled;

    SubpathState(Thread thread, int index) {
        this.thread = thread;
        this.index = index;
        if (thread == null) {
            // The placeholder of Subpaths.cached: never the running thread, never used.
            scratch = null;
            ring = null;
            return;
        }
        long seed = Config.seed() + 0x9E3779B97F4A7C15L * (index + 1);
        random = seed == 0 ? 0x2545F4914F6CDD1DL : seed;
        scratch = Subpaths.MODE == Subpaths.MODE_EXACT ? new int[Subpaths.MAX_LENGTH] : null;
        ring = Subpaths.MODE == Subpaths.MODE_EXACT ? new int[Subpaths.MAX_LENGTH] : null;
        untilStart = Subpaths.MODE == Subpaths.MODE_EXACT ? 1 : drawSkip();
        set = (int) Math.min(untilStart, Integer.MAX_VALUE);
        skip = set;
    }

    /** Blocks this thread has run (racy when read from another thread). */
    long blocks() {
        return base + (set - skip);
    }

    /** The skip ran out: this block is sampled, starts a subpath, or just ends a long skip. */
    void slow(int site) {
        base += set;
        if (Subpaths.MODE == Subpaths.MODE_EXACT) {
            SubpathExact.enter(this, site);
            set = 1;
            skip = 1;
            return;
        }
        untilStart -= set;
        if (active > 0) {
            feed(site);
        }
        if (untilStart <= 0) {
            if (Subpaths.MODE == Subpaths.MODE_SAMPLE) {
                start(site);
            }
            untilStart = drawSkip();
        }
        set = active > 0 ? 1 : (int) Math.min(untilStart, Integer.MAX_VALUE);
        skip = set;
    }

    /**
     * Appends the block to every subpath being sampled and hands over those that are complete; with
     * all lengths, each prefix of 2, 4, … blocks is handed over as it completes.
     */
    private void feed(int site) {
        for (int i = 0; i < active; ) {
            paths[i][have[i]++] = site;
            if (have[i] < need[i]) {
                if (Subpaths.ALL_LENGTHS && (have[i] & (have[i] - 1)) == 0) {
                    SubpathHotList.add(paths[i], have[i], rates[i], this);
                }
                i++;
                continue;
            }
            SubpathHotList.add(paths[i], need[i], rates[i], this);
            active--;
            int[] done = paths[i];
            paths[i] = paths[active];
            paths[active] = done;
            have[i] = have[active];
            need[i] = need[active];
            rates[i] = rates[active];
        }
    }

    /**
     * A subpath starts at this block. When the hot list raised its rate since the start was drawn,
     * the start is kept with probability (old rate / new rate), which is how Gibbons–Matias thin the
     * sample itself, so that every start stays sampled at the current rate.
     */
    private void start(int site) {
        int rate = SubpathHotList.rate();
        if (rate > drawnRate && nextDouble() * rate >= drawnRate) {
            return;
        }
        if (active == paths.length) {
            grow();
        }
        paths[active][0] = site;
        have[active] = 1;
        need[active] = Subpaths.ALL_LENGTHS ? Subpaths.MAX_LENGTH : chooseLength();
        rates[active] = rate;
        active++;
    }

    private void grow() {
        int n = paths.length + 1;
        int[][] p = new int[n][];
        System.arraycopy(paths, 0, p, 0, paths.length);
        p[n - 1] = new int[Subpaths.MAX_LENGTH];
        paths = p;
        have = java.util.Arrays.copyOf(have, n);
        need = java.util.Arrays.copyOf(need, n);
        rates = java.util.Arrays.copyOf(rates, n);
    }

    /** 2^n blocks, n = 1..N, with probability 2^(N-n) / (2^N - 1): proportional to 1/2^n (§2.3.3). */
    int chooseLength() {
        int top = (1 << Subpaths.LOG_MAX) - 1;
        int r = 1 + (int) ((nextLong() >>> 1) % top);
        int k = 31 - Integer.numberOfLeadingZeros(r);
        return 1 << (Subpaths.LOG_MAX - k);
    }

    /** Blocks until the next start: geometric with mean f, at least 1. */
    private long drawSkip() {
        int f = SubpathHotList.rate();
        drawnRate = f;
        if (f <= 1) {
            return 1;
        }
        double u = 1.0 - nextDouble();
        double g = Math.floor(Math.log(u) / Math.log1p(-1.0 / f));
        return 1 + (g >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE / 2 : (long) g);
    }

    long nextLong() {
        long x = random;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        random = x;
        return x * 0x2545F4914F6CDD1DL;
    }

    /** Uniform in [0, 1). */
    double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Exact mode: appends {@code site} to the ring of the last blocks. */
    void push(int site) {
        ring[ringPos] = site;
        ringPos = (ringPos + 1) & (ring.length - 1);
        ringFilled++;
    }

    /** How many blocks the ring holds (at most its length). */
    int filled() {
        return (int) Math.min(ringFilled, ring.length);
    }

    /** Copies the last {@code n} blocks of the ring, oldest first, into the scratch array. */
    int[] last(int n) {
        int start = (ringPos - n) & (ring.length - 1);
        for (int k = 0; k < n; k++) {
            scratch[k] = ring[(start + k) & (ring.length - 1)];
        }
        return scratch;
    }
}
