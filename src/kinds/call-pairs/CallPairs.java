package komorium.runtime;

/**
 * The runtime of the {@code call-pairs} profile kind (seed 001 §4.3, Figure 5): each call with
 * its caller and the method that actually ran after virtual dispatch. Recorded per call site (the
 * paper's pairs are call site and target), so that the report can give the line of each call;
 * the accuracy compares (caller, callee) pairs.
 */
public final class CallPairs {
    private static final Counts.PerThread<Counts.ByPair> PAIRS = new Counts.PerThread<Counts.ByPair>() {
        @Override
        Counts.ByPair create() {
            return new Counts.ByPair();
        }
    };

    static {
        Profiles.register(new Section());
    }

    private CallPairs() {
    }

    /** A call whose callee the instruction fixes: static, special, private or final. */
    public static void call(int site) {
        PAIRS.get().add(site, Callees.named(site));
    }

    /** A virtual or interface call on {@code receiver}; a null receiver makes no call. */
    public static void call(Object receiver, int site) {
        if (receiver != null) {
            PAIRS.get().add(site, Callees.of(site, receiver));
        }
    }

    private static final class Section extends KindSection {
        Section() {
            super("call-pairs");
        }

        @Override
        String writeRecords(ProfileFile file) {
            EdgeCounts rows = EdgeCounts.of(file, PAIRS.all());
            BurstSection.start(file, kind());
            for (EdgeCounts.Edge e : rows.edges) {
                file.record("pair", e.site, e.callee, e.count);
            }
            return "call-pairs: " + rows.calls + " calls on " + rows.edges.size() + " call site and callee pairs";
        }
    }
}
