package komorium.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * Per-thread counters of the framework's profile kinds. Each thread counts into its own tables
 * (no lock, no lost update, no contention), and the profile sums all threads' tables at exit,
 * including those of threads that ended. The tables tolerate being read while their thread still
 * writes (a thread racing with {@code System.exit}): a reader sees a slightly stale count, never
 * an exception.
 */
final class Counts {
    private Counts() {
    }

    /** Counts by site number: pages of 1,024 longs, allocated as sites are first hit. */
    static final class BySite {
        private volatile long[][] pages = new long[64][];

        void add(int site) {
            long[][] p = pages;
            int page = site >>> 10;
            if (page >= p.length || p[page] == null) {
                p = grow(page);
            }
            p[page][site & 1023]++;
        }

        private long[][] grow(int page) {
            long[][] p = pages;
            if (page >= p.length) {
                long[][] bigger = new long[Math.max(2 * p.length, page + 1)][];
                System.arraycopy(p, 0, bigger, 0, p.length);
                p = bigger;
            }
            if (p[page] == null) {
                p[page] = new long[1024];
            }
            pages = p;
            return p;
        }

        /** Adds this table into {@code into} (indexed by site). */
        void sumInto(LongList into) {
            long[][] p = pages;
            for (int page = 0; page < p.length; page++) {
                long[] counts = p[page];
                if (counts == null) {
                    continue;
                }
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] != 0) {
                        into.add((page << 10) | i, counts[i]);
                    }
                }
            }
        }
    }

    /** Counts by a pair of ints packed into a long key (open addressing, linear probing). */
    static final class ByPair {
        /** Keys and counts, replaced together when the table grows. */
        private static final class Table {
            final long[] keys;
            final long[] counts;
            final boolean[] used;

            Table(int n) {
                keys = new long[n];
                counts = new long[n];
                used = new boolean[n];
            }
        }

        private volatile Table table = new Table(256);
        private int size;

        void add(int a, int b) {
            long key = ((long) a << 32) | (b & 0xffffffffL);
            Table t = table;
            int mask = t.keys.length - 1;
            int i = mix(key) & mask;
            while (t.used[i]) {
                if (t.keys[i] == key) {
                    t.counts[i]++;
                    return;
                }
                i = (i + 1) & mask;
            }
            t.keys[i] = key;
            t.counts[i] = 1;
            t.used[i] = true;
            if (++size * 2 > t.keys.length) {
                rehash(t);
            }
        }

        private void rehash(Table old) {
            Table t = new Table(old.keys.length * 2);
            int mask = t.keys.length - 1;
            for (int j = 0; j < old.keys.length; j++) {
                if (!old.used[j]) {
                    continue;
                }
                int i = mix(old.keys[j]) & mask;
                while (t.used[i]) {
                    i = (i + 1) & mask;
                }
                t.keys[i] = old.keys[j];
                t.counts[i] = old.counts[j];
                t.used[i] = true;
            }
            table = t;
        }

        private static int mix(long key) {
            long h = key * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32));
        }

        /** Adds this table into {@code into}. */
        void sumInto(java.util.Map<Long, long[]> into) {
            Table t = table;
            for (int j = 0; j < t.keys.length; j++) {
                if (!t.used[j]) {
                    continue;
                }
                long[] c = into.get(t.keys[j]);
                if (c == null) {
                    into.put(t.keys[j], new long[] {t.counts[j]});
                } else {
                    c[0] += t.counts[j];
                }
            }
        }
    }

    /** (index, count) pairs, summed by index. */
    static final class LongList {
        final java.util.TreeMap<Integer, long[]> byIndex = new java.util.TreeMap<Integer, long[]>();

        void add(int index, long count) {
            long[] c = byIndex.get(index);
            if (c == null) {
                byIndex.put(index, new long[] {count});
            } else {
                c[0] += count;
            }
        }
    }

    /** One table per thread, all kept for the sum at exit. */
    abstract static class PerThread<T> extends ThreadLocal<T> {
        private final List<T> all = new ArrayList<T>();

        abstract T create();

        @Override
        protected final T initialValue() {
            T t = create();
            synchronized (all) {
                all.add(t);
            }
            return t;
        }

        /** Every thread's table, ended threads included. */
        List<T> all() {
            synchronized (all) {
                return new ArrayList<T>(all);
            }
        }
    }
}
