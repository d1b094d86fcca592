package komorium.runtime;

/**
 * The runtime of the {@code call-edges} profile kind (seed 000 §4.2): how often each call site
 * called each method, the callee being the method that actually ran after virtual dispatch.
 * Instrumented code calls {@link #call(int)} or {@link #call(Object, int)} just before the
 * invoke instruction of a site, in the code the framework runs while sampling (or always, in the
 * exhaustive layout).
 */
public final class CallEdges {
    private static final Counts.PerThread<Counts.ByPair> EDGES = new Counts.PerThread<Counts.ByPair>() {
        @Override
        Counts.ByPair create() {
            return new Counts.ByPair();
        }
    };

    static {
        Profiles.register(new Section());
    }

    private CallEdges() {
    }

    /** A call whose callee the instruction fixes: static, special, private or final. */
    public static void call(int site) {
        edge(null, site);
    }

    /** A virtual or interface call on {@code receiver}; a null receiver makes no call. */
    public static void call(Object receiver, int site) {
        if (receiver != null) {
            edge(receiver, site);
        }
    }

    /**
     * The edge from {@code site} to the callee of {@code receiver} (null: the callee the
     * instruction names). A call from the handlers above, never inlined (its length is kept above
     * FreqInlineSize, see {@link OutOfLine}; test/twin.test.ts checks it).
     */
    private static void edge(Object receiver, int site) {
        EDGES.get().add(site, receiver == null ? Callees.named(site) : Callees.of(site, receiver));
        if (OutOfLine.NEVER) {
            OutOfLine.padding = new int[] {
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
            };
        }
    }

    private static final class Section extends KindSection {
        Section() {
            super("call-edges");
        }

        @Override
        String writeRecords(ProfileFile file) {
            EdgeCounts rows = EdgeCounts.of(file, EDGES.all());
            FrameworkSection.start(file, kind());
            for (EdgeCounts.Edge e : rows.edges) {
                file.record("edge", e.site, e.callee, e.count);
            }
            return "call-edges: " + rows.calls + " calls on " + rows.edges.size() + " edges";
        }
    }
}
