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

    /** Columns of the table, replaced whole (and published by a volatile write) when they grow. */
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

    private static volatile Table table = new Table(4096);
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
     * @param layout the layout the class was instrumented with ({@code instrument --layout})
     * @return the number of the first site; the others follow in order
     */
    public static int forClass(String className, String sourceFile, String methods, String sites, String layout) {
        int mid = MID.forClass(className, sourceFile, methods);
        synchronized (LOCK) {
            noteLayout(layout);
            int first = count;
            Table t = table;
            for (int start = 0; start < sites.length(); ) {
                int end = sites.indexOf('\n', start);
                String[] f = split(sites.substring(start, end), 7);
                if (count == t.method.length) {
                    t = t.grow(2 * count, count);
                }
                t.method[count] = mid + Integer.parseInt(f[0]);
                t.bci[count] = Integer.parseInt(f[1]);
                t.line[count] = Integer.parseInt(f[2]);
                t.what[count] = f[3].intern();
                t.owner[count] = f[4].intern();
                t.name[count] = f[5].intern();
                t.descriptor[count] = f[6].intern();
                count++;
                start = end + 1;
            }
            table = t;
            return first;
        }
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
        return table.method[site];
    }

    static int bci(int site) {
        return table.bci[site];
    }

    static int line(int site) {
        return table.line[site];
    }

    static String what(int site) {
        return table.what[site];
    }

    static String owner(int site) {
        return table.owner[site];
    }

    static String name(int site) {
        return table.name[site];
    }

    static String descriptor(int site) {
        return table.descriptor[site];
    }
}
