package komorium.runtime;

/**
 * A method identifier (seed 002, §3.1, Figure 1). Reified stacks hold identifiers as {@code int}s,
 * not as objects: storing an object reference into an array costs the JIT a GC card mark and an
 * array-store type check on every method entry, an {@code int} store costs neither
 * (BENCHMARKS.md, "Optimizations tried"). This class maps each {@code int} to the method it names.
 *
 * <p>The static initializer of every instrumented class registers its methods in one call to
 * {@link #forClass} and keeps their numbers in static final fields. An identifier names a method
 * by strings only and holds no {@code Class}, so profiling never keeps a class loader alive. The
 * same method loaded by two class loaders gets two identifiers; the profile writer merges them by
 * name. Identifiers are never reused, so the names of a method stay here (about 200 bytes) after
 * its class is unloaded: a program that loads the same instrumented classes again and again in
 * new class loaders grows this table by that much per method and load. This class is safe to use
 * from any thread.
 */
public final class MID {
    /** The value of a stack slot nothing was written to (a correct transform never reads one). */
    public static final int UNKNOWN = 0;

    /**
     * Stands for the frames that did not fit into a reified stack of {@code komorium.stackSize}
     * slots: once a stack is full, {@link TC#push} keeps overwriting its top slot with the
     * innermost method and stores this marker in the slot below, so a sample of a too-deep stack
     * reads {@code outer frames…, <truncated>, innermost method}. (The built-in agents record such
     * a sample in the context {@code outer frames…, <truncated>}, as docs/profile-format.md asks.)
     */
    public static final int TRUNCATED = 1;

    /**
     * Stands for the frames between a call out of instrumented code and the instrumented code that
     * it calls back (the JDK's {@code Collections.sort} between a method and its comparator, a
     * lambda's generated class, a jar that was instrumented on its own): {@link TC#enter} pushes it
     * where it continues the caller's stack, so the callback sits under one {@code [uninstrumented]}
     * node instead of directly under its caller, as if those frames did not exist.
     */
    public static final int UNINSTRUMENTED = 2;

    private static final Object LOCK = new Object();
    /** Identifier to method; published by a volatile write after the entries are set. */
    private static volatile MID[] table = new MID[1024];
    private static int count;
    /** Set once a class registers call lines (instrument --call-lines); the agents then track them. */
    private static volatile boolean callLines;

    /**
     * The first identifier of the instrumented JDK's methods: right after the three above. Its
     * classes cannot register in their static initializers (many run before anything is ready, in
     * the middle of VM start-up), so komorium-ts instrument-jdk numbers their methods itself, as
     * constants in their code, and lists them in {@link #JDK_TABLE} beside this class, in order.
     */
    public static final int JDK_FIRST = 3;

    /** The resource that lists the instrumented JDK's methods (only in a patched java.base). */
    static final String JDK_TABLE = "jdk-methods.txt";

    static {
        register("<unknown>", "<unknown>", "()V", null, -1);
        register("<truncated>", "<truncated>", "()V", null, -1);
        register("[uninstrumented]", "[uninstrumented]", "()V", null, -1);
        if (TC.inJavaBase()) {
            registerJdk();
        }
    }

