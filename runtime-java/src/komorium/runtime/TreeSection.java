package komorium.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code komorium} section of a profile (docs/profile-format.md): the samples tree of a
 * {@link TreeAgent}, merged by method key (one context per distinct stack of methods, even if
 * several class loaders created identifiers for a method), children sorted by method, contexts
 * whose subtree counted nothing left out. Everything is iterative, so a tree as deep as any
 * {@code komorium.stackSize} cannot overflow the hook thread's stack.
 */
final class TreeSection extends KindSection {
    private final TreeAgent agent;

    TreeSection(TreeAgent agent) {
        super("komorium");
        this.agent = agent;
    }

    /** A context of the merged tree. */
    private static final class Node {
        final ProfileFile.MethodKey method;
        final Node parent;
        long counter;
        /** counter plus the descendants' counters. */
        long total;
        Map<ProfileFile.MethodKey, Node> children;
        /** counter by (runtime thread number, line), as {@link SelfCounts#key}; null when never sampled. */
        Map<Long, long[]> self;
        /** Inclusive counter by the line of the parent's method that called this context. */
        Map<Integer, long[]> calls;
        int id;

        Node(ProfileFile.MethodKey method, Node parent) {
            this.method = method;
            this.parent = parent;
        }

        Node child(ProfileFile.MethodKey key) {
            if (children == null) {
                children = new HashMap<ProfileFile.MethodKey, Node>(4);
            }
            Node n = children.get(key);
            if (n == null) {
                n = new Node(key, this);
                children.put(key, n);
            }
            return n;
        }
    }

    /**
     * The thread, self and call records after the nodes (docs/profile-format.md): thread names
     * sorted and numbered, each context's counter by thread and line, and by the line that called it.
     */
    /**
     * Threads still running while the profile is written (a shutdown hook, an online dump) update a
     * context's counter and its line a moment apart, so the two may disagree by the increments in
     * flight; the file says they sum up. The difference goes to an unknown line, or comes off the
     * largest entry.
     */
    private static void balance(java.util.TreeMap<Long, long[]> sorted, long counter) {
        long sum = 0;
        Map.Entry<Long, long[]> largest = null;
        for (Map.Entry<Long, long[]> e : sorted.entrySet()) {
            sum += e.getValue()[0];
            if (largest == null || e.getValue()[0] > largest.getValue()[0]) {
                largest = e;
            }
        }
        long diff = counter - sum;
        if (diff > 0) {
            add(sorted, SelfCounts.key(-1, -1), diff);
        } else if (diff < 0 && largest != null && largest.getValue()[0] + diff >= 0) {
            largest.getValue()[0] += diff;
        }
    }

    private static void writeBreakdown(ProfileFile file, TreeAgent agent, List<Node> emitted) {
        java.util.TreeMap<String, Integer> names = new java.util.TreeMap<String, Integer>();
        for (Node n : emitted) {
            if (n.self != null) {
                for (Long k : n.self.keySet()) {
                    String name = agent.threadName(SelfCounts.thread(k));
                    if (name != null) {
                        names.put(name, 0);
                    }
                }
            }
        }
        int t = 0;
        for (Map.Entry<String, Integer> e : names.entrySet()) {
            e.setValue(t);
            file.record("thread", t++, e.getKey());
        }
        for (Node n : emitted) {
            if (n.self == null || n.counter == 0) {
                continue;
            }
            // (output thread, line) -> count, sorted: runtime numbers are in first-seen order.
            java.util.TreeMap<Long, long[]> sorted = new java.util.TreeMap<Long, long[]>();
            for (Map.Entry<Long, long[]> e : n.self.entrySet()) {
                String name = agent.threadName(SelfCounts.thread(e.getKey()));
                int thread = name == null ? -1 : names.get(name);
                add(sorted, SelfCounts.key(thread, SelfCounts.line(e.getKey())), e.getValue()[0]);
            }
            balance(sorted, n.counter);
            for (Map.Entry<Long, long[]> e : sorted.entrySet()) {
                if (e.getValue()[0] != 0) {
                    file.record("self", n.id, SelfCounts.thread(e.getKey()), SelfCounts.line(e.getKey()), e.getValue()[0]);
                }
            }
        }
        for (Node n : emitted) {
            if (n.calls == null) {
                continue;
            }
            for (Map.Entry<Integer, long[]> e : new java.util.TreeMap<Integer, long[]>(n.calls).entrySet()) {
                file.record("call", n.id, e.getKey(), e.getValue()[0]);
            }
        }
    }

    // A class rather than a lambda: nothing at shutdown should depend on bootstrapping
    // invokedynamic call sites.
    private static final Comparator<Node> DESCENDING_METHOD = new Comparator<Node>() {
        @Override
        public int compare(Node a, Node b) {
            return b.method.compareTo(a.method);
        }
    };

