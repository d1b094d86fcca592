package komorium.runtime;

import java.lang.ref.WeakReference;

/**
 * A stable number per object for one thread's trace of data references: the first object it
 * meets is 0, the next 1, and so on. Objects are held weakly (the table never keeps one alive)
 * and found by identity hash. The table is bounded: once it holds {@link #MAX} live objects it
 * starts again, and objects met before get new numbers, as a freed and reused address would in a
 * native trace.
 */
final class ObjectIds {
    static final int MAX = 1 << 18;

    private WeakReference<?>[] refs = new WeakReference<?>[1024];
    private int[] hashes = new int[1024];
    private int[] ids = new int[1024];
    private int size;
    private int next;
    /** Times the table was full of live objects and started again. */
    int restarts;

    int of(Object o) {
        int h = System.identityHashCode(o);
        int mask = refs.length - 1;
        int i = mix(h) & mask;
        for (WeakReference<?> r = refs[i]; r != null; r = refs[i]) {
            if (hashes[i] == h && r.get() == o) {
                return ids[i];
            }
            i = (i + 1) & mask;
        }
        int id = next;
        next = (next + 1) & Integer.MAX_VALUE;
        refs[i] = new WeakReference<Object>(o);
        hashes[i] = h;
        ids[i] = id;
        if (++size * 2 > refs.length) {
            rebuild();
        }
        return id;
    }

    /** Drops collected objects; grows while under MAX, else starts again when still half full. */
    private void rebuild() {
        int live = 0;
        for (WeakReference<?> r : refs) {
            if (r != null && r.get() != null) {
                live++;
            }
        }
        int capacity = refs.length;
        if (live * 4 > capacity) {
            if (capacity / 2 >= MAX) {
                restarts++;
                live = 0;
            } else {
                capacity *= 2;
            }
        }
        WeakReference<?>[] oldRefs = refs;
        int[] oldHashes = hashes;
        int[] oldIds = ids;
        refs = new WeakReference<?>[capacity];
        hashes = new int[capacity];
        ids = new int[capacity];
        size = 0;
        if (live == 0) {
            return;
        }
        int mask = capacity - 1;
        for (int j = 0; j < oldRefs.length; j++) {
            WeakReference<?> r = oldRefs[j];
            if (r == null || r.get() == null) {
                continue;
            }
            int i = mix(oldHashes[j]) & mask;
            while (refs[i] != null) {
                i = (i + 1) & mask;
            }
            refs[i] = r;
            hashes[i] = oldHashes[j];
            ids[i] = oldIds[j];
            size++;
        }
    }

    private static int mix(int h) {
        int x = h * 0x9E3779B9;
        return x ^ (x >>> 16);
    }
}
