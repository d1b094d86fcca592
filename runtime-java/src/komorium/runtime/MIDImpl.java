package komorium.runtime;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The method identifier the instrumented program pushes onto its reified stack (seed 002, §3.1).
 *
 * <p>It names a method by strings only and holds no {@code Class} reference, so that profiling
 * never keeps a class (and its class loader) from being unloaded. Two instances are different
 * identifiers even when their names are equal (the same class loaded by two class loaders); the
 * profile writer merges such identifiers by name. Instances are immutable and safe to share
 * between threads.
 */
public final class MIDImpl implements MID {
    /** Sequence numbers make hash codes distinct and cheap (no identity hash, no string hashing). */
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /**
     * Stands for the frames that did not fit into a reified stack of {@code komorium.stackSize}
     * slots: once a stack is full, {@link TC#push} keeps overwriting its top slot with the
     * innermost method and stores this marker in the slot below, so a sample of a too-deep stack
     * reads {@code outer frames…, <truncated>, innermost method}. (The built-in agents record such
     * a sample in the context {@code outer frames…, <truncated>}, as docs/profile-format.md asks.)
     */
    public static final MIDImpl TRUNCATED = new MIDImpl("<truncated>", "<truncated>", "()V", null, -1);


    private final String className;
    private final String methodName;
    private final String descriptor;
    private final String sourceFile;
    private final int firstLine;
    /**
     * Hash for identity-keyed maps in agents: a Weyl sequence, so that consecutive identifiers
     * fall into different slots of any power-of-two table.
     */
    final int hash;

    /**
     * Called by the static initializer of every instrumented class, once per method.
     *
     * @param className  binary name as {@code Class.getName()} returns it, e.g. {@code com.foo.Bar}
     * @param methodName method name, {@code <init>} or {@code <clinit>} included
     * @param descriptor JVM method descriptor, e.g. {@code (I)V}
     * @param sourceFile the class's SourceFile attribute, or {@code null}
     * @param firstLine  the method's first line number, or {@code -1}
     */
    public MIDImpl(String className, String methodName, String descriptor, String sourceFile, int firstLine) {
        this.className = className == null ? "" : className;
        this.methodName = methodName == null ? "" : methodName;
        this.descriptor = descriptor == null ? "" : descriptor;
        this.sourceFile = sourceFile;
        this.firstLine = firstLine;
        this.hash = SEQUENCE.getAndIncrement() * 0x9E3779B9;
    }

    /**
     * Creates the identifiers of one class in a single call from its static initializer: one
     * {@code ldc} of a packed string per class instead of five constants per method keeps
     * {@code <clinit>} and the constant pool small.
     *
     * @param className binary name as {@code Class.getName()} returns it
     * @param sourceFile the class's SourceFile attribute, or {@code null}
     * @param packed one line per method: {@code name TAB descriptor TAB firstLine NEWLINE}
     * @return the identifiers in the order of the lines
     */
    public static MID[] forClass(String className, String sourceFile, String packed) {
        int n = 0;
        for (int i = 0; i < packed.length(); i++) {
            if (packed.charAt(i) == '\n') n++;
        }
        MID[] mids = new MID[n];
        int start = 0;
        for (int k = 0; k < n; k++) {
            int tab1 = packed.indexOf('\t', start);
            int tab2 = packed.indexOf('\t', tab1 + 1);
            int end = packed.indexOf('\n', tab2 + 1);
            mids[k] = new MIDImpl(className, packed.substring(start, tab1), packed.substring(tab1 + 1, tab2),
                    sourceFile, Integer.parseInt(packed.substring(tab2 + 1, end)));
            start = end + 1;
        }
        return mids;
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

    /** {@code com.foo.Bar.baz(I)V}. */
    @Override
    public String toString() {
        return className + "." + methodName + descriptor;
    }
}
