package komorium.runtime;

/**
 * A node of the samples tree (seed 002, Figure 8): one calling context.
 *
 * <p>{@link TreeAgent} numbers its nodes and stores {@code ~index} into a thread's reified stack in
 * place of the identifier a node stands for, turning the stack into that thread's cache of the
 * path it resolved last (§6.2). The callee map is an open-addressing table keyed by method
 * identifier, with Fibonacci hashing: no boxing, no {@code equals} calls, usually one probe. Not
 * thread-safe: the owning agent synchronizes.
 */
final class InvocationNode {
    /** The method identifier of this context ({@link MID}); -1 for the root. */
    final int mid;
    final InvocationNode parent;
    /** This node's number in its agent's table; a stack slot holding {@code ~index} stands for it. */
    final int index;
    /** True if this context lies below a {@link MID#TRUNCATED} marker. */
    final boolean truncated;
    /** Samples (or bytecodes) whose stack ended exactly in this context. */
    long counter;
    /** {@link #counter} by thread and line; null until the first sample. */
    SelfCounts self;
    /**
     * Inclusive counter by the line the parent's method called this context from (call lines, see
     * {@link CallPath}), kept as a {@link SelfCounts} of thread -1; null until
     * there is one.
     */
    SelfCounts calls;

    /** Callee identifiers plus one: 0 marks a free slot. */
    private int[] keys;
    private InvocationNode[] children;
    private int size;
    private int shift;

    /** Creates a root. */
    InvocationNode(int index) {
        this.mid = -1;
        this.parent = null;
        this.index = index;
        this.truncated = false;
    }

    private InvocationNode(int mid, InvocationNode parent, int index) {
        this.mid = mid;
        this.parent = parent;
        this.index = index;
        this.truncated = parent.truncated || mid == MID.TRUNCATED;
    }

    /** Adds {@code count} to this context, from thread number {@code thread} in the block at {@code line}. */
    void add(long count, int thread, int line) {
        counter += count;
        if (self == null) {
            self = new SelfCounts(thread, line, count);
        } else {
            self.add(thread, line, count);
        }
    }

    /** Adds {@code count} to the inclusive counter of calls from the parent's line {@code line}. */
    void addCall(int line, long count) {
        if (calls == null) {
            calls = new SelfCounts(-1, line, count);
        } else {
            calls.add(-1, line, count);
        }
    }

    /** Weyl hashing of consecutive identifiers spreads them over any power-of-two table. */
    private int slot(int key) {
        return (key * 0x9E3779B9) >>> shift;
    }

    /** The child for callee {@code m}, or null when it has none yet. */
    InvocationNode callee(int m) {
        int[] k = keys;
        if (k == null) {
            return null;
        }
        int key = m + 1;
        int mask = k.length - 1;
        for (int i = slot(key); ; i = (i + 1) & mask) {
            if (k[i] == key) {
                return children[i];
            }
            if (k[i] == 0) {
                return null;
            }
        }
    }

    /** Adds the child for callee {@code m}, which it must not have yet, numbered {@code index}. */
    InvocationNode addCallee(int m, int index) {
        if (keys == null) {
            keys = new int[4];
            children = new InvocationNode[4];
            shift = 30;
        } else if (2 * (size + 1) > keys.length) {
            grow();
        }
        InvocationNode n = new InvocationNode(m, this, index);
        insert(m + 1, n);
        size++;
        return n;
    }

    private void grow() {
        int[] oldKeys = keys;
        InvocationNode[] oldChildren = children;
        keys = new int[oldKeys.length * 2];
        children = new InvocationNode[oldKeys.length * 2];
        shift--;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != 0) {
                insert(oldKeys[j], oldChildren[j]);
            }
        }
    }

    private void insert(int key, InvocationNode n) {
        int mask = keys.length - 1;
        int i = slot(key);
        while (keys[i] != 0) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        children[i] = n;
    }

    /** Slots of the child table, for iteration with {@link #childAt}. */
    int childSlots() {
        return children == null ? 0 : children.length;
    }

    /** The child in slot {@code i}, or null. */
    InvocationNode childAt(int i) {
        return children[i];
    }

    @Override
    public String toString() {
        return mid < 0 ? "<root>" : MID.toString(mid);
    }
}
