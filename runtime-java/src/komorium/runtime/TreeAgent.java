package komorium.runtime;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What {@link SamplingAgent} and {@link ExactAgent} share: one samples tree for all threads
 * (seed 002, §6.1), resolved with the §6.2 cache in the reified stacks, and the profile written
 * once at exit.
 */
abstract class TreeAgent implements SamplingProfiler, AgentLifecycle {
    /** Root of the samples tree. Guarded by {@code this}, like every mutable field below. */
    final InvocationNode root = new InvocationNode(0);
    /** Every node by its index; a stack slot holding {@code ~i} stands for {@code nodes[i]}. */
    private InvocationNode[] nodes = {root};
    private int nodeCount = 1;
    /** Approximate executed bytecodes of all threads (§7.2). */
    long totalBytecodes;
    /** Samples whose stack was truncated. */
    long truncatedSamples;
    /** Threads that registered. */
    int threads;
    /** Contexts in the tree, not counting the root and the markers of contexts left out. */
    int contexts;
    private final int maxContexts = Config.maxContexts();
    private boolean full;

    /** False while {@link Control#stop} holds recording: samples are then neither counted nor kept. */
    volatile boolean recording = Config.startRecording();

    private final AtomicBoolean finished = new AtomicBoolean();
    private final String out;
    /** Set when the runtime installed this agent: its tree then goes into the run's one profile file. */
    volatile boolean inRunProfile;

    static {
        // Initialized with the agent whether or not the program has call lines: linking a class
        // in the middle of the run draws an identity hash code on the thread that samples, and a
        // program whose hash tables order by identity (jflex's) would run differently with call lines.
        new CallPath(null);
    }

    TreeAgent(String out) {
        this.out = out;
    }

    /** Thread names in the order first seen; a thread's number is its index. Guarded by {@code this}. */
    private final java.util.List<String> threadNames = new java.util.ArrayList<String>();
    private final java.util.Map<String, Integer> threadNumbers = new java.util.HashMap<String, Integer>();

    /**
     * {@link #processSample} with what the runtime knows beside the stack: where the block that ran
     * is, as its line's distance from the first line of the method ({@code -1} when unknown; see
     * {@link #line}), and the sampled thread's context (null for a program that drives the agent
     * itself).
     */
    abstract int sample(int[] stack, int sp, int bytecodes, int lineDelta, TC tc);

    /**
     * The source line of a block {@code lineDelta} lines below the first line of the method of the
     * context {@code n} ran in (checks pass the distance, which is a shorter constant than the line);
     * -1 when unknown.
     */
    static int line(InvocationNode n, int lineDelta) {
        if (lineDelta < 0) {
            return -1;
        }
        MID m = MID.get(n.mid);
        return m == null || m.getFirstLine() < 0 ? -1 : m.getFirstLine() + lineDelta;
    }

    @Override
    public final int processSample(int[] stack, int sp, int bytecodes) {
        return sample(stack, sp, bytecodes, -1, null);
    }

    /**
     * The number of the sampled thread's name. A thread keeps its number while its name stays the
     * same object, so the lookup is a comparison on most samples. Caller holds the lock.
     */
    final int threadNumber(TC tc) {
        Thread t = tc != null ? tc.thread : Thread.currentThread();
        String name = t.getName();
        if (tc != null && tc.threadName == name) {
            return tc.threadId;
        }
        Integer known = threadNumbers.get(name);
        if (known == null) {
            known = threadNames.size();
            threadNames.add(name);
            threadNumbers.put(name, known);
        }
        if (tc != null) {
            tc.threadName = name;
            tc.threadId = known;
        }
        return known;
    }

    /** The name of thread number {@code i}. Caller holds the lock. */
    final String threadName(int i) {
        return i >= 0 && i < threadNames.size() ? threadNames.get(i) : null;
    }

