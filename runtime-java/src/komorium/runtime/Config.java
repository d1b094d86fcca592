package komorium.runtime;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

/**
 * The runtime's configuration, read once from system properties ({@code -Dname=value}) when the
 * first instrumented code runs. An invalid value is reported on standard error and replaced by its
 * default; the program always runs.
 *
 * <table border="1">
 * <caption>System properties</caption>
 * <tr><th>Property</th><th>Default</th><th>Meaning</th></tr>
 * <tr><td>{@code komorium.agent}</td><td>{@code sampling}</td><td>The profiling agent:
 *   {@code sampling} (samples tree, seed 002 §6), {@code exact} (granularity 1, every bytecode
 *   attributed to its calling context: the ground truth of §7.1, slow), {@code none} (count
 *   bytecodes but never sample: the lowest overhead, no profile), or the binary name of a class
 *   implementing {@link SamplingProfiler} with a public no-argument constructor.</td></tr>
 * <tr><td>{@code komorium.granularity}</td><td>{@code 10000}</td><td>Sampling granularity g of
 *   the {@code sampling} agent: bytecodes between two samples of a thread ({@code >= 1}).</td></tr>
 * <tr><td>{@code komorium.random}</td><td>{@code 100}</td><td>R: each granularity is g + r with r
 *   uniform in {@code 0 <= r < R}, drawn from a per-thread generator (§7.1); 0 keeps it constant.
 *   </td></tr>
 * <tr><td>{@code komorium.seed}</td><td>{@code 0}</td><td>Seed of the random granularities. Each
 *   thread's generator is seeded from it and the thread's registration order (0 for the first
 *   thread), so a run with the same seed and the same thread start order repeats exactly.</td></tr>
 * <tr><td>{@code komorium.out}</td><td>{@code komorium.kprof}</td><td>The profile file the
 *   {@code sampling} and {@code exact} agents write at exit, relative to the working directory;
 *   {@code %p} is replaced by the process id. Written atomically (a temporary file in the same
 *   directory, then a rename).</td></tr>
 * <tr><td>{@code komorium.stackSize}</td><td>{@code 1024}</td><td>Slots of a reified stack
 *   ({@code >= 2}). Deeper stacks are truncated, never an error: the innermost frame is kept and
 *   the frames between appear as {@code <truncated>}.</td></tr>
 * <tr><td>{@code komorium.maxStacks}</td><td>{@code 5}</td><td>Reified stacks each thread keeps in
 *   its pool for reuse ({@code >= 0}) (§3.2).</td></tr>
 * <tr><td>{@code komorium.maxContexts}</td><td>{@code 1000000}</td><td>Calling contexts the
 *   {@code sampling} and {@code exact} agents keep (each takes about 120 bytes, so about 120 MB at
 *   the default), so that the samples tree cannot exhaust the heap ({@code >= 1}). A fixed number,
 *   not one derived from the heap, so that the same program gives the same profile on machines
 *   with different memory; lower it for small heaps. Once
 *   reached, a sample whose context is new counts under {@code <truncated>} below the deepest of
 *   its frames that is already in the tree (reported once on standard error, unless quiet).</td></tr>
 * <tr><td>{@code komorium.threads}</td><td>{@code all}</td><td>Which threads are profiled, by
 *   registration index (the order in which threads first run instrumented code; 0 is normally
 *   the main thread): {@code all}, {@code even}, {@code odd}, or {@code K/N} for the threads whose
 *   index is K modulo N ({@code even} is {@code 0/2}, {@code odd} is {@code 1/2}). Other threads
 *   run as under {@code none}: the agent never sees them, and neither their samples nor their
 *   bytecodes count. Each thread keeps its index (and so its random seed) whatever the filter,
 *   so when the threads' work and start order are deterministic, {@code komorium-ts merge} of the
 *   N profiles {@code 0/N} … {@code N-1/N} is the profile of the whole run.</td></tr>
 * <tr><td>{@code komorium.start}</td><td>{@code true}</td><td>{@code false} starts with recording
 *   stopped: nothing is recorded until {@link Control#start} (from the program, or through JMX), so that
 *   start-up or warm-up can be left out.</td></tr>
 * <tr><td>{@code komorium.jmx}</td><td>{@code false}</td><td>{@code true} registers the MBean
 *   {@code komorium:type=Profiler} (start, stop, reset, dump) in the platform MBean server when the
 *   runtime starts, for jconsole, VisualVM or any JMX client.</td></tr>
 * <tr><td>{@code komorium.tests}</td><td>(none)</td><td>A folder: the JUnit Platform listener in the runtime
 *   writes one profile per test there ({@link PerTestListener}), and the agent
 *   defaults to {@code exact}.</td></tr>
 * <tr><td>{@code komorium.quiet}</td><td>{@code false}</td><td>{@code true} (or empty) suppresses
 *   the informational lines the runtime prints on standard error: the line at exit, and the
 *   warning that {@code komorium.maxContexts} was reached (the profile's {@code truncated} count
 *   still records that). Errors are still reported.</td></tr>
 * </table>
 */
