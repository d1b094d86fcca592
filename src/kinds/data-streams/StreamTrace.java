package komorium.runtime;

import java.util.Arrays;
import java.util.List;

/**
 * One thread's trace of data references, analysed a window at a time: each reference (site,
 * object number, array index) becomes a symbol of the window, a burst boundary becomes
 * {@link Sequitur#BOUNDARY}, and a full window is turned into a grammar and its hot data streams,
 * which go to the {@link StreamTable}, so that memory stays bounded however long the program runs
 * (the dynamic scheme of Chilimbi and Hirzel, PLDI 2002, analyses each profiling phase alike).
 * With {@code komorium.streams.every} K above 1, only one window in K is analysed and the
 * references of the others are only counted: a stated sample of the trace, for programs whose
 * exhaustive trace would take hours to analyse.
 * Only its own thread writes a trace; the exit hook reads a copy of what is left.
 */
final class StreamTrace {
    static final int WINDOW = KindOptions.STREAMS_WINDOW;
    /** Analyse one window in EVERY; the references of the others are only counted. */
    static final int EVERY = KindOptions.STREAMS_EVERY;
    static final int MIN_LENGTH = KindOptions.STREAMS_MIN_LENGTH;
    static final int MAX_LENGTH = KindOptions.STREAMS_MAX_LENGTH;
    /** Share of a window's references its hot data streams must cover (both papers: 90%). */
    static final double COVERAGE = 0.9;

    private final ObjectIds objects = new ObjectIds();
    /** Grows up to WINDOW: a thread that records little keeps little (a trace outlives its thread). */
    private int[] trace = new int[1024];
    private int length;
    private long epoch = Long.MIN_VALUE;
    /** References counted in the current window that is not analysed, and the window's number. */
    private int skipped;
    private long windowNumber;
    /**
     * One grammar for all threads, kept from window to window: its arrays are the bulk of what an
     * analysis allocates. Threads analyse one at a time, which bounds that memory whatever the
     * number of threads; a window is analysed once every WINDOW references of a thread.
     */
    private static final Sequitur GRAMMAR = new Sequitur();

    // The window's symbols: (site, object, index) by symbol number, and an index to find them.
    private int[] sites = new int[1024];
    private int[] objs = new int[1024];
    private int[] indices = new int[1024];
    private int symbols;
    private int[] table = new int[2048];

    StreamTrace() {
        Arrays.fill(table, -1);
    }

    void add(int site, Object o, int index, long now) {
        if (windowNumber % EVERY != 0) {
            if (++skipped == WINDOW) {
                StreamTable.skipped(WINDOW);
                skipped = 0;
                windowNumber++;
            }
            return;
        }
        if (now != epoch) {
            epoch = now;
            if (length > 0 && trace[length - 1] != Sequitur.BOUNDARY) {
                append(Sequitur.BOUNDARY);
            }
        }
        append(intern(site, o == null ? -1 : objects.of(o), index));
    }

    private void append(int symbol) {
        if (length == trace.length) {
            trace = Arrays.copyOf(trace, Math.min(WINDOW, 2 * length));
        }
        trace[length++] = symbol;
        if (length == WINDOW) {
            synchronized (GRAMMAR) {
                GRAMMAR.reset();
                analyse(GRAMMAR, trace, length, new int[][] {sites, objs, indices}, true);
            }
            length = 0;
            symbols = 0;
            windowNumber++;
            Arrays.fill(table, -1);
        }
    }

    /** Times the thread's object numbers started again (ObjectIds.MAX live objects). */
    int idRestarts() {
        return objects.restarts;
    }

    /** The window so far, for the exit hook (a racy copy: the thread may still run). */
    void flush() {
        StreamTable.skipped(skipped);
        int[] t = trace;
        int n = Math.min(length, t.length);
        synchronized (GRAMMAR) {
            GRAMMAR.reset();
            analyse(GRAMMAR, Arrays.copyOf(t, n), n, new int[][] {sites, objs, indices}, false);
        }
    }

    private static void analyse(Sequitur g, int[] window, int n, int[][] names, boolean byOwner) {
        for (int i = 0; i < n; i++) {
            g.append(window[i]);
        }
        int references = 0;
        for (int i = 0; i < n; i++) {
            if (window[i] != Sequitur.BOUNDARY) {
                references++;
            }
        }
        List<HotStreams.Stream> hot = HotStreams.of(g, MIN_LENGTH, MAX_LENGTH, COVERAGE);
        int[][] keys = new int[hot.size()][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = pattern(hot.get(i).symbols, names);
        }
        StreamTable.window(references, hot, keys, byOwner);
    }

    /**
     * The stream as (site, object, index) triples with object numbers replaced by their order of
     * first appearance in the stream (0, 1, ...; -1 stays a static field): what two runs, whose
     * numbers differ, can compare. Null when the racy copy names a symbol it does not hold.
     */
    static int[] pattern(int[] stream, int[][] names) {
        int[] key = new int[stream.length * 3];
        int[] seen = new int[stream.length];
        int distinct = 0;
        for (int i = 0; i < stream.length; i++) {
            int s = stream[i];
            if (s < 0 || s >= names[0].length || s >= names[1].length || s >= names[2].length) {
                return null;
            }
            int obj = names[1][s];
            int rel = -1;
            if (obj >= 0) {
                for (int j = 0; j < distinct && rel < 0; j++) {
                    if (seen[j] == obj) {
                        rel = j;
                    }
                }
                if (rel < 0) {
                    seen[distinct] = obj;
                    rel = distinct++;
                }
            }
            key[3 * i] = names[0][s];
            key[3 * i + 1] = rel;
            key[3 * i + 2] = names[2][s];
        }
        return key;
    }

    /** The window's number for (site, object, index), a new one when first met. */
    private int intern(int site, int obj, int index) {
        int mask = table.length - 1;
        int i = mix(site, obj, index) & mask;
        for (int s = table[i]; s >= 0; s = table[i]) {
            if (sites[s] == site && objs[s] == obj && indices[s] == index) {
                return s;
            }
            i = (i + 1) & mask;
        }
        int s = symbols++;
        if (s == sites.length) {
            sites = Arrays.copyOf(sites, s * 2);
            objs = Arrays.copyOf(objs, s * 2);
            indices = Arrays.copyOf(indices, s * 2);
        }
        sites[s] = site;
        objs[s] = obj;
        indices[s] = index;
        table[i] = s;
        if (symbols * 2 > table.length) {
            grow();
        }
        return s;
    }

    private void grow() {
        table = new int[table.length * 2];
        Arrays.fill(table, -1);
        int mask = table.length - 1;
        for (int s = 0; s < symbols; s++) {
            int i = mix(sites[s], objs[s], indices[s]) & mask;
            while (table[i] >= 0) {
                i = (i + 1) & mask;
            }
            table[i] = s;
        }
    }

    private static int mix(int a, int b, int c) {
        int h = a * 0x9E3779B9 + b * 0x85EBCA6B + c * 0xC2B2AE35;
        return h ^ (h >>> 15);
    }
}
