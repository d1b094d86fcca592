package komorium.runtime;

/**
 * The exact agent ({@code -Dkomorium.agent=exact}): the ground truth that sampling profiles are
 * compared against (seed 002, §7.1).
 *
 * <p>It asks for granularity 1, so every granularity check calls it, and it adds the bytecodes
 * executed since the previous check to the context of the current stack. Node counters therefore
 * count bytecodes (unit {@code bytecodes}), not samples. Bytecodes of blocks without a check are
 * attributed at the next check, which lies in the same method (checks guard every call, return,
 * throw and loop header, §5.2). Slow by design: use it on small inputs.
 */
public final class ExactAgent extends TreeAgent {

    /** Writes {@code komorium.out} (see {@link Config}). */
    public ExactAgent() {
        this(Config.out());
    }

    /** @param out the profile file {@link #shutdown(long)} writes */
    public ExactAgent(String out) {
        super(out);
    }

    @Override
    public synchronized int register(Thread t) {
        threads++;
        return 1;
    }

    @Override
    int sample(int[] stack, int sp, int bytecodes, int lineDelta, TC tc) {
        if (!recording) {
            return 1;
        }
        long b = Integer.toUnsignedLong(bytecodes);
        sp = clamp(stack, sp);
        synchronized (this) {
            if (sp > 0) {
                InvocationNode n = context(stack, sp, tc, b);
                n.add(b, threadNumber(tc), line(n, lineDelta));
                if (n.truncated) {
                    truncatedSamples++;
                }
            }
            totalBytecodes += b;
        }
        return 1;
    }

    @Override
    String name() {
        return "exact";
    }

    @Override
    String unit() {
        return "bytecodes";
    }

    @Override
    int granularity() {
        return 1;
    }

    @Override
    int random() {
        return 0;
    }

    @Override
    long seed() {
        return 0;
    }
}
