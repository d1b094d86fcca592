package komorium.runtime;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a samples tree in the profile format of docs/profile-format.md (version 1).
 *
 * <p>The output below the header depends only on the samples: methods are merged by name (one
 * {@code method} line per distinct class, name, descriptor, source and line, even if several
 * class loaders created identifiers for it), sorted, and numbered; the tree is re-keyed by method
 * id, so contexts that differ only in identifier instances merge too; children are sorted by
 * method id, and contexts whose subtree counted nothing are left out. Everything is iterative, so
 * a tree as deep as any {@code komorium.stackSize} cannot overflow the hook thread's stack.
 */
final class ProfileWriter {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final AtomicInteger TEMP_SEQUENCE = new AtomicInteger();

    private ProfileWriter() {
    }

    /**
     * A method line. Identity is the method key (class, name, descriptor), as the format requires;
     * identifiers that share a key (one class loaded by several loaders) become one method.
     */
    static final class MethodKey implements Comparable<MethodKey> {
        final String className;
        final String name;
        final String descriptor;
        String source;
        int line;
        int id = -1;

        MethodKey(String className, String name, String descriptor, String source, int line) {
            this.className = className;
            this.name = name;
            this.descriptor = descriptor;
            this.source = source == null ? "" : source;
            this.line = line;
        }

        /**
         * Keeps one source and line for a key seen with several, independently of the order the
         * identifiers were met in: a known source first, then the smallest (source, line).
         */
        void absorb(MethodKey o) {
            boolean better = source.isEmpty() != o.source.isEmpty()
                    ? !o.source.isEmpty()
                    : (o.source.compareTo(source) < 0 || (o.source.equals(source) && o.line < line));
            if (better) {
                source = o.source;
                line = o.line;
            }
        }

        /** By (class, name, descriptor), comparing UTF-16 code units as the format says. */
        @Override
        public int compareTo(MethodKey o) {
            int c = className.compareTo(o.className);
            if (c == 0) {
                c = name.compareTo(o.name);
            }
            if (c == 0) {
                c = descriptor.compareTo(o.descriptor);
            }
            return c;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MethodKey && compareTo((MethodKey) o) == 0;
        }

        @Override
        public int hashCode() {
            return (className.hashCode() * 31 + name.hashCode()) * 31 + descriptor.hashCode();
        }
    }

    /** A context of the merged tree. */
    private static final class Node {
        final MethodKey method;
        final Node parent;
        long counter;
        /** counter plus the descendants' counters. */
        long total;
        Map<MethodKey, Node> children;

        Node(MethodKey method, Node parent) {
            this.method = method;
            this.parent = parent;
        }

