package komorium.runtime;

/**
 * The exact mode of the {@code subpaths} kind (seed 003 Table 4.1, the thesis' "full count"): at
 * every block, each subpath of 2^n blocks that ends there is counted, n = 1..N, identified by its
 * blocks up to rotation (compared block by block, not by hash). It keeps at most
 * {@code komorium.subpaths.exactLimit} distinct subpaths; occurrences of new ones past that are
 * counted as overflow, so the profile says where the ground truth is incomplete. Beside the counts it
 * measures what identifiers lose on this run: distinct subpaths in execution order, up to rotation,
 * by the 64-bit identifier of the sampling mode, and by the thesis' XOR identifier.
 */
final class SubpathExact {
    private static final int LIMIT = Subpaths.EXACT_LIMIT;
    private static final Object LOCK = new Object();

    private static int capacity = 1 << 12;
    private static long[] hashes = new long[capacity];
    private static long[] counts = new long[capacity];
    private static int[][] seqs = new int[capacity][];
    private static short[] rots = new short[capacity];
    private static int size;
    /** Distinct subpaths whose 64-bit identifier another distinct subpath already had. */
    private static long collisions;
    private static final long[] TOTAL = new long[11];
    private static final long[] DISTINCT = new long[11];
    private static final long[] OVERFLOW = new long[11];
    /** Distinct subpaths in execution order (rotations apart), by a 64-bit hash of the sequence. */
    private static final LongSet ORDERED = new LongSet(LIMIT);

    private SubpathExact() {
    }

    /** One block of thread state {@code s}: counts every subpath of 2^n blocks that ends with it. */
    static void enter(SubpathState s, int site) {
        s.push(site);
        int filled = s.filled();
        synchronized (LOCK) {
            for (int n = 2, log = 1; n <= filled; n <<= 1, log++) {
                int[] w = s.last(n);
                int rot = SubpathIds.leastRotation(w, n);
                long h = SubpathIds.hash(w, n, rot);
                TOTAL[log]++;
                ORDERED.add(SubpathIds.hash(w, n, 0));
                count(w, n, rot, h, log);
            }
        }
    }

    private static void count(int[] w, int n, int rot, long h, int log) {
        int mask = capacity - 1;
        int i = (int) (h ^ (h >>> 32)) & mask;
        boolean sharesId = false;
        while (seqs[i] != null) {
            if (hashes[i] == h) {
                if (seqs[i].length == n && SubpathIds.sameRotation(seqs[i], rots[i], w, rot, n)) {
                    counts[i]++;
                    return;
                }
                sharesId = true;
            }
            i = (i + 1) & mask;
        }
        if (size >= LIMIT) {
            OVERFLOW[log]++;
            return;
        }
        hashes[i] = h;
        counts[i] = 1;
        seqs[i] = java.util.Arrays.copyOf(w, n);
        rots[i] = (short) rot;
        size++;
        DISTINCT[log]++;
        if (sharesId) {
            collisions++;
        }
        if (2 * size > capacity) {
            grow();
        }
    }

    private static void grow() {
        long[] oh = hashes;
        long[] oc = counts;
        int[][] os = seqs;
        short[] or = rots;
        capacity *= 2;
        hashes = new long[capacity];
        counts = new long[capacity];
        seqs = new int[capacity][];
        rots = new short[capacity];
        int mask = capacity - 1;
        for (int j = 0; j < os.length; j++) {
            if (os[j] == null) {
                continue;
            }
            int i = (int) (oh[j] ^ (oh[j] >>> 32)) & mask;
            while (seqs[i] != null) {
                i = (i + 1) & mask;
            }
            hashes[i] = oh[j];
            counts[i] = oc[j];
            seqs[i] = os[j];
            rots[i] = or[j];
        }
    }

    /** The hottest {@code top} subpaths and the statistics, copied while threads may still run. */
    static Snapshot snapshot(int top) {
        synchronized (LOCK) {
            Snapshot s = new Snapshot();
            s.total = TOTAL.clone();
            s.distinct = DISTINCT.clone();
            s.overflow = OVERFLOW.clone();
            s.ordered = ORDERED.size();
            s.orderedFull = ORDERED.full();
            s.exact = size;
            s.hashIds = size - collisions;
            LongSet xor = new LongSet(size);
            for (int[] q : seqs) {
                if (q != null) {
                    xor.add(SubpathIds.xorId(q, q.length));
                }
            }
            s.xorIds = xor.size();
            int[] best = hottest(top);
            s.blocks = new int[best.length][];
            s.counts = new long[best.length];
            for (int k = 0; k < best.length; k++) {
                s.blocks[k] = seqs[best[k]];
                s.counts[k] = counts[best[k]];
            }
            s.limit = LIMIT;
            return s;
        }
    }

    /** Slots of the {@code top} largest counts, by a bounded min-heap. */
    private static int[] hottest(int top) {
        int[] heap = new int[Math.min(top, size)];
        int n = 0;
        for (int j = 0; j < seqs.length; j++) {
            if (seqs[j] == null) {
                continue;
            }
            if (n < heap.length) {
                heap[n] = j;
                up(heap, n++);
            } else if (heap.length > 0 && counts[j] > counts[heap[0]]) {
                heap[0] = j;
                down(heap, n);
            }
        }
        return java.util.Arrays.copyOf(heap, n);
    }

    private static void up(int[] heap, int i) {
        while (i > 0) {
            int p = (i - 1) / 2;
            if (counts[heap[p]] <= counts[heap[i]]) {
                return;
            }
            swap(heap, p, i);
            i = p;
        }
    }

    private static void down(int[] heap, int n) {
        int i = 0;
        while (true) {
            int l = 2 * i + 1;
            int m = i;
            if (l < n && counts[heap[l]] < counts[heap[m]]) {
                m = l;
            }
            if (l + 1 < n && counts[heap[l + 1]] < counts[heap[m]]) {
                m = l + 1;
            }
            if (m == i) {
                return;
            }
            swap(heap, i, m);
            i = m;
        }
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    static final class Snapshot {
        long[] total;
        long[] distinct;
        long[] overflow;
        long ordered;
        boolean orderedFull;
        long exact;
        long hashIds;
        long xorIds;
        int limit;
        int[][] blocks;
        long[] counts;
    }

    /** A set of longs (open addressing) that stops growing at a bound and then says it is full. */
    static final class LongSet {
        private final int bound;
        private long[] keys = new long[1 << 10];
        private boolean zero;
        private int size;
        private boolean full;

        LongSet(int bound) {
            this.bound = bound;
        }

        void add(long k) {
            if (k == 0) {
                if (!zero) {
                    zero = true;
                    size++;
                }
                return;
            }
            int mask = keys.length - 1;
            int i = (int) (k ^ (k >>> 32)) & mask;
            while (keys[i] != 0) {
                if (keys[i] == k) {
                    return;
                }
                i = (i + 1) & mask;
            }
            if (size >= bound) {
                full = true;
                return;
            }
            keys[i] = k;
            if (2 * ++size > keys.length) {
                long[] old = keys;
                keys = new long[old.length * 2];
                mask = keys.length - 1;
                for (long o : old) {
                    if (o != 0) {
                        int j = (int) (o ^ (o >>> 32)) & mask;
                        while (keys[j] != 0) {
                            j = (j + 1) & mask;
                        }
                        keys[j] = o;
                    }
                }
            }
        }

        int size() {
            return size;
        }

        boolean full() {
            return full;
        }
    }
}
