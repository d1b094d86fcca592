package komorium.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * (call site, method that ran) counts of all threads as the rows of a section: runtime numbers
 * that name the same site or method (a class loaded twice, a callee registered once per receiver
 * class) are one edge, and edges are in (site, callee) order, the order of the ids the file gives
 * them.
 */
final class EdgeCounts {
    static final class Edge {
        final ProfileFile.SiteKey site;
        final ProfileFile.MethodKey callee;
        final long count;

        Edge(ProfileFile.SiteKey site, ProfileFile.MethodKey callee, long count) {
            this.site = site;
            this.callee = callee;
            this.count = count;
        }
    }

    final List<Edge> edges = new ArrayList<Edge>();
    long calls;

    private EdgeCounts() {
    }

    static EdgeCounts of(ProfileFile file, List<Counts.ByPair> tables) {
        Map<Long, long[]> sum = new HashMap<Long, long[]>();
        for (Counts.ByPair t : tables) {
            t.sumInto(sum);
        }
        Map<List<Object>, long[]> byKey = new HashMap<List<Object>, long[]>();
        EdgeCounts out = new EdgeCounts();
        for (Map.Entry<Long, long[]> e : sum.entrySet()) {
            long key = e.getKey();
            List<Object> k = Arrays.<Object>asList(file.site((int) (key >>> 32)), file.method((int) key));
            long[] c = byKey.get(k);
            if (c == null) {
                byKey.put(k, new long[] {e.getValue()[0]});
            } else {
                c[0] += e.getValue()[0];
            }
            out.calls += e.getValue()[0];
        }
        for (Map.Entry<List<Object>, long[]> e : byKey.entrySet()) {
            out.edges.add(new Edge((ProfileFile.SiteKey) e.getKey().get(0), (ProfileFile.MethodKey) e.getKey().get(1), e.getValue()[0]));
        }
        Collections.sort(out.edges, new Comparator<Edge>() {
            @Override
            public int compare(Edge a, Edge b) {
                int c = a.site.compareTo(b.site);
                return c != 0 ? c : a.callee.compareTo(b.callee);
            }
        });
        return out;
    }
}