public final class Config {
    /** A duration as strictDuration reads it; first, so that any property may be read as one. */
    private static final java.util.regex.Pattern DURATION = java.util.regex.Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*(ns|us|ms|s)?");
    /** {@code komorium.tests}: a folder for per-test profiles, or null. */
    private static final String TESTS = testsFolder();
    // Per-test counts are exact bytecode counts unless an agent is named.
    private static final String AGENT = string("komorium.agent", TESTS != null ? "exact" : "sampling");
    private static final int GRANULARITY = integer("komorium.granularity", 10000, 1);
    /**
     * Randomized by default: a constant granularity can fall into step with a loop (BENCHMARKS.md:
     * at 10,000, Xalan's profile overlaps the exact one 94.5% constant and 98.5% with R = 100, at no
     * measurable cost), and the per-thread generators keep the profile reproducible.
     */
    private static final int RANDOM = integer("komorium.random", 100, 0);
    private static final long SEED = longValue("komorium.seed", 0L);
    private static final int STACK_SIZE = integer("komorium.stackSize", 1024, 2);
    private static final int MAX_STACKS = integer("komorium.maxStacks", 5, 0);
    private static final int MAX_CONTEXTS = integer("komorium.maxContexts", defaultMaxContexts(), 1);
    private static final boolean QUIET = bool("komorium.quiet");
    /** {@code komorium.threads} as {K, N}: the threads whose index is K modulo N; {0, 1} for all. */
    private static final int[] THREADS = threads("komorium.threads");
    private static final String OUT = outPath(string("komorium.out", "komorium.kprof"));
    private static final boolean OUT_GIVEN = raw("komorium.out") != null && !raw("komorium.out").trim().isEmpty();
    private static final boolean START = !"false".equalsIgnoreCase(string("komorium.start", "true"));
    private static final boolean JMX = bool("komorium.jmx");

    private Config() {
    }

    /** {@code komorium.agent}: {@code sampling}, {@code exact}, {@code none} or a class name. */
    public static String agent() {
        return AGENT;
    }

    /** {@code komorium.granularity}, at least 1. */
    public static int granularity() {
        return GRANULARITY;
    }

    /** {@code komorium.random}: R, at least 0. */
    public static int random() {
        return RANDOM;
    }

    /** {@code komorium.seed}. */
    public static long seed() {
        return SEED;
    }

    /** {@code komorium.out} as an absolute path, {@code %p} replaced by the process id. */
    public static String out() {
        return OUT;
    }

    /** Whether {@code komorium.out} was given (not the default). */
    static boolean outGiven() {
        return OUT_GIVEN;
    }

    /** {@code komorium.start}: whether the agent records from the start. */
    static boolean startRecording() {
        return START;
    }

    /** {@code komorium.jmx}. */
    static boolean jmx() {
        return JMX;
    }

    /** {@code komorium.tests} as an absolute path, or null. */
    public static String testsDir() {
        return TESTS;
    }

    private static String testsFolder() {
        String v = raw("komorium.tests");
        return v == null || v.trim().isEmpty() ? null : new File(v.trim()).getAbsolutePath();
    }

    /** {@code komorium.stackSize}, at least 2. */
    public static int stackSize() {
        return STACK_SIZE;
    }

    /** {@code komorium.maxStacks}, at least 0. */
    public static int maxStacks() {
        return MAX_STACKS;
    }

