package komorium.runtime;

import java.util.Arrays;

/**
 * Sequitur (Nevill-Manning and Witten, "Identifying hierarchical structure in sequences: a
 * linear-time algorithm", JAIR 7, 1997): a context-free grammar of one sequence, built in linear
 * time by keeping two properties as symbols arrive: no pair of adjacent symbols (digram) appears
 * twice, and every rule is used at least twice. Each rule is a repeated subsequence, which is what
 * the hot data stream analysis (Chilimbi, PLDI 2001; Chilimbi and Hirzel, PLDI 2002) works from.
 *
 * <p>Symbols are ints in arrays (no object per symbol): a terminal is a value {@code >= 0},
 * {@link #BOUNDARY} separates two bursts and never takes part in a digram, so no rule spans two
 * bursts; rules are referred to by negative even values and their guard nodes by negative odd
 * ones. Rule 0 is the whole sequence.
 */
final class Sequitur {
    static final int BOUNDARY = -1;
    private static final int NONE = -1;

    // Nodes: doubly linked circular lists, one per rule, through its guard node.
    private int[] value = new int[1024];
    private int[] prev = new int[1024];
    private int[] next = new int[1024];
    private int nodes;
    private int freeNode = NONE;

    // Rules: guard node and number of references (rule 0 has none).
    private int[] guard = new int[64];
    private int[] refs = new int[64];
    private int rules;
    private int freeRule = NONE;

    // Digram index: the first node of each digram in the grammar, by the digram's two values.
    private long[] keys = new long[2048];
    private int[] at = new int[2048];
    private int used;
    private int filled;
    private static final int EMPTY = -1;
    private static final int DELETED = -2;

    Sequitur() {
        Arrays.fill(at, EMPTY);
        newRule();
    }

    /** Empties the grammar for the next sequence, keeping the arrays it grew. */
    void reset() {
        nodes = 0;
        freeNode = NONE;
        rules = 0;
        freeRule = NONE;
        used = 0;
        filled = 0;
        Arrays.fill(at, EMPTY);
        newRule();
    }

    static int ruleValue(int rule) {
        return -2 - 2 * rule;
    }

    static boolean isRule(int v) {
        return v <= -2 && (v & 1) == 0;
    }

    static int ruleOf(int v) {
        return (-2 - v) >> 1;
    }

    private static boolean isGuard(int v) {
        return v <= -3 && (v & 1) != 0;
    }

    /** Appends a terminal (>= 0) or a burst boundary to the sequence. */
    void append(int symbol) {
        int g = guard[0];
        int n = newNode(symbol);
        link(prev[g], n);
        link(n, g);
        check(prev[n]);
    }

    // ------------------------------------------------------------ reading the grammar

    /** Rule numbers in use (1 and up; numbers of deleted rules are skipped). */
    int ruleCount() {
        return rules;
    }

    boolean isLive(int rule) {
        return guard[rule] != NONE;
    }

    /** The symbols of a rule's right-hand side, in order. */
    int[] body(int rule) {
        int g = guard[rule];
        int n = 0;
        for (int x = next[g]; x != g; x = next[x]) {
            n++;
        }
        int[] out = new int[n];
        int i = 0;
        for (int x = next[g]; x != g; x = next[x]) {
            out[i++] = value[x];
        }
        return out;
    }

    // ------------------------------------------------------------ the two properties

    /** Enforces digram uniqueness for the digram that starts at node a; true when it changed the grammar. */
    private boolean check(int a) {
        int b = next[a];
        int va = value[a];
        int vb = value[b];
        if (isGuard(va) || isGuard(vb) || va == BOUNDARY || vb == BOUNDARY) {
            return false;
        }
        int slot = find(va, vb);
        int m = at[slot];
        if (m < 0) {
            put(slot, va, vb, a);
            return false;
        }
        if (m == a || next[m] == a || next[a] == m) {
            // Overlapping occurrences (aaa) are not a repetition.
            return false;
        }
        match(a, m);
        return true;
    }

    private void match(int a, int m) {
        int rule;
        if (isGuard(value[prev[m]]) && isGuard(value[next[next[m]]]) && value[prev[m]] != -3) {
            // The earlier occurrence is a whole rule (other than the sequence, rule 0, guard -3): reuse it.
            rule = ruleOf(value[prev[m]] + 1);
            substitute(a, rule);
        } else {
            rule = newRule();
            int g = guard[rule];
            int x = newSymbol(value[m]);
            int y = newSymbol(value[next[m]]);
            link(g, x);
            link(x, y);
            link(y, g);
            substitute(m, rule);
            substitute(a, rule);
            reindex(x);
        }
        // Rule utility: a rule that is now used once is put back where it is used.
        if (guard[rule] != NONE) {
            int first = next[guard[rule]];
            if (isRule(value[first]) && refs[ruleOf(value[first])] == 1) {
                expand(first);
            }
        }
    }

    /** Replaces the digram that starts at node a with a reference to rule. */
    private void substitute(int a, int rule) {
        int p = prev[a];
        delete(a);
        delete(next[p]);
        int r = newSymbol(ruleValue(rule));
        int q = next[p];
        link(p, r);
        link(r, q);
        if (!check(p)) {
            check(r);
        }
    }

