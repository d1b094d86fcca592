package komorium.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    private static final class Edge {
        final ProfileFile.SiteKey site;
        final ProfileFile.MethodKey callee;
        final long count;

        Edge(ProfileFile.SiteKey site, ProfileFile.MethodKey callee, long count) {
            this.site = site;
            this.callee = callee;
            this.count = count;
        }
    }

    private static final class Section implements Profiles.Section {
        private String description = "";

        @Override
        public String kind() {
            return "call-edges";
        }

        @Override
        public String describe() {
            return description;
        }

        @Override
        public void write(ProfileFile file) {
            Map<Long, long[]> sum = new HashMap<Long, long[]>();
            for (Counts.ByPair t : EDGES.all()) {
                t.sumInto(sum);
            }
            List<Edge> edges = new ArrayList<Edge>(sum.size());
            long calls = 0;
            for (Map.Entry<Long, long[]> e : sum.entrySet()) {
                long key = e.getKey();
                edges.add(new Edge(file.site((int) (key >>> 32)), file.method((int) key), e.getValue()[0]));
                calls += e.getValue()[0];
            }
            // Sorted by key, which is the order of the ids the file gives them.
            Collections.sort(edges, new Comparator<Edge>() {
                @Override
                public int compare(Edge a, Edge b) {
                    int c = a.site.compareTo(b.site);
                    return c != 0 ? c : a.callee.compareTo(b.callee);
                }
            });
            FrameworkSection.start(file, kind());
            for (Edge e : edges) {
                file.record("edge", e.site, e.callee, e.count);
            }
            description = "call-edges: " + calls + " calls on " + edges.size() + " edges";
        }
    }
}
