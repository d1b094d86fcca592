package komorium.runtime;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link SamplingAgent} and {@link ExactAgent} share: one samples tree for all threads
 * (seed 002, §6.1), resolved with the §6.2 cache in the reified stacks, and the profile written
 * once at exit.
 */
abstract class TreeAgent implements SamplingProfiler, AgentLifecycle {
    /** Stands for a reified-stack slot that holds no identifier (which a correct transform never leaves). */
    static final MIDImpl UNKNOWN = new MIDImpl("<unknown>", "<unknown>", "()V", null, -1);

    /**
     * One thread's samples tree and counts. Each thread adds to its own tree under the tree's own
     * lock, which only {@link #shutdown} contends for: with one shared tree, threads that sample
     * at the same time fought over one monitor, and Sunflow's two render threads spent more time
     * there than in their samples (BENCHMARKS.md, "Optimizations tried"). The profile merges the
     * trees by calling context, so it is the same as one shared tree would give.
     */
    static final class ThreadTree {
        /** Root of this thread's samples tree. Guarded by {@code this}, like every field below. */
        final InvocationNode root = new InvocationNode();
        /** Approximate executed bytecodes of this thread (§7.2). */
        long totalBytecodes;
        /** Samples whose stack was truncated. */
        long truncatedSamples;
        /** The thread's random granularity generator, when the agent randomizes. */
        SamplingAgent.SplitMix generator;
    }

    private final ThreadLocal<ThreadTree> trees = new ThreadLocal<ThreadTree>();
    /** Every thread's tree. Guarded by {@code this}. */
    private final List<ThreadTree> allTrees = new ArrayList<ThreadTree>();
    /** Threads that registered. Guarded by {@code this}. */
    int threads;
    /** Contexts in all trees, not counting the roots and the markers of contexts left out. */
    private final AtomicInteger contexts = new AtomicInteger();
    private final int maxContexts = Config.maxContexts();
    private final AtomicBoolean full = new AtomicBoolean();

    private final String out;
    private final AtomicBoolean written = new AtomicBoolean();

    TreeAgent(String out) {
        this.out = out;
    }

    /** The calling thread's tree, created on its first use. */
    final ThreadTree tree() {
        ThreadTree t = trees.get();
        if (t == null) {
            t = new ThreadTree();
            trees.set(t);
            synchronized (this) {
                allTrees.add(t);
            }
        }
        return t;
    }

    /** {@code sampling} or {@code exact}. */
    abstract String name();

    /** {@code samples} or {@code bytecodes}: what a node's counter counts. */
    abstract String unit();

    abstract int granularity();

    abstract int random();

    abstract long seed();

    /**
     * The node for {@code stack[0..sp)}, created as needed; {@code 0 < sp <= stack.length}.
     * Replaces the resolved entries of the stack by their nodes, so that the next sample of this
     * thread only resolves the frames above the topmost node (seed 002, Figure 9). A truncated
     * stack ({@code outer…, <truncated>, innermost}) counts in the context {@code outer…,
     * <truncated>}: the profile format makes the marker the innermost frame, so that it is a leaf
     * under the deepest frame that was kept. Caller holds the lock of {@code tree}, the calling
     * thread's.
     */
    final InvocationNode context(ThreadTree tree, MID[] stack, int sp) {
        InvocationNode root = tree.root;
        if (sp == stack.length && sp >= 2 && isTruncationMarker(stack[sp - 2])) {
            sp--;
        }
        int i = sp - 1;
        MID top = stack[i];
        if (top instanceof InvocationNode && ((InvocationNode) top).root == root) {
            return (InvocationNode) top;
        }
        InvocationNode n = root;
        for (; i > 0; --i) {
            MID m = stack[i - 1];
            if (m instanceof InvocationNode && ((InvocationNode) m).root == root) {
                n = (InvocationNode) m;
                break;
            }
        }
        for (; i < sp; ++i) {
            MID m = key(stack[i]);
            InvocationNode c = n.callee(m);
            if (c == null) {
                if (contexts.get() >= maxContexts) {
                    // The tree is full: the sample counts under the deepest frame it already has.
                    // The frames above stay unresolved, so each such sample walks them again.
                    tooMany();
                    return n.getOrCreateCallee(MIDImpl.TRUNCATED);
                }
                c = n.getOrCreateCallee(m);
                contexts.incrementAndGet();
            }
            n = c;
            stack[i] = n;
        }
        return n;
    }

    private void tooMany() {
        if (full.compareAndSet(false, true)) {
            // A warning, quiet with komorium.quiet: the profile's truncated count records it anyway.
            Report.info("komorium: the profile holds komorium.maxContexts=" + maxContexts + " calling contexts;"
                    + " samples in new contexts count under <truncated> below their deepest known frame"
                    + " (raise it with -Dkomorium.maxContexts=N and a larger heap)");
        }
    }

    private static boolean isTruncationMarker(MID m) {
        return m == MIDImpl.TRUNCATED || (m instanceof InvocationNode && ((InvocationNode) m).mid == MIDImpl.TRUNCATED);
    }

    private static MID key(MID m) {
        if (m == null) {
            return UNKNOWN;
        }
        // A node of another agent's tree (a stack reused across agents, e.g. in tests): its method.
        return m instanceof InvocationNode ? key(((InvocationNode) m).mid) : m;
    }

    /** Clamps a stack pointer given by a caller into the array. */
    static int clamp(MID[] stack, int sp) {
        return sp > stack.length ? stack.length : sp;
    }

    /** Every thread's tree so far. */
    final synchronized List<ThreadTree> trees() {
        return new ArrayList<ThreadTree>(allTrees);
    }

    /**
     * Writes the profile, once: snapshots the trees (each under its lock, threads may still be
     * running) with the pending bytecodes (§7.2) added to the total, and writes the file.
     */
    @Override
    public void shutdown(long pendingBytecodes) {
        if (!written.compareAndSet(false, true)) {
            return;
        }
        ProfileWriter.Snapshot snapshot = ProfileWriter.snapshot(this, pendingBytecodes);
        try {
            ProfileWriter.write(new File(out), snapshot);
            Report.info("komorium: wrote " + out + " (" + name() + ": " + snapshot.describe() + ")");
        } catch (IOException | RuntimeException e) {
            Report.error("komorium: cannot write the profile " + out + ": " + e);
        }
    }
}