    /** Snapshots the agent's tree under its lock and adds it to {@code file}. */
    @Override
    String writeRecords(ProfileFile file) {
        synchronized (agent) {
            return writeTree(file, agent);
        }
    }

    private static void add(Map<Long, long[]> into, long key, long count) {
        long[] c = into.get(key);
        if (c == null) {
            into.put(key, new long[] {count});
        } else {
            c[0] += count;
        }
    }

    private static void merge(final Node into, InvocationNode from) {
        into.counter += from.counter;
        if (from.self != null) {
            if (into.self == null) {
                into.self = new HashMap<Long, long[]>(4);
            }
            from.self.forEach(new SelfCounts.Visitor() {
                @Override
                public void visit(int thread, int line, long count) {
                    add(into.self, SelfCounts.key(thread, line), count);
                }
            });
        }
        if (from.calls != null) {
            if (into.calls == null) {
                into.calls = new HashMap<Integer, long[]>(4);
            }
            from.calls.forEach(new SelfCounts.Visitor() {
                @Override
                public void visit(int thread, int line, long count) {
                    long[] c = into.calls.get(line);
                    if (c == null) {
                        into.calls.put(line, new long[] {count});
                    } else {
                        c[0] += count;
                    }
                }
            });
        }
    }

    private String writeTree(ProfileFile file, TreeAgent agent) {
        // 1. Merge into a tree keyed by method name (not identifier instance).
        ProfileFile scratch = new ProfileFile();
        agent.settleCallLines();
        Node root = new Node(null, null);
        List<InvocationNode> srcStack = new ArrayList<InvocationNode>();
        List<Node> dstStack = new ArrayList<Node>();
        srcStack.add(agent.root);
        dstStack.add(root);
        while (!srcStack.isEmpty()) {
            InvocationNode src = srcStack.remove(srcStack.size() - 1);
            Node dst = dstStack.remove(dstStack.size() - 1);
            for (int i = 0, n = src.childSlots(); i < n; i++) {
                InvocationNode c = src.childAt(i);
                if (c == null) {
                    continue;
                }
                Node d = dst.child(scratch.method(c.mid));
                merge(d, c);
                srcStack.add(c);
                dstStack.add(d);
            }
        }

        // 2. Subtree totals: a preorder listing read backwards visits children before parents.
        List<Node> preorder = new ArrayList<Node>();
        List<Node> work = new ArrayList<Node>();
        work.add(root);
        while (!work.isEmpty()) {
            Node n = work.remove(work.size() - 1);
            preorder.add(n);
            if (n.children != null) {
                work.addAll(n.children.values());
            }
        }
        for (int i = preorder.size() - 1; i >= 0; i--) {
            Node n = preorder.get(i);
            n.total += n.counter;
            if (n.parent != null) {
                n.parent.total += n.total;
            }
        }

        file.section(kind());
        file.record("agent", agent.name());
        file.record("unit", agent.unit());
        file.record("granularity", agent.granularity());
        file.record("random", agent.random());
        file.record("seed", agent.seed());
        file.record("totalBytecodes", agent.totalBytecodes);
        file.record("threads", agent.threads);
        file.record("truncated", agent.truncatedSamples);

        // 3. Emit in preorder, children in method order, pruning contexts that counted nothing.
        List<Node> todo = new ArrayList<Node>();
        List<Integer> todoParent = new ArrayList<Integer>();
        todo.add(root);
        todoParent.add(-1);
        int nodes = 0;
        long counted = 0;
        List<Node> emitted = new ArrayList<Node>();
        java.util.Set<ProfileFile.MethodKey> methods = new java.util.HashSet<ProfileFile.MethodKey>();
        while (!todo.isEmpty()) {
            Node n = todo.remove(todo.size() - 1);
            int parent = todoParent.remove(todoParent.size() - 1);
            int id = nodes++;
            n.id = id;
            emitted.add(n);
            long counter = n == root ? 0 : n.counter;
            counted += counter;
            if (n != root) {
                methods.add(n.method);
            }
            file.record("node", id, parent, n == root ? (Object) (-1) : file.method(n.method), counter);
            if (n.children == null) {
                continue;
            }
            List<Node> kids = new ArrayList<Node>();
            for (Node c : n.children.values()) {
                if (c.total > 0) {
                    kids.add(c);
                }
            }
            // Pushed in descending order so that they are popped (emitted) in ascending order.
            Collections.sort(kids, DESCENDING_METHOD);
            for (Node c : kids) {
                todo.add(c);
                todoParent.add(id);
            }
        }
        writeBreakdown(file, agent, emitted);
        return agent.name() + ": " + counted + " " + agent.unit() + " in " + (nodes - 1) + " contexts, " + methods.size() + " methods, ~"
                + agent.totalBytecodes + " bytecodes, " + agent.threads + " threads";
    }
}
