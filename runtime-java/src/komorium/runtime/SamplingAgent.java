package komorium.runtime;

/**
 * The sampling agent of seed 002, §6 ({@code -Dkomorium.agent=sampling}, the default).
 *
 * <p>All threads add their samples to one samples tree: a calling context tree whose node
 * counters count the samples that ended exactly in that context. Each thread's reified stack
 * doubles as its cache of the last resolved path (§6.2), so a sample costs a scan down to the
 * topmost already-resolved frame instead of a walk from the root. The granularity is constant
 * ({@code komorium.granularity}) or, with {@code komorium.random} R &gt; 0, the granularity plus a
 * number in [0, R) from a per-thread generator seeded with {@code komorium.seed} and the thread's
 * registration order (§7.1), so that runs repeat. At exit it writes {@code komorium.out} in the
 * format of docs/profile-format.md. A context's estimated bytecodes are its share of the samples
 * times {@code totalBytecodes}.
 */
public final class SamplingAgent extends TreeAgent {
    private final int granularity;
    private final int random;
    private final long seed;
    /** Per-thread generator, set by register() on the registering thread itself. */
    private final ThreadLocal<SplitMix> generators = new ThreadLocal<SplitMix>();

    /** Configured from the system properties (see {@link Config}). */
    public SamplingAgent() {
        this(Config.granularity(), Config.random(), Config.seed(), Config.out());
    }

    /**
     * For programs that create and drive an agent themselves.
     *
     * @param granularity bytecodes between samples, {@code >= 1}
     * @param random      R: add a random {@code 0 <= r < R}; 0 for a constant granularity
     * @param seed        seed of the per-thread generators
     * @param out         the profile file {@link #shutdown(long)} writes
     */
    public SamplingAgent(int granularity, int random, long seed, String out) {
        super(out);
        if (granularity < 1 || random < 0) {
            throw new IllegalArgumentException("granularity " + granularity + ", random " + random);
        }
        this.granularity = granularity;
        this.random = random;
        this.seed = seed;
    }

    @Override
    public int register(Thread t) {
        // The runtime's registration index, which komorium.threads filters by: a thread's seed
        // stays the same when other threads are left out. The agent's own count otherwise.
        int order = TC.registrationIndex(t);
        synchronized (this) {
            int count = threads++;
            if (order < 0) {
                order = count;
            }
        }
        if (random > 0) {
            SplitMix g = new SplitMix(seed, order);
            generators.set(g);
            return next(g);
        }
        return granularity;
    }

    @Override
    int sample(int[] stack, int sp, int bytecodes, int lineDelta, TC tc) {
        int next = granularity;
        if (random > 0) {
            SplitMix g = generators.get();
            if (g == null) {
                // A thread that never registered through the runtime (a program driving the agent).
                synchronized (this) {
                    g = new SplitMix(seed, threads++);
                }
                generators.set(g);
            }
            next = next(g);
        }
        if (!recording) {
            return next;
        }
        sp = clamp(stack, sp);
        synchronized (this) {
            if (sp > 0) {
                InvocationNode n = context(stack, sp, tc, 1);
                n.add(1, threadNumber(tc), line(n, lineDelta));
                if (n.truncated) {
                    truncatedSamples++;
                }
            }
            // Last, so that a sample dropped by a stack overflow above is not half counted.
            totalBytecodes += Integer.toUnsignedLong(bytecodes);
        }
        return next;
    }

    private int next(SplitMix g) {
        long n = (long) granularity + g.nextInt(random);
        return n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    @Override
    String name() {
        return "sampling";
    }

    @Override
    String unit() {
        return "samples";
    }

    @Override
    int granularity() {
        return granularity;
    }

    @Override
    int random() {
        return random;
    }

    @Override
    long seed() {
        return seed;
    }

    /**
     * SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and identical on every JVM, unlike
     * {@code java.util.Random} whose seeding would also serve, but needs a lock per draw.
     */
    static final class SplitMix {
        private long state;

        SplitMix(long seed, int order) {
            state = seed ^ (order * 0xD1B54A32D192ED03L);
        }

        long nextLong() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** Uniform in {@code [0, bound)}, {@code bound > 0}, by multiply-shift (no modulo bias worth noting). */
        int nextInt(int bound) {
            return (int) (((nextLong() >>> 32) * bound) >>> 32);
        }
    }
}
