package komorium.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The caller of a sampled method entry, for the entry placements of {@code cbs} that were measured
 * against its call-site checks (BENCHMARKS-cbs.md). A sample names its call site when the caller
 * is an instrumented call site whose named method the entered one can be: same name and
 * descriptor, and for a call the instruction fixes, the same class. Anything else (a callback from
 * the JDK, a stale slot) is dropped and counted.
 *
 * <p>From the stack: StackWalker (Java 9 and later, reached through method handles since the
 * runtime is compiled for Java 8) with hidden and reflection frames shown, so that the frame below
 * the entered method is its real caller; on Java 8, a Throwable's stack trace. Either gives the
 * caller's line, not the bytecode index of the instrumented code's original call, so the site is
 * found by line and named method; a line with two such calls is ambiguous and dropped.
 */
final class CbsCallers {
    private CbsCallers() {
    }

    static void fromSlot(int entrySite, int callSite, String placement) {
        Cbs.placement = placement;
        int entered = Sites.method(entrySite);
        if (callSite >= 0 && calls(callSite, MID.get(entered))) {
            Cbs.record(callSite, entered);
        } else {
            Cbs.dropped++;
        }
    }

    static void fromStack(int entrySite) {
        Cbs.placement = "entry-stack";
        int entered = Sites.method(entrySite);
        MID m = MID.get(entered);
        String[] caller = Walker.caller(m);
        int site = caller == null ? -1 : find(caller, m);
        if (site >= 0) {
            Cbs.record(site, entered);
        } else {
            Cbs.dropped++;
        }
    }

    /** Whether the call at {@code site} can run method {@code m}. */
    private static boolean calls(int site, MID m) {
        if (m == null || !Sites.name(site).equals(m.getMethodName()) || !Sites.descriptor(site).equals(m.getDescriptor())) {
            return false;
        }
        String what = Sites.what(site);
        boolean dispatched = what.equals("invokevirtual") || what.equals("invokeinterface");
        return dispatched || Sites.owner(site).replace('/', '.').equals(m.getClassName());
    }

    /** Call sites by "class TAB method TAB line", indexed as classes register. */
    private static final Map<String, List<Integer>> BY_LINE = new HashMap<String, List<Integer>>();
    private static int indexed;

    /** The one call site of {@code caller} (class, method, descriptor or null, line) that can run {@code m}, or -1. */
    private static int find(String[] caller, MID m) {
        List<Integer> candidates;
        synchronized (BY_LINE) {
            for (int n = Sites.count(); indexed < n; indexed++) {
                if (!Sites.what(indexed).startsWith("invoke")) {
                    continue;
                }
                MID in = MID.get(Sites.method(indexed));
                String key = in.getClassName() + "\t" + in.getMethodName() + "\t" + Sites.line(indexed);
                List<Integer> list = BY_LINE.get(key);
                if (list == null) {
                    list = new ArrayList<Integer>(2);
                    BY_LINE.put(key, list);
                }
                list.add(indexed);
            }
            candidates = BY_LINE.get(caller[0] + "\t" + caller[1] + "\t" + caller[3]);
        }
        if (candidates == null) {
            return -1;
        }
        int found = -1;
        for (int site : candidates) {
            boolean sameMethod = caller[2] == null || MID.get(Sites.method(site)).getDescriptor().equals(caller[2]);
            if (sameMethod && calls(site, m)) {
                if (found >= 0) {
                    return -1;
                }
                found = site;
            }
        }
        return found;
    }

    /** The frame below the entered method: {class, method, descriptor (null on Java 8), line}, or null. */
    private static final class Walker {
        private static final Object WALKER;
        private static final MethodHandle WALK;
        private static final MethodHandle CLASS_NAME;
        private static final MethodHandle METHOD_NAME;
        private static final MethodHandle DESCRIPTOR;
        private static final MethodHandle LINE;

        static {
            Object walker = null;
            MethodHandle walk = null;
            MethodHandle cls = null;
            MethodHandle name = null;
            MethodHandle desc = null;
            MethodHandle line = null;
            try {
                Class<?> sw = Class.forName("java.lang.StackWalker");
                Class<?> option = Class.forName("java.lang.StackWalker$Option");
                Class<?> frame = Class.forName("java.lang.StackWalker$StackFrame");
                Set<Object> options = new HashSet<Object>(Arrays.asList(option.getField("SHOW_HIDDEN_FRAMES").get(null),
                        option.getField("SHOW_REFLECT_FRAMES").get(null)));
                walker = sw.getMethod("getInstance", Set.class).invoke(null, options);
                MethodHandles.Lookup l = MethodHandles.publicLookup();
                walk = l.findVirtual(sw, "walk", MethodType.methodType(Object.class, java.util.function.Function.class))
                        .asType(MethodType.methodType(Object.class, Object.class, java.util.function.Function.class));
                MethodType toString = MethodType.methodType(String.class, Object.class);
                cls = l.findVirtual(frame, "getClassName", MethodType.methodType(String.class)).asType(toString);
                name = l.findVirtual(frame, "getMethodName", MethodType.methodType(String.class)).asType(toString);
                line = l.findVirtual(frame, "getLineNumber", MethodType.methodType(int.class)).asType(MethodType.methodType(int.class, Object.class));
                try {
                    desc = l.findVirtual(frame, "getDescriptor", MethodType.methodType(String.class)).asType(toString);
                } catch (NoSuchMethodException e) {
                    // Java 9: no descriptor; the line and name still find the site.
                }
            } catch (Exception | LinkageError e) {
                // Java 8: the stack trace below.
                walker = null;
            }
            WALKER = walker;
            WALK = walk;
            CLASS_NAME = cls;
            METHOD_NAME = name;
            DESCRIPTOR = desc;
            LINE = line;
        }

        private static boolean internal(String className) {
            return className.startsWith("komorium.runtime.");
        }

        static String[] caller(MID entered) {
            String[] callee;
            String[] caller;
            if (WALKER != null) {
                Object[] two;
                try {
                    two = (Object[]) WALK.invokeExact(WALKER, (java.util.function.Function<java.util.stream.Stream<Object>, Object>) stream ->
                            stream.filter(f -> !internal(get(CLASS_NAME, f))).limit(2).toArray());
                } catch (Throwable t) {
                    return null;
                }
                if (two.length < 2) {
                    return null;
                }
                callee = frame(two[0]);
                caller = frame(two[1]);
            } else {
                StackTraceElement[] trace = new Throwable().getStackTrace();
                int i = 0;
                while (i < trace.length && internal(trace[i].getClassName())) {
                    i++;
                }
                if (i + 1 >= trace.length) {
                    return null;
                }
                callee = new String[] {trace[i].getClassName(), trace[i].getMethodName(), null, ""};
                StackTraceElement c = trace[i + 1];
                caller = new String[] {c.getClassName(), c.getMethodName(), null, String.valueOf(c.getLineNumber())};
            }
            // The frame on top must be the entered method: anything else means the walk saw something unexpected.
            boolean same = callee[0].equals(entered.getClassName()) && callee[1].equals(entered.getMethodName())
                    && (callee[2] == null || callee[2].equals(entered.getDescriptor()));
            return same ? caller : null;
        }

        private static String[] frame(Object f) {
            try {
                return new String[] {(String) CLASS_NAME.invokeExact(f), (String) METHOD_NAME.invokeExact(f),
                    DESCRIPTOR == null ? null : (String) DESCRIPTOR.invokeExact(f), String.valueOf((int) LINE.invokeExact(f))};
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        private static String get(MethodHandle h, Object f) {
            try {
                return (String) h.invokeExact(f);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
