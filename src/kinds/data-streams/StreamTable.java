package komorium.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot data streams of all windows of all threads, summed by pattern (StreamTrace.pattern):
 * heat and cold uses add up. Bounded: past {@link #MAX_STREAMS} patterns the cooler half is
 * dropped, and the heat dropped is counted for the profile.
 */
final class StreamTable {
    static final int MAX_STREAMS = 50000;

    /** A pattern as a map key. */
    static final class Key {
        final int[] triples;
        private final int hash;

        Key(int[] triples) {
            this.triples = triples;
            this.hash = Arrays.hashCode(triples);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && Arrays.equals(triples, ((Key) o).triples);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private static final Map<Key, long[]> STREAMS = new HashMap<Key, long[]>();
    private static long references;
    private static long covered;
    private static long windows;
    private static long droppedHeat;
    /** References counted in windows that were not analysed (komorium.streams.every). */
    private static long skipped;
    /** Set by the exit hook: what threads analyse after that would come too late for the file. */
    private static boolean closed;

    private StreamTable() {
    }

    /** One analysed window: its reference count and its hot streams with their patterns (null: skipped). */
    static synchronized void window(long refs, List<HotStreams.Stream> hot, int[][] keys, boolean byOwner) {
        if (closed && byOwner) {
            return;
        }
        windows++;
        references += refs;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] == null) {
                continue;
            }
            HotStreams.Stream s = hot.get(i);
            covered += s.heat();
            Key k = new Key(keys[i]);
            long[] v = STREAMS.get(k);
            if (v == null) {
                STREAMS.put(k, new long[] {s.heat(), s.coldUses});
            } else {
                v[0] += s.heat();
                v[1] += s.coldUses;
            }
        }
        if (STREAMS.size() > MAX_STREAMS) {
            List<Map.Entry<Key, long[]>> all = sorted();
            for (Map.Entry<Key, long[]> e : all.subList(MAX_STREAMS / 2, all.size())) {
                droppedHeat += e.getValue()[0];
                STREAMS.remove(e.getKey());
            }
        }
    }

    static synchronized void skipped(long references) {
        if (!closed) {
            skipped += references;
        }
    }

    static synchronized long skippedReferences() {
        return skipped;
    }

    static synchronized void close() {
        closed = true;
    }

    /** Patterns by heat, hottest first (ties by pattern, so that the order is the same every run). */
    static synchronized List<Map.Entry<Key, long[]>> sorted() {
        List<Map.Entry<Key, long[]>> all = new ArrayList<Map.Entry<Key, long[]>>(STREAMS.entrySet());
        Collections.sort(all, new Comparator<Map.Entry<Key, long[]>>() {
            @Override
            public int compare(Map.Entry<Key, long[]> a, Map.Entry<Key, long[]> b) {
                int c = Long.compare(b.getValue()[0], a.getValue()[0]);
                if (c != 0) {
                    return c;
                }
                int[] x = a.getKey().triples;
                int[] y = b.getKey().triples;
                for (int i = 0; i < Math.min(x.length, y.length); i++) {
                    if (x[i] != y[i]) {
                        return x[i] < y[i] ? -1 : 1;
                    }
                }
                return x.length - y.length;
            }
        });
        return all;
    }

    static synchronized long references() {
        return references;
    }

    static synchronized long covered() {
        return covered;
    }

    static synchronized long windows() {
        return windows;
    }

    static synchronized long droppedHeat() {
        return droppedHeat;
    }
}
