package komorium.runtime;

/**
 * Call lines ({@code instrument}'s default; not with {@code --no-call-lines}): the frames of one
 * thread's reified stack as the agent resolved them at its last sample, so that each context's
 * inclusive counter can be split by the line its caller called it from while the samples tree
 * keeps one context per method.
 *
 * <p>A tree keyed by call line as well (a context per line of every frame above it) would take a
 * sample in O(1) too, but holds one context per distinct chain of call lines: 2.5 times the method
 * contexts on Rhino, so {@code komorium.maxContexts} cut its exact profile short. Here a frame's
 * caller cannot change its line while the frame runs (it is suspended in the call), so the
 * counter of a frame, from the sample that first saw it to the one that sees it gone, all goes to
 * the one line its caller called from: {@link #cut} adds that difference once per frame, not once
 * per sample and frame. The frames a sample sees again are the ones whose stack slots still hold
 * the agent's cache entries (§6.2), which a push or a call line's store overwrites.
 *
 * <p>One per thread and agent; the agent's lock guards it.
 */
final class CallPath {
    final Thread thread;
    /** The reified stack resolved last; its slots below {@link #depth} hold the agent's cache entries. */
    int[] stack;
    /** Frames resolved at the last sample: their contexts, what their slots held, their call lines. */
    private InvocationNode[] nodes = new InvocationNode[16];
    private int[] raw = new int[16];
    private int[] lines = new int[16];
    /** {@link #counted} when frame d was first seen (with its caller at {@code lines[d - 1]}). */
    private long[] start = new long[16];
    int depth;
    /** Samples (or bytecodes) of this thread so far. */
    long counted;

    CallPath(Thread thread) {
        this.thread = thread;
    }

    /** Frames {@code from} and up are gone: each one's counter since it was first seen goes to its caller's line. */
    void cut(int from) {
        for (int d = from < 1 ? 1 : from; d < depth; d++) {
            long c = counted - start[d];
            if (lines[d - 1] >= 0 && c > 0 && nodes[d] != null) {
                nodes[d].addCall(lines[d - 1], c);
            }
        }
        if (from < depth) {
            depth = from;
        }
    }

    /**
     * The context frame {@code d} had at the last sample if it was the callee {@code m} of
     * {@code parent} there, else null: the frames below it are the same, so that is the context
     * it has now, and the tree need not be searched.
     */
    InvocationNode known(int d, InvocationNode parent, int m) {
        InvocationNode n = d < depth ? nodes[d] : null;
        return n != null && n.parent == parent && n.mid == m ? n : null;
    }

    /**
     * Frame {@code d} (the frames below it known) was resolved to context {@code n}, its slot held
     * {@code slot}, it calls from {@code line}. The same context as at the last sample under the
     * same frames is kept open: whether it is the same call or a new one from the same line of the
     * same caller, its counter since then goes to that line. Where its own line changed, the frames
     * above, called from the old line, are closed.
     */
    void resolved(int d, InvocationNode n, int slot, int line) {
        if (d < depth && nodes[d] == n) {
            raw[d] = slot;
            if (lines[d] != line) {
                cut(d + 1);
                lines[d] = line;
            }
            return;
        }
        cut(d);
        open(d, n, slot, line);
    }

    /** Frame {@code d} (the frames below it are known) is context {@code n}, its slot held {@code slot}, it calls from {@code line}. */
    void open(int d, InvocationNode n, int slot, int line) {
        if (d == nodes.length) {
            int size = 2 * d;
            nodes = java.util.Arrays.copyOf(nodes, size);
            raw = java.util.Arrays.copyOf(raw, size);
            lines = java.util.Arrays.copyOf(lines, size);
            start = java.util.Arrays.copyOf(start, size);
        }
        nodes[d] = n;
        raw[d] = slot;
        lines[d] = line;
        start[d] = counted;
        depth = d + 1;
    }

    /** Adds what the open frames counted so far to their call lines (the profile is written now). */
    void settle() {
        int d = depth;
        cut(0);
        depth = d;
        restart();
    }

    /** The open frames start counting from now (the profile was reset). */
    void restart() {
        for (int d = 0; d < depth; d++) {
            start[d] = counted;
        }
    }

    /**
     * The thread left {@link #stack} for another one (a fresh stack of a nested entry): its frames
     * are closed and its slots get back what they held, so that a later sample of it resolves
     * every frame again, with its call line.
     */
    void leave() {
        for (int d = 0; d < depth; d++) {
            if (nodes[d] != null && stack[d] == ~nodes[d].index) {
                stack[d] = raw[d];
            }
        }
        cut(0);
        stack = null;
    }
}
