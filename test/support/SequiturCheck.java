package komorium.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Checks the runtime's Sequitur and hot data stream analysis on generated sequences (run by
 * test/hps-sequitur.test.ts against the runtime jar, in the runtime's package): for every
 * sequence, the grammar expands to the sequence, no digram occurs twice, every rule but the
 * sequence is used at least twice; and a planted stream is found hot with its heat. Prints one
 * line per failure and a summary line.
 */
public final class SequiturCheck {
    private static int failures;

    public static void main(String[] args) {
        Random random = new Random(Long.parseLong(args[0]));
        int cases = Integer.parseInt(args[1]);
        int checked = 0;
        for (int c = 0; c < cases; c++) {
            int[] seq = generate(random, c);
            Sequitur g = new Sequitur();
            for (int s : seq) {
                g.append(s);
            }
            check("case " + c, g, seq);
            checked++;
            // The same grammar object, reset, must give the same result (windows reuse it).
            g.reset();
            for (int s : seq) {
                g.append(s);
            }
            check("case " + c + " after reset", g, seq);
        }
        planted(random);
        System.out.println("checked " + checked + " sequences, " + failures + " failures");
    }

    /** Random text over small alphabets, runs of one symbol, periodic sequences, burst boundaries. */
    private static int[] generate(Random random, int c) {
        int n = 1 + random.nextInt(c % 10 == 0 ? 20000 : 400);
        int alphabet = 1 + random.nextInt(c % 3 == 0 ? 2 : 12);
        int[] out = new int[n];
        int period = 1 + random.nextInt(30);
        for (int i = 0; i < n; i++) {
            switch (c % 4) {
                case 0:
                    out[i] = random.nextInt(alphabet);
                    break;
                case 1:
                    out[i] = (i % period) % (alphabet + 3);
                    break;
                case 2:
                    out[i] = random.nextInt(8) == 0 ? random.nextInt(alphabet) : (i % period);
                    break;
                default:
                    out[i] = random.nextInt(50) == 0 ? Sequitur.BOUNDARY : random.nextInt(alphabet);
            }
        }
        return out;
    }

    private static void check(String what, Sequitur g, int[] seq) {
        List<Integer> expanded = new ArrayList<Integer>();
        expand(g, 0, expanded, 0);
        boolean same = expanded.size() == seq.length;
        for (int i = 0; same && i < seq.length; i++) {
            same = expanded.get(i) == seq[i];
        }
        if (!same) {
            fail(what + ": the grammar expands to " + expanded.size() + " symbols, not the " + seq.length + " given");
            return;
        }
        Map<Long, int[]> digrams = new HashMap<Long, int[]>();
        int[] uses = new int[g.ruleCount()];
        for (int r = 0; r < g.ruleCount(); r++) {
            if (!g.isLive(r)) {
                continue;
            }
            int[] body = g.body(r);
            for (int i = 0; i < body.length; i++) {
                if (Sequitur.isRule(body[i])) {
                    uses[Sequitur.ruleOf(body[i])]++;
                }
                if (i + 1 == body.length || body[i] == Sequitur.BOUNDARY || body[i + 1] == Sequitur.BOUNDARY) {
                    continue;
                }
                long key = ((long) body[i] << 32) | (body[i + 1] & 0xffffffffL);
                int[] at = digrams.get(key);
                // Overlapping occurrences (aaa) are one.
                boolean overlap = at != null && at[0] == r && at[1] == i - 1 && body[i] == body[i + 1];
                if (at != null && !overlap) {
                    fail(what + ": digram (" + body[i] + ", " + body[i + 1] + ") in rule " + at[0] + " and rule " + r);
                    return;
                }
                if (at == null) {
                    digrams.put(key, new int[] {r, i});
                }
            }
        }
        for (int r = 1; r < g.ruleCount(); r++) {
            if (g.isLive(r) && uses[r] < 2) {
                fail(what + ": rule " + r + " is used " + uses[r] + " time(s)");
                return;
            }
        }
    }

    private static void expand(Sequitur g, int rule, List<Integer> out, int depth) {
        if (depth > 100000) {
            throw new IllegalStateException("cyclic grammar");
        }
        for (int v : g.body(rule)) {
            if (Sequitur.isRule(v)) {
                expand(g, Sequitur.ruleOf(v), out, depth + 1);
            } else {
                out.add(v);
            }
        }
    }

    /** A stream of 12 references repeated 500 times among random ones: hot, with 12 × 500 of heat. */
    private static void planted(Random random) {
        Sequitur g = new Sequitur();
        int n = 0;
        for (int round = 0; round < 500; round++) {
            for (int k = 0; k < 12; k++) {
                g.append(1000 + k);
                n++;
            }
            for (int k = 0; k < 3; k++) {
                g.append(random.nextInt(200));
                n++;
            }
        }
        List<HotStreams.Stream> hot = HotStreams.of(g, 2, 100, 0.5);
        long covering = 0;
        boolean found = false;
        for (HotStreams.Stream s : hot) {
            covering += s.heat();
            int planted = 0;
            for (int v : s.symbols) {
                planted += v >= 1000 ? 1 : 0;
            }
            found |= planted >= 12;
        }
        if (!found) {
            fail("planted: no hot stream holds the 12 planted references (" + hot.size() + " streams)");
        }
        if (covering < 0.5 * n) {
            fail("planted: the hot streams cover " + covering + " of " + n + " references, under the 50% asked for");
        }
        if (covering > n) {
            fail("planted: the hot streams cover " + covering + " references, more than the " + n + " of the sequence");
        }
    }

    private static void fail(String message) {
        failures++;
        System.out.println("FAIL " + message);
    }
}