    /** Replaces node f, the only reference to its rule, with the rule's symbols, and deletes the rule. */
    private void expand(int f) {
        int rule = ruleOf(value[f]);
        int g = guard[rule];
        int first = next[g];
        int last = prev[g];
        int left = prev[f];
        int right = next[f];
        unindex(left);
        unindex(f);
        refs[rule] = 0;
        freeNodeSlot(f);
        freeNodeSlot(g);
        guard[rule] = NONE;
        refs[rule] = freeRule;
        freeRule = rule;
        link(left, first);
        link(last, right);
        index(left);
        index(last);
    }

    /** Unlinks node n, dropping the digrams it is part of from the index. */
    private void delete(int n) {
        int p = prev[n];
        int q = next[n];
        int v = value[n];
        unindex(p);
        unindex(n);
        // Of two overlapping equal digrams (three equal symbols) only one is indexed; when n takes
        // the indexed one away, the other must be indexed instead (e.g. abbbabcbb).
        if (v != BOUNDARY && value[q] == v && value[next[q]] == v) {
            reindex(q);
        }
        if (v != BOUNDARY && value[p] == v && value[prev[p]] == v) {
            reindex(prev[p]);
        }
        link(p, q);
        if (isRule(v)) {
            refs[ruleOf(value[n])]--;
        }
        freeNodeSlot(n);
    }

    private void index(int a) {
        int b = next[a];
        if (isGuard(value[a]) || isGuard(value[b]) || value[a] == BOUNDARY || value[b] == BOUNDARY) {
            return;
        }
        int slot = find(value[a], value[b]);
        if (at[slot] < 0) {
            put(slot, value[a], value[b], a);
        }
    }

    /** Indexes the digram at a, replacing an entry for an overlapping occurrence of it. */
    private void reindex(int a) {
        int slot = find(value[a], value[next[a]]);
        if (at[slot] < 0) {
            put(slot, value[a], value[next[a]], a);
        } else {
            at[slot] = a;
        }
    }

    private void unindex(int a) {
        int b = next[a];
        if (isGuard(value[a]) || isGuard(value[b])) {
            return;
        }
        int slot = find(value[a], value[b]);
        if (at[slot] == a) {
            at[slot] = DELETED;
            used--;
        }
    }

    // ------------------------------------------------------------ storage

    private int newSymbol(int v) {
        int n = newNode(v);
        if (isRule(v)) {
            refs[ruleOf(v)]++;
        }
        return n;
    }

    private int newNode(int v) {
        int n;
        if (freeNode != NONE) {
            n = freeNode;
            freeNode = next[n];
        } else {
            if (nodes == value.length) {
                int size = value.length * 2;
                value = Arrays.copyOf(value, size);
                prev = Arrays.copyOf(prev, size);
                next = Arrays.copyOf(next, size);
            }
            n = nodes++;
        }
        value[n] = v;
        prev[n] = NONE;
        next[n] = NONE;
        return n;
    }

    private void freeNodeSlot(int n) {
        next[n] = freeNode;
        value[n] = BOUNDARY;
        freeNode = n;
    }

    private int newRule() {
        int r;
        if (freeRule != NONE) {
            r = freeRule;
            freeRule = refs[r];
        } else {
            if (rules == guard.length) {
                guard = Arrays.copyOf(guard, rules * 2);
                refs = Arrays.copyOf(refs, rules * 2);
            }
            r = rules++;
        }
        int g = newNode(-3 - 2 * r);
        link(g, g);
        guard[r] = g;
        refs[r] = 0;
        return r;
    }

    private void link(int a, int b) {
        next[a] = b;
        prev[b] = a;
    }

    private static long key(int a, int b) {
        return ((long) a << 32) | (b & 0xffffffffL);
    }

    /** The slot of digram (a, b): where it is, or the empty slot where it would go. */
    private int find(int a, int b) {
        long k = key(a, b);
        int mask = keys.length - 1;
        int i = mix(k) & mask;
        int tomb = -1;
        while (true) {
            int v = at[i];
            if (v == EMPTY) {
                return tomb >= 0 ? tomb : i;
            }
            if (v == DELETED) {
                if (tomb < 0) {
                    tomb = i;
                }
            } else if (keys[i] == k) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    private void put(int slot, int a, int b, int node) {
        if (at[slot] == EMPTY) {
            filled++;
        }
        keys[slot] = key(a, b);
        at[slot] = node;
        used++;
        if (filled * 2 > keys.length) {
            rehash(used * 4 > keys.length ? keys.length * 2 : keys.length);
        }
    }

    private void rehash(int size) {
        long[] oldKeys = keys;
        int[] oldAt = at;
        keys = new long[size];
        at = new int[size];
        Arrays.fill(at, EMPTY);
        filled = 0;
        used = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldAt[i] >= 0) {
                int slot = find((int) (oldKeys[i] >> 32), (int) oldKeys[i]);
                keys[slot] = oldKeys[i];
                at[slot] = oldAt[i];
                filled++;
                used++;
            }
        }
    }

    private static int mix(long k) {
        long h = k * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29));
    }
}
