package komorium.runtime;

/**
 * A node of the samples tree (seed 002, Figure 8): one calling context.
 *
 * <p>It implements {@link MID} so that {@link TreeAgent} can store it into a thread's reified
 * stack in place of the identifier it stands for, turning the stack into that thread's cache of
 * the path it resolved last (§6.2). The callee map is an open-addressing table keyed by the
 * identity of the callee's {@link MID}, with Fibonacci hashing on {@link MIDImpl}'s precomputed
 * hash: no boxing, no {@code equals} calls, usually one probe. Not thread-safe: the owning agent
 * synchronizes.
 */
final class InvocationNode implements MID {
    /** The method of this context; null for the root. */
    final MID mid;
    final InvocationNode parent;
    /** The root of the tree this node belongs to, to tell our nodes from another agent's. */
    final InvocationNode root;
    /** True if this context lies below a {@link MIDImpl#TRUNCATED} marker. */
    final boolean truncated;
    /** Samples (or bytecodes) whose stack ended exactly in this context. */
    long counter;

    private MID[] keys;
    private InvocationNode[] children;
    private int size;
    private int shift;

    /** Creates a root. */
    InvocationNode() {
        this.mid = null;
        this.parent = null;
        this.root = this;
        this.truncated = false;
    }

    private InvocationNode(MID mid, InvocationNode parent) {
        this.mid = mid;
        this.parent = parent;
        this.root = parent.root;
        this.truncated = parent.truncated || mid == MIDImpl.TRUNCATED;
    }

    private static int hash(MID m) {
        return m instanceof MIDImpl ? ((MIDImpl) m).hash : System.identityHashCode(m) * 0x9E3779B9;
    }

    /** The child for callee {@code m}, or null when it has none yet. */
    InvocationNode callee(MID m) {
        MID[] k = keys;
        if (k == null) {
            return null;
        }
        int mask = k.length - 1;
        for (int i = hash(m) >>> shift; ; i = (i + 1) & mask) {
            if (k[i] == m) {
                return children[i];
            }
            if (k[i] == null) {
                return null;
            }
        }
    }

    /** The child for callee {@code m}, created on first use (Figure 8's getOrCreateCallee). */
    InvocationNode getOrCreateCallee(MID m) {
        MID[] k = keys;
        if (k == null) {
            k = keys = new MID[4];
            children = new InvocationNode[4];
            shift = 30;
        }
        int mask = k.length - 1;
        int i = hash(m) >>> shift;
        for (;;) {
            MID key = k[i];
            if (key == m) {
                return children[i];
            }
            if (key == null) {
                break;
            }
            i = (i + 1) & mask;
        }
        InvocationNode n = new InvocationNode(m, this);
        if (2 * (size + 1) > k.length) {
            grow();
            insert(m, n);
        } else {
            k[i] = m;
            children[i] = n;
        }
        size++;
        return n;
    }

    private void grow() {
        MID[] oldKeys = keys;
        InvocationNode[] oldChildren = children;
        keys = new MID[oldKeys.length * 2];
        children = new InvocationNode[oldKeys.length * 2];
        shift--;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != null) {
                insert(oldKeys[j], oldChildren[j]);
            }
        }
    }

    private void insert(MID m, InvocationNode n) {
        int mask = keys.length - 1;
        int i = hash(m) >>> shift;
        while (keys[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = m;
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
        return mid == null ? "<root>" : String.valueOf(mid);
    }
}
