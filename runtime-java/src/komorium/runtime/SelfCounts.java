package komorium.runtime;

/**
 * A context's self counter by thread and by the source line of the block that ran: a small map
 * from (thread number, line) to a count, created for a context when its first sample arrives. Most
 * contexts see one line of one thread, so the first pair lives in two fields and a table is made
 * only for a second one. Not thread-safe: the owning agent synchronizes.
 */
final class SelfCounts {
    /** The first pair and its count. */
    private long firstKey;
    private long firstCount;
    /** Further pairs, key + 1 so that 0 marks a free slot; null until there is one. */
    private long[] keys;
    private long[] counts;
    private int size;

    SelfCounts(int thread, int line, long count) {
        firstKey = key(thread, line);
        firstCount = count;
    }

    /** Threads and lines start at -1 (unknown), so both fit in 32 bits as value + 1. */
    static long key(int thread, int line) {
        return ((long) (thread + 1) << 32) | ((line + 1) & 0xffffffffL);
    }

    static int thread(long key) {
        return (int) (key >>> 32) - 1;
    }

    static int line(long key) {
        return (int) key - 1;
    }

    void add(int thread, int line, long count) {
        long k = key(thread, line);
        if (k == firstKey) {
            firstCount += count;
            return;
        }
        if (keys == null) {
            keys = new long[4];
            counts = new long[4];
        } else if (2 * (size + 1) > keys.length) {
            grow();
        }
        int i = insertionSlot(keys, k + 1);
        if (keys[i] == 0) {
            keys[i] = k + 1;
            size++;
        }
        counts[i] += count;
    }

    private static int insertionSlot(long[] table, long stored) {
        int mask = table.length - 1;
        long h = stored * 0x9E3779B97F4A7C15L;
        int i = (int) (h ^ (h >>> 32)) & mask;
        while (table[i] != 0 && table[i] != stored) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldCounts = counts;
        keys = new long[oldKeys.length * 2];
        counts = new long[oldKeys.length * 2];
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != 0) {
                int i = insertionSlot(keys, oldKeys[j]);
                keys[i] = oldKeys[j];
                counts[i] = oldCounts[j];
            }
        }
    }

    /** Pairs with a count, for {@link Visitor}. */
    interface Visitor {
        void visit(int thread, int line, long count);
    }

    void forEach(Visitor v) {
        if (firstCount != 0) {
            v.visit(thread(firstKey), line(firstKey), firstCount);
        }
        if (keys == null) {
            return;
        }
        for (int j = 0; j < keys.length; j++) {
            if (keys[j] != 0 && counts[j] != 0) {
                v.visit(thread(keys[j] - 1), line(keys[j] - 1), counts[j]);
            }
        }
    }

    /** Sets every count to zero, keeping the pairs (a reset of the profile). */
    void clear() {
        firstCount = 0;
        if (counts != null) {
            java.util.Arrays.fill(counts, 0);
        }
    }
}