        Node child(MethodKey key) {
            if (children == null) {
                children = new HashMap<MethodKey, Node>(4);
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
    private static final Comparator<Node> DESCENDING_METHOD_ID = new Comparator<Node>() {
        @Override
        public int compare(Node a, Node b) {
            return Integer.compare(b.method.id, a.method.id);
        }
    };

    /** Everything the file holds below the header, ready to print. */
    static final class Snapshot {
        String agent;
        String unit;
        int granularity;
        int random;
        long seed;
        long totalBytecodes;
        int threads;
        long truncated;
        List<MethodKey> methods = new ArrayList<MethodKey>();
        /** Preorder: parent id, method id, counter per node; node 0 is the root. */
        int[] parents;
        int[] methodIds;
        long[] counters;
        int nodes;
        long counted;

        String describe() {
            return counted + " " + unit + " in " + (nodes - 1) + " contexts, " + methods.size() + " methods, ~"
                    + totalBytecodes + " bytecodes, " + threads + " threads";
        }
    }

    /** Copies and canonicalizes the agent's tree; the caller holds the agent's lock. */
    static Snapshot snapshot(TreeAgent agent) {
        Snapshot s = new Snapshot();
        s.agent = agent.name();
        s.unit = agent.unit();
        s.granularity = agent.granularity();
        s.random = agent.random();
        s.seed = agent.seed();
        s.totalBytecodes = agent.totalBytecodes;
        s.threads = agent.threads;
        s.truncated = agent.truncatedSamples;

        // 1. Merge into a tree keyed by method name (not identifier instance), in preorder.
        Map<Integer, MethodKey> byMid = new HashMap<Integer, MethodKey>();
        Map<MethodKey, MethodKey> interned = new HashMap<MethodKey, MethodKey>();
        Node root = new Node(null, null);
        List<Node> preorder = new ArrayList<Node>();
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
                Node d = dst.child(methodKey(c.mid, byMid, interned));
                d.counter += c.counter;
                srcStack.add(c);
                dstStack.add(d);
            }
        }

        // 2. Subtree totals: a preorder listing read backwards visits children before parents.
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

        // 3. Number the methods of the contexts that are written, in sorted order.
        for (Node n : preorder) {
            if (n != root && n.total > 0 && n.method.id < 0) {
                n.method.id = 0;
                s.methods.add(n.method);
            }
        }
        Collections.sort(s.methods);
        for (int i = 0; i < s.methods.size(); i++) {
            s.methods.get(i).id = i;
        }

        // 4. Emit in preorder, children by method id, pruning contexts that counted nothing.
        int capacity = 1;
        for (Node n : preorder) {
            if (n.total > 0) {
                capacity++;
            }
        }
        s.parents = new int[capacity];
        s.methodIds = new int[capacity];
        s.counters = new long[capacity];
        List<Node> todo = new ArrayList<Node>();
        List<Integer> todoParent = new ArrayList<Integer>();
        todo.add(root);
        todoParent.add(-1);
        while (!todo.isEmpty()) {
            Node n = todo.remove(todo.size() - 1);
            int parent = todoParent.remove(todoParent.size() - 1);
            int id = s.nodes++;
            s.parents[id] = parent;
            s.methodIds[id] = n == root ? -1 : n.method.id;
            s.counters[id] = n == root ? 0 : n.counter;
            s.counted += s.counters[id];
            if (n.children == null) {
                continue;
            }
            List<Node> kids = new ArrayList<Node>();
            for (Node c : n.children.values()) {
                if (c.total > 0) {
                    kids.add(c);
                }
            }
            // Pushed in descending id order so that they are popped (emitted) in ascending order.
            Collections.sort(kids, DESCENDING_METHOD_ID);
            for (Node c : kids) {
                todo.add(c);
                todoParent.add(id);
            }
        }
        return s;
    }

    private static MethodKey methodKey(int mid, Map<Integer, MethodKey> byMid, Map<MethodKey, MethodKey> interned) {
        MethodKey k = byMid.get(mid);
        if (k != null) {
            return k;
        }
        MID m = MID.get(mid);
        if (m != null) {
            k = new MethodKey(internalName(m.getClassName()), orUnknown(m.getMethodName()), orVoid(m.getDescriptor()),
                    m.getSourceFile(), m.getFirstLine());
        } else {
            // A number no class registered (a program that drives an agent with its own stacks).
            k = new MethodKey(internalName(MID.toString(mid)), "<unknown>", "()V", null, -1);
        }
        MethodKey canonical = interned.get(k);
        if (canonical == null) {
            interned.put(k, k);
            canonical = k;
        } else {
            canonical.absorb(k);
        }
        byMid.put(mid, canonical);
        return canonical;
    }

    /**
     * The class file's form {@code com/foo/Bar} of the {@code Class.getName()} form the
     * instrumented code passes: a binary name has no '/', an internal name no '.', so this is exact.
     */
    static String internalName(String className) {
        return orUnknown(className.replace('.', '/'));
    }

    // A reader rejects empty names; only a hand-made identifier can have one.
    private static String orUnknown(String s) {
        return s.isEmpty() ? "<unknown>" : s;
    }

    private static String orVoid(String s) {
        return s.isEmpty() ? "()V" : s;
    }