    /**
     * Registers the instrumented JDK's methods from {@link #JDK_TABLE}: a line
     * {@code class TAB className TAB sourceFile} starts each class (sourceFile empty when none), then one
     * line {@code name TAB descriptor TAB firstLine} per method, in identifier order.
     */
    private static void registerJdk() {
        java.io.InputStream in = MID.class.getResourceAsStream(JDK_TABLE);
        if (in == null) {
            return;
        }
        try {
            java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(in, "UTF-8"), 1 << 16);
            try {
                String className = "";
                String source = null;
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    int tab1 = line.indexOf('\t');
                    int tab2 = line.indexOf('\t', tab1 + 1);
                    if (line.startsWith("class\t")) {
                        className = line.substring(tab1 + 1, tab2);
                        source = tab2 + 1 == line.length() ? null : line.substring(tab2 + 1);
                    } else {
                        register(className, line.substring(0, tab1), line.substring(tab1 + 1, tab2), source,
                                Integer.parseInt(line.substring(tab2 + 1)), -1, -1);
                    }
                }
            } finally {
                r.close();
            }
        } catch (java.io.IOException e) {
            Report.error("komorium: cannot read the instrumented JDK's method table: " + e);
        }
    }

    private final String className;
    private final String methodName;
    private final String descriptor;
    private final String sourceFile;
    private final int firstLine;
    private final int callLine;
    /** The identifier of the method itself: this one's, or for a call line's, its method's. */
    private final int method;

    private MID(String className, String methodName, String descriptor, String sourceFile, int firstLine, int callLine,
            int method) {
        this.className = className == null ? "" : className;
        this.methodName = methodName == null ? "" : methodName;
        this.descriptor = descriptor == null ? "" : descriptor;
        this.sourceFile = sourceFile;
        this.firstLine = firstLine;
        this.callLine = callLine;
        this.method = method;
    }

    /**
     * Registers one method and returns its identifier.
     *
     * @param className  binary name as {@code Class.getName()} returns it, e.g. {@code com.foo.Bar}
     * @param methodName method name, {@code <init>} or {@code <clinit>} included
     * @param descriptor JVM method descriptor, e.g. {@code (I)V}
     * @param sourceFile the class's SourceFile attribute, or {@code null}
     * @param firstLine  the method's first line number, or {@code -1}
     */
    public static int register(String className, String methodName, String descriptor, String sourceFile, int firstLine) {
        return register(className, methodName, descriptor, sourceFile, firstLine, -1, -1);
    }

    /** {@code method}: the identifier of the method a call line's identifier belongs to, -1 for a method's own. */
    private static int register(String className, String methodName, String descriptor, String sourceFile, int firstLine,
            int callLine, int method) {
        synchronized (LOCK) {
            MID[] t = table;
            int id = count;
            if (id == t.length) {
                if (id == Integer.MAX_VALUE) {
                    return UNKNOWN;
                }
                MID[] bigger = new MID[(int) Math.min(Integer.MAX_VALUE, 2L * id)];
                System.arraycopy(t, 0, bigger, 0, id);
                t = bigger;
            }
            t[id] = new MID(className, methodName, descriptor, sourceFile, firstLine, callLine, method < 0 ? id : method);
            count = id + 1;
            table = t;
            return id;
        }
    }

    /**
     * Registers the methods of one class in a single call from its static initializer: one
     * {@code ldc} of a packed string per class instead of five constants per method keeps
     * {@code <clinit>} and the constant pool small.
     *
     * @param className binary name as {@code Class.getName()} returns it
     * @param sourceFile the class's SourceFile attribute, or {@code null}
     * @param packed one line per method: {@code name TAB descriptor TAB firstLine NEWLINE}; a line
     *        {@code name TAB descriptor TAB firstLine TAB callLine NEWLINE} registers the identifier a
     *        frame of that method holds while it calls from {@code callLine} (see {@link #getCallLine}),
     *        and after a line of the same method, {@code TAB callLine NEWLINE} says the same
     * @return the identifier of the first method; the others follow in the order of the lines
     */
    public static int forClass(String className, String sourceFile, String packed) {
        synchronized (LOCK) {
            int first = -1;
            // A method's call lines follow its own line (class-transform.ts), but perhaps in the
            // previous call: a class's lines come in chunks of one constant string each.
            int method = -1;
            for (int start = 0; start < packed.length(); ) {
                if (packed.charAt(start) == '\t') {
                    // TAB callLine: a call line of the method of the line before.
                    int end = packed.indexOf('\n', start + 1);
                    MID m = table[method];
                    register(className, m.methodName, m.descriptor, sourceFile, m.firstLine, Integer.parseInt(packed.substring(start + 1, end)), method);
                    callLines = true;
                    start = end + 1;
                    continue;
                }
                int tab1 = packed.indexOf('\t', start);
                int tab2 = packed.indexOf('\t', tab1 + 1);
                int end = packed.indexOf('\n', tab2 + 1);
                int tab3 = packed.indexOf('\t', tab2 + 1);
                boolean call = tab3 >= 0 && tab3 < end;
                String name = packed.substring(start, tab1);
                String descriptor = packed.substring(tab1 + 1, tab2);
                if (call && method < 0) {
                    method = lastRegistered(className, name, descriptor);
                }
                int id = register(className, name, descriptor, sourceFile, Integer.parseInt(packed.substring(tab2 + 1, call ? tab3 : end)),
                        call ? Integer.parseInt(packed.substring(tab3 + 1, end)) : -1, call ? method : -1);
                if (!call) {
                    method = id;
                } else if (!callLines) {
                    callLines = true;
                }
                if (first < 0) {
                    first = id;
                }
                start = end + 1;
            }
            return first < 0 ? UNKNOWN : first;
        }
    }

    /**
     * The identifier registered last for the method itself (not a call line of it), or -1. Scans
     * back from the newest: the previous chunk of the same class came just before. Caller holds LOCK.
     */
    private static int lastRegistered(String className, String methodName, String descriptor) {
        MID[] t = table;
        for (int id = count - 1; id >= 0; id--) {
            MID m = t[id];
            if (m.callLine < 0 && m.methodName.equals(methodName) && m.descriptor.equals(descriptor) && m.className.equals(className)) {
                return id;
            }
        }
        return -1;
    }

    /** Whether any identifier of a call line was registered (see {@link #getCallLine}). */
    static boolean hasCallLines() {
        return callLines;
    }

    /** Identifiers given out so far: 0 … count() - 1. */
    static int count() {
        synchronized (LOCK) {
            return count;
        }
    }

    /** The method {@code id} names, or null when {@code id} is not an identifier. */
    public static MID get(int id) {
        MID[] t = table;
        return id >= 0 && id < t.length ? t[id] : null;
    }

    /** The binary class name, e.g. {@code com.foo.Bar} or {@code com.foo.Bar$Inner}. */
    public String getClassName() {
        return className;
    }

    /** The method name. */
    public String getMethodName() {
        return methodName;
    }

    /** The JVM method descriptor, e.g. {@code (Ljava/lang/String;)I}. */
    public String getDescriptor() {
        return descriptor;
    }

    /** The source file name from the class file, or {@code null} when the class has none. */
    public String getSourceFile() {
        return sourceFile;
    }

    /** The first line number of the method, or {@code -1} when unknown. */
    public int getFirstLine() {
        return firstLine;
    }

    /**
     * The source line this frame calls from, or {@code -1}. A class instrumented with
     * {@code instrument --call-lines} registers, beside each method's identifier, one per line the
     * method calls from, and a frame holds the one of its current call while the call runs, so that
     * a stack of identifiers reads like a stack trace. Such identifiers name the same method: fold
     * them by {@link #toString()} when counting per method.
     */
    public int getCallLine() {
        return callLine;
    }

    /**
     * The identifier of the method itself: this identifier's own, or for one of its call lines
     * ({@link #getCallLine} {@code >= 0}) the identifier registered for the method. The samples tree
     * keeps one context per method, whatever line its frame calls from.
     */
    public int getMethod() {
        return method;
    }

    /** The identifier of the method {@code id} names ({@link #getMethod}), or {@code id} when it names none. */
    static int methodOf(int id) {
        MID m = get(id);
        return m == null ? id : m.method;
    }

    /** {@code com.foo.Bar.baz(I)V}. */
    @Override
    public String toString() {
        return className + "." + methodName + descriptor;
    }

    /** {@code toString()} of the method {@code id} names, or {@code <unknown id>}. */
    public static String toString(int id) {
        MID m = get(id);
        return m != null ? m.toString() : "<unknown " + id + ">";
    }
}