    /**
     * Zeroes every context's counters and the totals ({@link Control#reset}). Contexts stay in the
     * tree, so that the node numbers threads cache in their stacks (§6.2) stay valid; the profile
     * leaves out contexts that counted nothing. Caller holds the lock.
     */
    final void zero() {
        for (int i = 0; i < nodeCount; i++) {
            InvocationNode n = nodes[i];
            n.counter = 0;
            if (n.self != null) {
                n.self.clear();
            }
            if (n.calls != null) {
                n.calls.clear();
            }
        }
        for (CallPath p : callPaths) {
            p.restart();
        }
        totalBytecodes = 0;
        truncatedSamples = 0;
    }

    /** Contexts created so far, numbered 0 (the root) … nodeCount() - 1, parents before children. Caller holds the lock. */
    final int nodeCount() {
        return nodeCount;
    }

    final InvocationNode nodeAt(int i) {
        return nodes[i];
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
     * Replaces the resolved entries of the stack by {@code ~index} of their nodes, so that the next
     * sample of this thread only resolves the frames above the topmost node (seed 002, Figure 9).
     * A truncated stack ({@code outer…, <truncated>, innermost}) counts in the context {@code
     * outer…, <truncated>}: the profile format makes the marker the innermost frame, so that it is
     * a leaf under the deepest frame that was kept. A frame that holds the identifier of one of its
     * method's call lines is that method's context; {@code count} (what the sample adds) then goes
     * to the call lines too ({@link CallPath}). Caller holds the lock.
     */
    final InvocationNode context(int[] stack, int sp, TC tc, long count) {
        if (sp == stack.length && sp >= 2 && isTruncationMarker(stack[sp - 2])) {
            sp--;
        }
        CallPath path = MID.hasCallLines() ? callPath(stack, tc) : null;
        // The frames below the topmost node are the ones the last sample saw.
        int i = sp;
        while (i > 0 && node(stack[i - 1]) == null) {
            i--;
        }
        InvocationNode n = i == 0 ? root : node(stack[i - 1]);
        if (path != null) {
            seen(path, stack, i);
        }
        for (; i < sp; ++i) {
            // A negative entry that is no node of ours (a stack another agent wrote into) names no method.
            int slot = stack[i];
            MID mid = slot < 0 ? null : MID.get(slot);
            int m = slot < 0 ? MID.UNKNOWN : mid == null ? slot : mid.getMethod();
            // A frame whose slot a call line's store overwrote is usually the one the path still holds.
            InvocationNode c = path != null ? path.known(i, n, m) : null;
            if (c == null) {
                c = n.callee(m);
            }
            if (c == null) {
                if (contexts >= maxContexts) {
                    // The tree is full: the sample counts under the deepest frame it already has.
                    // The frames above stay unresolved, so each such sample walks them again.
                    tooMany();
                    InvocationNode t = n.callee(MID.TRUNCATED);
                    if (path != null) {
                        path.cut(i);
                        path.counted += count;
                    }
                    return t != null ? t : add(n, MID.TRUNCATED);
                }
                c = add(n, m);
                contexts++;
            }
            n = c;
            stack[i] = ~n.index;
            if (path != null) {
                path.resolved(i, n, slot, mid == null ? -1 : mid.getCallLine());
            }
        }
        if (path != null) {
            path.cut(sp);
            path.counted += count;
        }
        return n;
    }

    /** Call lines of the threads sampled so far, for {@link #settleCallLines}. Guarded by {@code this}. */
    private final java.util.List<CallPath> callPaths = new java.util.ArrayList<CallPath>();
    private int prunePathsAt = 16;
    /** This agent's {@link CallPath} of each thread, for samples without a {@link TC}. */
    private final ThreadLocal<CallPath> ownPaths = new ThreadLocal<CallPath>();

    /** The thread's {@link CallPath}, moved to {@code stack} if the thread sampled another one last. */
    private CallPath callPath(int[] stack, TC tc) {
        CallPath p = tc != null && tc.callPathOwner == this ? tc.callPath : ownPaths.get();
        if (p == null) {
            p = new CallPath(Thread.currentThread());
            ownPaths.set(p);
            if (callPaths.size() == prunePathsAt) {
                pruneCallPaths();
            }
            callPaths.add(p);
        }
        if (tc != null) {
            tc.callPath = p;
            tc.callPathOwner = this;
        }
        if (p.stack != stack) {
            if (p.stack != null) {
                p.leave();
            }
            p.stack = stack;
        }
        return p;
    }

    /** Closes the call paths of threads that ended and forgets them. Caller holds the lock. */
    private void pruneCallPaths() {
        int kept = 0;
        for (int j = 0; j < callPaths.size(); j++) {
            CallPath p = callPaths.get(j);
            if (p.thread.isAlive()) {
                callPaths.set(kept++, p);
            } else if (p.stack != null) {
                p.leave();
            }
        }
        callPaths.subList(kept, callPaths.size()).clear();
        prunePathsAt = Math.max(16, 2 * kept);
    }

    /**
     * The last sample saw frames {@code 0..i-1} of {@code stack} (their slots hold its cache
     * entries). The frames it saw above them are checked as they are resolved ({@link
     * CallPath#resolved}), and those past the stack closed after that.
     */
    private void seen(CallPath path, int[] stack, int i) {
        // Cached before the thread's path knew them (its first sample after call lines appeared).
        for (int d = path.depth; d < i; d++) {
            path.open(d, node(stack[d]), stack[d], -1);
        }
    }

    /** Adds what the threads' open frames counted so far to their call lines. Caller holds the lock. */
    final void settleCallLines() {
        for (CallPath p : callPaths) {
            p.settle();
        }
    }

    /** The node a stack entry stands for, or null when it holds a method identifier. */
    private InvocationNode node(int entry) {
        int index = ~entry;
        return index >= 0 && index < nodeCount ? nodes[index] : null;
    }

    private InvocationNode add(InvocationNode parent, int m) {
        if (nodeCount == nodes.length) {
            InvocationNode[] bigger = new InvocationNode[nodeCount * 2];
            System.arraycopy(nodes, 0, bigger, 0, nodeCount);
            nodes = bigger;
        }
        InvocationNode c = parent.addCallee(m, nodeCount);
        nodes[nodeCount++] = c;
        return c;
    }

    private void tooMany() {
        if (!full) {
            full = true;
            // A warning, quiet with komorium.quiet: the profile's truncated count records it anyway.
            Report.info("komorium: the profile holds komorium.maxContexts=" + maxContexts + " calling contexts;"
                    + " samples in new contexts count under <truncated> below their deepest known frame"
                    + " (raise it with -Dkomorium.maxContexts=N and a larger heap)");
        }
    }

    private boolean isTruncationMarker(int entry) {
        InvocationNode n = node(entry);
        return entry == MID.TRUNCATED || (n != null && n.mid == MID.TRUNCATED);
    }

    /** Clamps a stack pointer given by a caller into the array. */
    static int clamp(int[] stack, int sp) {
        return sp > stack.length ? stack.length : sp;
    }

    /**
     * Adds the bytecodes each thread ran since its last sample (§7.2). The tree of the agent the
     * runtime installed goes into the run's profile ({@link Profiles}); an agent a program made and
     * drives itself writes its own file here.
     */
    @Override
    public void shutdown(long pendingBytecodes) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        synchronized (this) {
            totalBytecodes += pendingBytecodes;
        }
        if (inRunProfile) {
            return;
        }
        TreeSection section = new TreeSection(this);
        ProfileFile file = new ProfileFile();
        section.write(file);
        try {
            file.write(new java.io.File(out));
            Report.info("komorium: wrote " + out + " (" + section.describe() + ")");
        } catch (java.io.IOException | RuntimeException e) {
            Report.error("komorium: cannot write the profile " + out + ": " + e);
        }
    }
}