    /** The whole file. */
    static byte[] render(Snapshot s) {
        StringBuilder sb = new StringBuilder(64 + 64 * s.methods.size() + 24 * s.nodes);
        sb.append("komorium-profile\t1\n");
        header(sb, "jvm", property("java.vm.name") + " " + property("java.version"));
        header(sb, "os", property("os.name") + " " + property("os.arch"));
        header(sb, "date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        header(sb, "options", Config.options());
        header(sb, "pid", String.valueOf(Config.pid()));
        line(sb, "agent", s.agent);
        line(sb, "unit", s.unit);
        sb.append("granularity\t").append(s.granularity).append('\n');
        sb.append("random\t").append(s.random).append('\n');
        sb.append("seed\t").append(s.seed).append('\n');
        sb.append("totalBytecodes\t").append(s.totalBytecodes).append('\n');
        sb.append("threads\t").append(s.threads).append('\n');
        sb.append("truncated\t").append(s.truncated).append('\n');
        for (MethodKey m : s.methods) {
            sb.append("method\t").append(m.id).append('\t');
            escape(sb, m.className).append('\t');
            escape(sb, m.name).append('\t');
            escape(sb, m.descriptor).append('\t');
            escape(sb, m.source).append('\t');
            sb.append(m.line).append('\n');
        }
        for (int i = 0; i < s.nodes; i++) {
            sb.append("node\t").append(i).append('\t').append(s.parents[i]).append('\t').append(s.methodIds[i]).append('\t')
                    .append(s.counters[i]).append('\n');
        }
        sb.append("end\t").append(s.nodes).append('\n');
        return sb.toString().getBytes(UTF8);
    }

    private static void header(StringBuilder sb, String key, String value) {
        sb.append("header\t").append(key).append('\t');
        escape(sb, value).append('\n');
    }

    private static void line(StringBuilder sb, String key, String value) {
        sb.append(key).append('\t');
        escape(sb, value).append('\n');
    }

    private static String property(String name) {
        try {
            return String.valueOf(System.getProperty(name));
        } catch (SecurityException e) {
            return "?";
        }
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * Escapes a string field as the format's table says: backslash, TAB, LF and CR as backslash
     * sequences; other control characters and unpaired surrogates (which UTF-8 cannot carry, and
     * Java's encoder would turn into '?') as backslash-u and four uppercase hex digits.
     */
    static StringBuilder escape(StringBuilder sb, String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                sb.append("\\\\");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c < 0x20 || c == 0x7f) {
                hex(sb, c);
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                sb.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                hex(sb, c);
            } else {
                sb.append(c);
            }
        }
        return sb;
    }

    private static void hex(StringBuilder sb, char c) {
        sb.append('\\').append('u').append(HEX[(c >> 12) & 15]).append(HEX[(c >> 8) & 15]).append(HEX[(c >> 4) & 15])
                .append(HEX[c & 15]);
    }

    /**
     * Writes atomically: readers see the old file or the complete new one, never a partial file,
     * even if the JVM is halted in the middle (a racing {@code Runtime.halt}).
     */
    static void write(File target, Snapshot s) throws IOException {
        byte[] bytes = render(s);
        File dir = target.getAbsoluteFile().getParentFile();
        if (dir != null && !dir.isDirectory()) {
            Files.createDirectories(dir.toPath());
        }
        // Same directory, so that the rename cannot cross file systems. Not createTempFile: that
        // would leave the profile readable by its owner only.
        File tmp = new File(dir, "." + target.getName() + "." + Config.pid() + "." + TEMP_SEQUENCE.getAndIncrement() + ".tmp");
        boolean moved = false;
        try {
            OutputStream os = new FileOutputStream(tmp);
            try {
                os.write(bytes);
            } finally {
                os.close();
            }
            Path from = tmp.toPath();
            Path to = target.toPath();
            try {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                // AtomicMoveNotSupportedException, or a platform that refuses an atomic move onto
                // an existing file: a plain replace is the best that is left.
                Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
            }
            moved = true;
        } finally {
            if (!moved) {
                tmp.delete();
            }
        }
    }
}
