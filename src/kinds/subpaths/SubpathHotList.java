package komorium.runtime;

/**
 * The hot list of seed 003 §2.3.4: a Gibbons–Matias concise sample of the sampled subpaths, as
 * (identifier, count) pairs with the blocks of the first occurrence, one list for all threads. When it
 * holds more than {@code komorium.subpaths.memory} entries, the rate f is raised by a quarter and every
 * sampled occurrence is kept with probability (old f / new f), until it fits: the sample stays a
 * uniform one at the current rate, so its memory is bounded whatever the program runs. Additions are
 * synchronized (a subpath is finished once every f/5 blocks or so, §3).
 */
final class SubpathHotList {
    private static final int LIMIT = Subpaths.MEMORY;
    /** Counts up to this are thinned coin by coin, larger ones with the normal approximation of the binomial. */
    private static final int EXACT_THINNING = 1000;

    private static final Object LOCK = new Object();
    private static volatile int rate = Subpaths.INTERVAL;
    private static int capacity = Integer.highestOneBit(4 * LIMIT - 1);
    private static long[] ids = new long[capacity];
    private static long[] counts = new long[capacity];
    private static int[][] blocks = new int[capacity][];
    private static int size;
    private static long seqBytes;
    private static int resamples;
    private static int peakEntries;
    private static long peakBytes;
    private static long random = Config.seed() ^ 0x6A09E667F3BCC909L;

    private SubpathHotList() {
    }

    /** The current rate f: one subpath start per f blocks on average. */
    static int rate() {
        return rate;
    }

    /** A finished subpath of {@code n} blocks, started at rate {@code startRate} by thread state {@code s}. */
    static void add(int[] path, int n, int startRate, SubpathState s) {
        long id = SubpathIds.id(path, n);
        synchronized (LOCK) {
            int f = rate;
            if (f > startRate && s.nextDouble() * f >= startRate) {
                return;
            }
            int i = slot(id);
            if (blocks[i] != null) {
                counts[i]++;
                return;
            }
            ids[i] = id;
            counts[i] = 1;
            blocks[i] = java.util.Arrays.copyOf(path, n);
            size++;
            seqBytes += arrayBytes(n);
            if (size > LIMIT) {
                resample();
            }
            if (size > peakEntries) {
                peakEntries = size;
            }
            peakBytes = Math.max(peakBytes, bytes());
        }
    }

    private static int slot(long id) {
        int mask = capacity - 1;
        int i = (int) (id ^ (id >>> 32)) & mask;
        while (blocks[i] != null && ids[i] != id) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Raises f until the list fits, thinning every count binomially (Gibbons and Matias). */
    private static void resample() {
        while (size > LIMIT) {
            int f = rate;
            int raised = (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil(f * 1.25));
            double keep = (double) f / raised;
            long[] oldIds = ids;
            long[] oldCounts = counts;
            int[][] oldBlocks = blocks;
            ids = new long[capacity];
            counts = new long[capacity];
            blocks = new int[capacity][];
            size = 0;
            seqBytes = 0;
            for (int j = 0; j < oldBlocks.length; j++) {
                if (oldBlocks[j] == null) {
                    continue;
                }
                long c = thin(oldCounts[j], keep);
                if (c == 0) {
                    continue;
                }
                int i = slot(oldIds[j]);
                ids[i] = oldIds[j];
                counts[i] = c;
                blocks[i] = oldBlocks[j];
                size++;
                seqBytes += arrayBytes(oldBlocks[j].length);
            }
            rate = raised;
            resamples++;
            if (raised == Integer.MAX_VALUE) {
                break;
            }
        }
    }

    /** Binomial(c, keep). */
    private static long thin(long c, double keep) {
        if (c <= EXACT_THINNING) {
            long k = 0;
            for (long i = 0; i < c; i++) {
                if (nextDouble() < keep) {
                    k++;
                }
            }
            return k;
        }
        double mean = c * keep;
        double sd = Math.sqrt(c * keep * (1 - keep));
        double g = Math.sqrt(-2 * Math.log(1 - nextDouble())) * Math.cos(2 * Math.PI * nextDouble());
        return Math.max(0, Math.min(c, Math.round(mean + sd * g)));
    }

    private static double nextDouble() {
        long x = random;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        random = x;
        return ((x * 0x2545F4914F6CDD1DL) >>> 11) * 0x1.0p-53;
    }

    /** Heap bytes of an int[n] with compressed references: 16-byte header, rounded to 8. */
    static long arrayBytes(int n) {
        return (16 + 4L * n + 7) & ~7L;
    }

    /** What the list takes on the heap: its three tables and the blocks of every entry. */
    private static long bytes() {
        return arrayBytes(2 * capacity) * 2 + arrayBytes(capacity) + seqBytes;
    }

    /** A consistent copy of the list, for a profile written while threads still run. */
    static Snapshot snapshot() {
        synchronized (LOCK) {
            Snapshot s = new Snapshot();
            s.rate = rate;
            s.limit = LIMIT;
            s.resamples = resamples;
            s.peakEntries = peakEntries;
            s.peakBytes = peakBytes;
            s.blocks = new int[size][];
            s.counts = new long[size];
            for (int j = 0, k = 0; j < blocks.length; j++) {
                if (blocks[j] != null) {
                    s.blocks[k] = blocks[j];
                    s.counts[k++] = counts[j];
                }
            }
            return s;
        }
    }

    static final class Snapshot {
        int rate;
        int limit;
        int resamples;
        int peakEntries;
        long peakBytes;
        int[][] blocks;
        long[] counts;
    }
}
