import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import komorium.runtime.AgentLifecycle;
import komorium.runtime.MID;
import komorium.runtime.SamplingProfiler;

/**
 * An example of a custom profiling agent: a flat histogram of the method on top of each sampled
 * stack (the "self time" view), printed on standard error at exit.
 *
 * <p>Run an instrumented program with it:
 * {@code java -Dkomorium.agent=HotMethodsAgent -cp app-instrumented.jar:agent-classes Main}.
 * Keep the agent's classes out of the instrumented jar: an agent is profiling infrastructure.
 */
public class HotMethodsAgent implements SamplingProfiler, AgentLifecycle {
    /** Samples per top-of-stack method; keyed by identifier, merged by name at exit. */
    private final Map<Integer, long[]> counts = new HashMap<Integer, long[]>();
    private long samples;
    private long bytecodes;
    private final int granularity = Integer.getInteger("komorium.granularity", 10000);

    @Override
    public int register(Thread t) {
        return granularity;
    }

    @Override
    public synchronized int processSample(int[] stack, int sp, int executed) {
        // Only the top entry is read, and nothing of the array is kept after returning.
        if (sp > 0) {
            long[] c = counts.get(stack[sp - 1]);
            if (c == null) {
                counts.put(stack[sp - 1], c = new long[1]);
            }
            c[0]++;
            samples++;
        }
        bytecodes += Integer.toUnsignedLong(executed);
        return granularity;
    }

    @Override
    public void shutdown(long pendingBytecodes) {
        Map<String, Long> byName = new HashMap<String, Long>();
        long total;
        long all;
        synchronized (this) {
            for (Map.Entry<Integer, long[]> e : counts.entrySet()) {
                String name = MID.toString(e.getKey());
                Long old = byName.get(name);
                byName.put(name, (old == null ? 0 : old) + e.getValue()[0]);
            }
            total = samples;
            all = bytecodes + pendingBytecodes;
        }
        List<Map.Entry<String, Long>> rows = new ArrayList<Map.Entry<String, Long>>(byName.entrySet());
        // By count, then by name: deterministic output for deterministic programs.
        Collections.sort(rows, (a, b) -> a.getValue().equals(b.getValue())
                ? a.getKey().compareTo(b.getKey()) : Long.compare(b.getValue(), a.getValue()));
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("hot methods: %d samples, ~%d bytecodes%n", total, all));
        for (int i = 0; i < rows.size() && i < 10; i++) {
            Map.Entry<String, Long> r = rows.get(i);
            sb.append(String.format("%6.2f%% %8d  %s%n", 100.0 * r.getValue() / Math.max(1, total), r.getValue(), r.getKey()));
        }
        System.err.print(sb);
        System.err.flush();
    }
}
