package komorium.runtime;

/**
 * The sample trigger of the Arnold–Ryder framework (seed 000 §2.2). The checking code of every
 * instrumented method decrements {@link #counter} at its entry and at each backedge; a decrement
 * that reaches zero calls {@link #take}, and the method continues in its duplicated, instrumented
 * code until the next backedge or its exit. Every {@code komorium.interval} checks (plus a random
 * {@code 0 <= r < komorium.random}) one sample is taken, so code is sampled in proportion to how
 * often it runs, and a single-threaded program is sampled the same way on every run and JIT.
 *
 * <p>The counter is one static int for all threads, unsynchronized, as in the paper: a race can
 * lose a decrement (a sample comes a check later), never a sample's data, and a check stays a
 * load, a subtraction and a store. The alternative, one counter per thread, costs a thread-local
 * lookup at every check; {@code instrument --trigger thread} builds it so that the two can be
 * measured against each other (BENCHMARKS.md).
 */
public final class Sampler {
    /** Checks left until the next sample. Racy by design (see above). */
    public static int counter;

    private static final int INTERVAL = Config.strictInteger("komorium.interval", 1000, 1);
    private static final int RANDOM = Config.strictInteger("komorium.random", 0, 0);
    private static long state = Config.seed() ^ 0x5DEECE66DL;
    /** Samples taken, all threads (racy: a count for the profile, not a correctness matter). */
    static long samples;

    static {
        counter = next();
    }

    private Sampler() {
    }

    /**
     * The slow path of a check that took the counter to zero or below: resets it and starts a
     * sample. Returns whether to sample; always true today (a stopped profile would say false).
     */
    public static boolean take() {
        counter = next();
        samples++;
        return true;
    }

    /**
     * The whole check as one call: {@code --counter} decremented, and true when a sample starts.
     * JIT compilers inline it into the same load, subtract, store and branch as the inline form;
     * in bytecode it is 4 bytes instead of 13 (what HotSpot's inlining limits count).
     */
    public static boolean tick() {
        if (--counter > 0) {
            return false;
        }
        return take();
    }

    private static final ThreadLocal<int[]> PER_THREAD = new ThreadLocal<int[]>() {
        @Override
        protected int[] initialValue() {
            return new int[] {next()};
        }
    };

    /** The check of {@code --trigger thread}: this thread's own counter; true when a sample starts. */
    public static boolean tickThread() {
        int[] c = PER_THREAD.get();
        if (--c[0] > 0) {
            return false;
        }
        c[0] = next();
        samples++;
        return true;
    }

    static int interval() {
        return INTERVAL;
    }

    static int random() {
        return RANDOM;
    }

    /** The next interval: constant, or interval + r from a seeded xorshift (races only perturb it). */
    private static int next() {
        if (RANDOM <= 1) {
            return INTERVAL;
        }
        long x = state;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        state = x;
        return INTERVAL + (int) ((x >>> 1) % RANDOM);
    }
}
