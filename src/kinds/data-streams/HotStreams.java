package komorium.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Hot data streams of one trace (Chilimbi, PLDI 2001 §3; Chilimbi and Hirzel, PLDI 2002 §2.2):
 * the rules of the trace's Sequitur grammar are its repeated subsequences. A rule's heat is its
 * length times its cold uses, the times it occurs in the trace outside an occurrence of a hotter
 * rule that contains it (rules are visited parents first, in reverse postorder of the grammar's
 * DAG); a rule is a hot data stream when its length is between minLength and maxLength, it occurs
 * at least twice, and its heat reaches the threshold H. H is the largest for which the hot data
 * streams together cover {@code coverage} of the trace's references (90% in both papers), or the
 * lowest when no threshold covers that much.
 */
final class HotStreams {
    /** One hot data stream: its references (terminal symbols) and how often it ran cold. */
    static final class Stream {
        final int[] symbols;
        final long coldUses;

        Stream(int[] symbols, long coldUses) {
            this.symbols = symbols;
            this.coldUses = coldUses;
        }

        long heat() {
            return (long) symbols.length * coldUses;
        }
    }

    private final int[][] bodies;
    /** Live rules, parents before children. */
    private final int[] order;
    private final long[] length;
    private final int minLength;
    private final int maxLength;
    private final long[] cold;
    private final boolean[] hot;
    /** References the trace holds (terminals of rule 0). */
    final long references;
    /** Share of the references the chosen hot streams cover. */
    double covered;

    private HotStreams(Sequitur g, int minLength, int maxLength) {
        this.minLength = minLength;
        this.maxLength = maxLength;
        int n = g.ruleCount();
        bodies = new int[n][];
        for (int r = 0; r < n; r++) {
            bodies[r] = g.isLive(r) ? g.body(r) : null;
        }
        order = reversePostorder();
        length = new long[n];
        for (int i = order.length - 1; i >= 0; i--) {
            int r = order[i];
            long len = 0;
            for (int v : bodies[r]) {
                len += v >= 0 ? 1 : Sequitur.isRule(v) ? length[Sequitur.ruleOf(v)] : 0;
            }
            length[r] = len;
        }
        references = length[0];
        cold = new long[n];
        hot = new boolean[n];
    }

    /** The hot data streams of the grammar's sequence. */
    static List<Stream> of(Sequitur g, int minLength, int maxLength, double coverage) {
        HotStreams h = new HotStreams(g, minLength, maxLength);
        return h.find(coverage);
    }

    private List<Stream> find(double coverage) {
        long[] thresholds = candidates();
        if (thresholds.length == 0 || references == 0) {
            return new ArrayList<Stream>();
        }
        // Coverage grows as the threshold falls: the first (highest) threshold that covers enough.
        int lo = 0;
        int hi = thresholds.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cover(thresholds[mid]) >= coverage * references) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        covered = (double) cover(thresholds[lo]) / references;
        List<Stream> out = new ArrayList<Stream>();
        for (int r : order) {
            if (hot[r]) {
                out.add(new Stream(expand(r), cold[r]));
            }
        }
        return out;
    }

    /** The distinct heats rules of a fitting length would have with no hot ancestor, highest first. */
    private long[] candidates() {
        cover(Long.MAX_VALUE);
        long[] heats = new long[order.length];
        int n = 0;
        for (int r : order) {
            if (r != 0 && fits(r) && cold[r] >= 2) {
                heats[n++] = length[r] * cold[r];
            }
        }
        long[] sorted = Arrays.copyOf(heats, n);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = sorted.length - 1; i >= 0; i--) {
            if (distinct == 0 || sorted[i] != sorted[distinct - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, distinct);
    }

    private boolean fits(int r) {
        return length[r] >= minLength && length[r] <= maxLength;
    }

    /** Marks the hot rules at threshold h; returns the references they cover. */
    private long cover(long h) {
        Arrays.fill(cold, 0);
        Arrays.fill(hot, false);
        cold[0] = 1;
        long covered = 0;
        for (int r : order) {
            long c = cold[r];
            if (r != 0 && c >= 2 && fits(r) && length[r] * c >= h) {
                hot[r] = true;
                covered += length[r] * c;
                continue;
            }
            if (c == 0) {
                continue;
            }
            for (int v : bodies[r]) {
                if (Sequitur.isRule(v)) {
                    cold[Sequitur.ruleOf(v)] += c;
                }
            }
        }
        return covered;
    }

    /** Live rules reachable from rule 0, each after every rule that uses it. */
    private int[] reversePostorder() {
        int n = bodies.length;
        int[] post = new int[n];
        int count = 0;
        boolean[] seen = new boolean[n];
        int[] stack = new int[n];
        int[] pos = new int[n];
        int sp = 0;
        stack[sp++] = 0;
        seen[0] = true;
        while (sp > 0) {
            int r = stack[sp - 1];
            int[] body = bodies[r];
            boolean pushed = false;
            while (pos[r] < body.length) {
                int v = body[pos[r]++];
                if (Sequitur.isRule(v) && !seen[Sequitur.ruleOf(v)]) {
                    int c = Sequitur.ruleOf(v);
                    seen[c] = true;
                    stack[sp++] = c;
                    pushed = true;
                    break;
                }
            }
            if (!pushed) {
                post[count++] = r;
                sp--;
            }
        }
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = post[count - 1 - i];
        }
        return out;
    }

    /** The terminals a rule stands for (at most maxLength of them: hot rules are no longer). */
    private int[] expand(int rule) {
        int[] out = new int[(int) length[rule]];
        int n = 0;
        int[] stack = new int[64];
        int[] pos = new int[64];
        int sp = 0;
        stack[sp++] = rule;
        while (sp > 0) {
            int r = stack[sp - 1];
            if (pos[sp - 1] == bodies[r].length) {
                pos[--sp] = 0;
                continue;
            }
            int v = bodies[r][pos[sp - 1]++];
            if (v >= 0) {
                out[n++] = v;
            } else if (Sequitur.isRule(v)) {
                if (sp == stack.length) {
                    stack = Arrays.copyOf(stack, sp * 2);
                    pos = Arrays.copyOf(pos, sp * 2);
                }
                stack[sp++] = Sequitur.ruleOf(v);
            }
        }
        return out;
    }
}
