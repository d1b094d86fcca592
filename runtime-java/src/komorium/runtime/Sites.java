package komorium.runtime;

/**
 * The site table of the Arnold–Ryder framework: every place in an instrumented method that a
 * profile kind records (a call, a field access, ...), numbered when its class initializes. The
 * instrumented code passes a site as an int ({@code komorium$sites + k}), so a handler counts
 * into plain arrays; this table turns the number back into method, bytecode index, line and the
 * member the instruction names when the profile is written. Like {@link MID}, it holds strings
 * only, never a {@code Class}, and numbers are never reused.
 */
public final class Sites {
    private static final Object LOCK = new Object();

    /** Columns of the table, replaced whole when they grow; read and written under LOCK. */
    private static final class Table {
        final int[] method;
        final int[] bci;
        final int[] line;
        final String[] what;
        final String[] owner;
        final String[] name;
        final String[] descriptor;

        Table(int n) {
            method = new int[n];
            bci = new int[n];
            line = new int[n];
            what = new String[n];
            owner = new String[n];
            name = new String[n];
            descriptor = new String[n];
        }

        Table grow(int n, int used) {
            Table t = new Table(n);
            System.arraycopy(method, 0, t.method, 0, used);
            System.arraycopy(bci, 0, t.bci, 0, used);
            System.arraycopy(line, 0, t.line, 0, used);
            System.arraycopy(what, 0, t.what, 0, used);
            System.arraycopy(owner, 0, t.owner, 0, used);
            System.arraycopy(name, 0, t.name, 0, used);
            System.arraycopy(descriptor, 0, t.descriptor, 0, used);
            return t;
        }
    }

    /**
     * One class's sites as registered: parsed into the table only when a site of it is first asked
     * for (a callee resolved, the profile written). Parsing at registration cost Rhino's startup
     * about 0.15 s of CPU: every site of every loaded class split and interned in the interpreter.
     */
    private static final class Block {
        final int first;
        final int count;
        final int mid;
        String packed;

        Block(int first, int count, int mid, String packed) {
            this.first = first;
            this.count = count;
            this.mid = mid;
            this.packed = packed;
        }
    }

    private static Table table = new Table(4096);
    private static Block[] blocks = new Block[256];
    private static int blockCount;
    private static int count;
    private static String layouts = "";

    private Sites() {
    }

    /**
     * Registers the methods and sites of one class, from its static initializer.
     *
     * @param className binary name as {@code Class.getName()} returns it
     * @param sourceFile the SourceFile attribute, or null
     * @param methods as {@link MID#forClass}: {@code name TAB descriptor TAB firstLine NEWLINE} per method
     * @param sites one line per site: {@code methodIndex TAB bci TAB line TAB what TAB owner TAB name TAB descriptor NEWLINE},
     *              methodIndex counting the lines of {@code methods} from 0
     * @param siteCount the number of lines of {@code sites}
     * @param layout the layout the class was instrumented with ({@code instrument --layout})
     * @return the number of the first site; the others follow in order
     */
    public static int forClass(String className, String sourceFile, String methods, String sites, int siteCount, String layout) {
        KindOptions.check();
        int mid = MID.forClass(className, sourceFile, methods);
        synchronized (LOCK) {
            noteLayout(layout);
            int first = count;
            if (blockCount == blocks.length) {
                Block[] b = new Block[2 * blockCount];
                System.arraycopy(blocks, 0, b, 0, blockCount);
                blocks = b;
            }
            blocks[blockCount++] = new Block(first, siteCount, mid, sites);
            count += siteCount;
            return first;
        }
    }

    /** The table with {@code site}'s row filled in; the caller holds LOCK. */
    private static Table rowOf(int site) {
        int lo = 0;
        int hi = blockCount - 1;
        while (lo < hi) {
            int m = (lo + hi + 1) >>> 1;
            if (blocks[m].first <= site) {
                lo = m;
            } else {
                hi = m - 1;
            }
        }
        Block b = blocks[lo];
        if (b.packed != null) {
            parse(b);
        }
        return table;
    }

    private static void parse(Block b) {
        Table t = table;
        if (t.method.length < b.first + b.count) {
            int n = t.method.length;
            while (n < b.first + b.count) {
                n *= 2;
            }
            t = t.grow(n, t.method.length);
            table = t;
        }
        String sites = b.packed;
        int row = b.first;
        for (int start = 0; start < sites.length(); row++) {
            int end = sites.indexOf('\n', start);
            String[] f = split(sites.substring(start, end), 7);
            t.method[row] = b.mid + Integer.parseInt(f[0]);
            t.bci[row] = Integer.parseInt(f[1]);
            t.line[row] = Integer.parseInt(f[2]);
            t.what[row] = f[3].intern();
            t.owner[row] = f[4].intern();
            t.name[row] = f[5].intern();
            t.descriptor[row] = f[6].intern();
            start = end + 1;
        }
        b.packed = null;
    }

    private static String[] split(String s, int n) {
        String[] out = new String[n];
        int start = 0;
        for (int i = 0; i < n - 1; i++) {
            int tab = s.indexOf('\t', start);
            out[i] = s.substring(start, tab);
            start = tab + 1;
        }
        out[n - 1] = s.substring(start);
        return out;
    }

    private static void noteLayout(String layout) {
        if (layouts.isEmpty()) {
            layouts = layout;
        } else if (!layouts.equals(layout)) {
            layouts = "mixed";
        }
    }

    /** The layout of the instrumented classes that ran, or {@code mixed}. */
    static String layout() {
        synchronized (LOCK) {
            return layouts;
        }
    }

    /** Sites numbered so far: 0 … count() - 1. */
    static int count() {
        synchronized (LOCK) {
            return count;
        }
    }

    static int method(int site) {
        synchronized (LOCK) {
            return rowOf(site).method[site];
        }
    }

    static int bci(int site) {
        synchronized (LOCK) {
            return rowOf(site).bci[site];
        }
    }

    static int line(int site) {
        synchronized (LOCK) {
            return rowOf(site).line[site];
        }
    }

    static String what(int site) {
        synchronized (LOCK) {
            return rowOf(site).what[site];
        }
    }

    static String owner(int site) {
        synchronized (LOCK) {
            return rowOf(site).owner[site];
        }
    }

    static String name(int site) {
        synchronized (LOCK) {
            return rowOf(site).name[site];
        }
    }

    static String descriptor(int site) {
        synchronized (LOCK) {
            return rowOf(site).descriptor[site];
        }
    }
}
