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
final class TreeSection implements Profiles.Section {
    private final TreeAgent agent;
    private String description = "";

    TreeSection(TreeAgent agent) {
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

    // A class rather than a lambda: nothing at shutdown should depend on bootstrapping
    // invokedynamic call sites.
    private static final Comparator<Node> DESCENDING_METHOD = new Comparator<Node>() {
        @Override
        public int compare(Node a, Node b) {
            return b.method.compareTo(a.method);
        }
    };

    @Override
    public String kind() {
        return "komorium";
    }

    @Override
    public String describe() {
        return description;
    }

    /** Snapshots the agent's tree under its lock and adds it to {@code file}. */
    @Override
    public void write(ProfileFile file) {
        synchronized (agent) {
            write(file, agent);
        }
    }

    private void write(ProfileFile file, TreeAgent agent) {
        // 1. Merge into a tree keyed by method name (not identifier instance).
        ProfileFile scratch = new ProfileFile();
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
                d.counter += c.counter;
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
        java.util.Set<ProfileFile.MethodKey> methods = new java.util.HashSet<ProfileFile.MethodKey>();
        while (!todo.isEmpty()) {
            Node n = todo.remove(todo.size() - 1);
            int parent = todoParent.remove(todoParent.size() - 1);
            int id = nodes++;
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
        description = agent.name() + ": " + counted + " " + agent.unit() + " in " + (nodes - 1) + " contexts, " + methods.size() + " methods, ~"
                + agent.totalBytecodes + " bytecodes, " + agent.threads + " threads";
    }
}