    /** {@code komorium.maxContexts}, at least 1. */
    public static int maxContexts() {
        return MAX_CONTEXTS;
    }

    /** One calling context per KB of the maximum heap (a context takes about 120 bytes), 1,000 to 1,000,000. */
    private static int defaultMaxContexts() {
        return 1000000;
    }

    /** {@code komorium.quiet}. */
    public static boolean quiet() {
        return QUIET;
    }

    /** {@code komorium.threads}: whether the thread with this registration index is profiled. */
    static boolean recordsThread(int index) {
        return index % THREADS[1] == THREADS[0];
    }

    /** The process id, or -1 when the JVM offers no way to learn it. */
    public static long pid() {
        return Pid.VALUE;
    }

    /** All {@code komorium.*} system properties as {@code name=value}, sorted, space separated. */
    static String options() {
        List<String> names = new ArrayList<String>();
        Properties props;
        try {
            props = System.getProperties();
        } catch (SecurityException e) {
            return "";
        }
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("komorium.")) {
                names.add(name);
            }
        }
        Collections.sort(names);
        StringBuilder sb = new StringBuilder();
        for (String name : names) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(name).append('=').append(props.getProperty(name));
        }
        return sb.toString();
    }

    private static String raw(String name) {
        try {
            return System.getProperty(name);
        } catch (SecurityException e) {
            return null;
        }
    }

    private static String string(String name, String dflt) {
        String v = raw(name);
        return v == null || v.trim().isEmpty() ? dflt : v.trim();
    }

    private static int integer(String name, int dflt, int min) {
        String v = raw(name);
        if (v == null || v.trim().isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        invalid(name, v, "an integer >= " + min, String.valueOf(dflt));
        return dflt;
    }

    private static long longValue(String name, long dflt) {
        String v = raw(name);
        if (v == null || v.trim().isEmpty()) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            invalid(name, v, "an integer", String.valueOf(dflt));
            return dflt;
        }
    }

    private static boolean bool(String name) {
        String v = raw(name);
        if (v == null) {
            return false;
        }
        v = v.trim();
        // A bare -Dkomorium.quiet means "on".
        return v.isEmpty() || v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes");
    }

    private static int[] threads(String name) {
        String v = string(name, "all").toLowerCase(java.util.Locale.ROOT);
        if (v.equals("all")) {
            return new int[] {0, 1};
        }
        if (v.equals("even") || v.equals("odd")) {
            return new int[] {v.equals("even") ? 0 : 1, 2};
        }
        int slash = v.indexOf('/');
        try {
            int k = Integer.parseInt(v.substring(0, slash).trim());
            int n = Integer.parseInt(v.substring(slash + 1).trim());
            if (n >= 1 && k >= 0 && k < n) {
                return new int[] {k, n};
            }
        } catch (RuntimeException e) {
            // reported below (no slash, or not numbers)
        }
        invalid(name, v, "all, even, odd or K/N with 0 <= K < N", "all");
        return new int[] {0, 1};
    }

    /**
     * An integer property of the profile kinds built on the Arnold–Ryder framework. Unlike the
     * Komorium agent's properties, a bad value is not replaced by the default: the run would
     * silently profile with a setting the user did not ask for, so the JVM stops at once with one
     * line naming the property (exit status 2).
     */
    static int strictInteger(String name, int dflt, int min) {
        return strictInteger(name, dflt, min, "an integer >= " + min);
    }

    /** {@link #strictInteger(String, int, int)} with the words that say what is expected. */
    static int strictInteger(String name, int dflt, int min, String expected) {
        String v = raw(name);
        if (v == null || v.trim().isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        return refuse(name, v, expected, dflt);
    }

    /**
     * A duration property of the framework kinds, strict like {@link #strictInteger}: a positive
     * number with a unit, {@code ns}, {@code us}, {@code ms} or {@code s} ({@code 10ms},
     * {@code 0.5s}), a bare number being milliseconds. Returns nanoseconds, between
     * {@code minNanos} and one hour.
     */
    static long strictDuration(String name, long dfltNanos, long minNanos) {
        String v = raw(name);
        if (v == null || v.trim().isEmpty()) {
            return dfltNanos;
        }
        java.util.regex.Matcher m = DURATION.matcher(v.trim().toLowerCase(java.util.Locale.ROOT));
        if (m.matches()) {
            String unit = m.group(2) == null ? "ms" : m.group(2);
            long scale = unit.equals("ns") ? 1L : unit.equals("us") ? 1000L : unit.equals("ms") ? 1000000L : 1000000000L;
            double nanos = Double.parseDouble(m.group(1)) * scale;
            if (nanos >= minNanos && nanos <= 3600e9) {
                return (long) nanos;
            }
        }
        return refuse(name, v, "a duration from " + minNanos / 1000 + "us to 3600s, such as 10ms, 500us or 1s", dfltNanos);
    }

    /** A property of the framework kinds that names one of {@code choices} (case-insensitive), strict like {@link #strictInteger}. */
    static String strictChoice(String name, String dflt, String... choices) {
        String v = raw(name);
        if (v == null || v.trim().isEmpty()) {
            return dflt;
        }
        for (String c : choices) {
            if (c.equalsIgnoreCase(v.trim())) {
                return c;
            }
        }
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < choices.length; i++) {
            expected.append(i == 0 ? "" : i == choices.length - 1 ? " or " : ", ").append(choices[i]);
        }
        return refuse(name, v, expected.toString(), dflt);
    }

    /**
     * A grid of two lists of integers >= 1, {@code 1,3,7x1,16} (strides, then samples), strict like
     * {@link #strictInteger}; null when the property is not set.
     */
    static int[][] strictGrid(String name) {
        String v = raw(name);
        if (v == null || v.trim().isEmpty()) {
            return null;
        }
        String[] halves = v.trim().split("x", -1);
        if (halves.length == 2) {
            try {
                int[][] out = {ints(halves[0]), ints(halves[1])};
                if (out[0].length > 0 && out[1].length > 0) {
                    return out;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        return refuse(name, v, "two comma-separated lists of integers >= 1 joined by x, such as 1,3,7x1,16", null);
    }

    private static int[] ints(String list) {
        String[] parts = list.split(",", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = Integer.parseInt(parts[i].trim());
            if (out[i] < 1) {
                throw new NumberFormatException(parts[i]);
            }
        }
        return out;
    }

    /** {@link #refuse(String, String, String)}, typed for the reader that calls it (it never returns). */
    private static <T> T refuse(String name, String value, String expected, T dflt) {
        refuse(name, value, expected);
        return dflt;
    }

    /** The raw value of a property of a framework kind, or null when unset or blank. */
    static String strictRaw(String name) {
        String v = raw(name);
        return v == null || v.trim().isEmpty() ? null : v.trim();
    }

    /**
     * Stops the JVM (exit status 2) with one line naming a framework kind's property and what it
     * expects: the program does not run with a setting the user did not ask for.
     */
    static void refuse(String name, String value, String expected) {
        Report.error("komorium: -D" + name + "=" + value + " is not valid (expected " + expected
                + "); the program was not started");
        Runtime.getRuntime().halt(2);
    }

    private static void invalid(String name, String value, String expected, String dflt) {
        Report.error("komorium: ignoring -D" + name + "=" + value + " (expected " + expected + "); using " + dflt);
    }

    static String outPath(String out) {
        String path = out.replace("%p", String.valueOf(pid()));
        // Resolved now: the working directory of a JVM cannot change, but relative paths would be
        // resolved again by every File operation; one absolute path is simpler to report.
        return new File(path).getAbsolutePath();
    }

    /** Holder so that the pid is looked up once, and only when needed. */
    private static final class Pid {
        static final long VALUE = lookup();

        private static long lookup() {
            try {
                // ProcessHandle exists from Java 9 on; reflection keeps the runtime Java 8 compatible.
                Class<?> ph = Class.forName("java.lang.ProcessHandle");
                Object current = ph.getMethod("current").invoke(null);
                return ((Long) ph.getMethod("pid").invoke(current)).longValue();
            } catch (Exception | LinkageError e) {
                // Java 8: fall through to /proc.
            }
            try {
                File self = new File("/proc/self").getCanonicalFile();
                return Long.parseLong(self.getName());
            } catch (Exception e) {
                return -1;
            }
        }
    }
}
