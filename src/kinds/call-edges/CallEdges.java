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
        EDGES.get().add(site, Callees.named(site));
    }

    /** A virtual or interface call on {@code receiver}; a null receiver makes no call. */
    public static void call(Object receiver, int site) {
        if (receiver != null) {
            EDGES.get().add(site, Callees.of(site, receiver));
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
