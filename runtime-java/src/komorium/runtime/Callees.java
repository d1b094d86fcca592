package komorium.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The method a call actually ran: for a virtual or interface call, the method that JVM selection
 * (JVMS 5.4.6) picks for the receiver's class, which may be a subclass's override, a default
 * method, a JDK class's method or a lambda's generated class; for any other call, the method the
 * instruction names (resolved when the class was instrumented). Answers are cached per site (the
 * last receiver class) and per class, so reflection runs once per class and method.
 */
final class Callees {
    private Callees() {
    }

    /** The last receiver class a site saw and what it selected; replaced whole, so races are harmless. */
    private static final class Hit {
        final Class<?> type;
        final int mid;

        Hit(Class<?> type, int mid) {
            this.type = type;
            this.mid = mid;
        }
    }

    private static volatile Hit[] hits = new Hit[4096];
    private static volatile int[] statics = new int[4096];

    private static final ClassValue<Map<String, Integer>> SELECTED = new ClassValue<Map<String, Integer>>() {
        @Override
        protected Map<String, Integer> computeValue(Class<?> type) {
            return new HashMap<String, Integer>();
        }
    };

    /** The method the call at {@code site} ran on {@code receiver}. */
    static int of(int site, Object receiver) {
        Class<?> type = receiver.getClass();
        Hit[] h = hits;
        if (site < h.length) {
            Hit hit = h[site];
            if (hit != null && hit.type == type) {
                return hit.mid;
            }
        }
        int mid = select(site, type);
        remember(site, new Hit(type, mid));
        return mid;
    }

    /** The method the call at {@code site} names (the static target). */
    static int named(int site) {
        int[] s = statics;
        if (site < s.length && s[site] != 0) {
            return s[site];
        }
        int mid = MID.register(javaName(Sites.owner(site)), Sites.name(site), Sites.descriptor(site), null, -1);
        synchronized (Callees.class) {
            if (site >= statics.length) {
                statics = java.util.Arrays.copyOf(statics, Math.max(2 * statics.length, site + 1));
            }
            if (statics[site] == 0) {
                statics[site] = mid;
            }
            return statics[site];
        }
    }

    private static void remember(int site, Hit hit) {
        Hit[] h = hits;
        if (site >= h.length) {
            synchronized (Callees.class) {
                h = hits;
                if (site >= h.length) {
                    h = java.util.Arrays.copyOf(h, Math.max(2 * h.length, site + 1));
                    hits = h;
                }
            }
        }
        h[site] = hit;
    }

    private static int select(int site, Class<?> type) {
        String name = Sites.name(site);
        String desc = Sites.descriptor(site);
        Map<String, Integer> byMethod = SELECTED.get(type);
        String key = name + desc;
        synchronized (byMethod) {
            Integer known = byMethod.get(key);
            if (known != null) {
                return known;
            }
        }
        int mid;
        try {
            Class<?> declaring = declaringClass(type, name, desc);
            mid = declaring == null ? named(site) : MID.register(stableName(declaring), name, desc, null, -1);
        } catch (RuntimeException | LinkageError e) {
            // A class whose methods cannot be listed (a missing parameter type): the named method.
            mid = named(site);
        }
        synchronized (byMethod) {
            Integer known = byMethod.get(key);
            if (known != null) {
                return known;
            }
            byMethod.put(key, mid);
            return mid;
        }
    }

    /** Selection: the class chain first, then the superinterfaces' default methods. */
    private static Class<?> declaringClass(Class<?> type, String name, String desc) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (declares(c, name, desc, false)) {
                return c;
            }
        }
        ArrayDeque<Class<?>> todo = new ArrayDeque<Class<?>>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                todo.add(i);
            }
        }
        while (!todo.isEmpty()) {
            Class<?> i = todo.poll();
            if (declares(i, name, desc, true)) {
                return i;
            }
            for (Class<?> j : i.getInterfaces()) {
                todo.add(j);
            }
        }
        return null;
    }

    private static boolean declares(Class<?> c, String name, String desc, boolean defaultOnly) {
        for (Method m : c.getDeclaredMethods()) {
            int mod = m.getModifiers();
            if (!m.getName().equals(name) || Modifier.isStatic(mod) || Modifier.isPrivate(mod)) {
                continue;
            }
            if (defaultOnly && Modifier.isAbstract(mod)) {
                continue;
            }
            if (descriptor(m).equals(desc)) {
                return true;
            }
        }
        return false;
    }

    static String descriptor(Method m) {
        StringBuilder sb = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            type(sb, p);
        }
        sb.append(')');
        type(sb, m.getReturnType());
        return sb.toString();
    }

    private static void type(StringBuilder sb, Class<?> c) {
        while (c.isArray()) {
            sb.append('[');
            c = c.getComponentType();
        }
        if (c.isPrimitive()) {
            sb.append(c == int.class ? 'I' : c == long.class ? 'J' : c == boolean.class ? 'Z' : c == byte.class ? 'B'
                    : c == char.class ? 'C' : c == short.class ? 'S' : c == float.class ? 'F' : c == double.class ? 'D' : 'V');
        } else {
            sb.append('L').append(c.getName().replace('.', '/')).append(';');
        }
    }

    /**
     * The class's name without what differs from run to run: a lambda's or other hidden class's
     * address suffix and sequence number ({@code Main$$Lambda$14/0x0000000800c03000} becomes
     * {@code Main$$Lambda}), a proxy's number ({@code jdk.proxy1.$Proxy12} becomes
     * {@code jdk.proxy.$Proxy}), so that profiles of the same program compare.
     */
    static String stableName(Class<?> c) {
        String n = c.getName();
        int slash = n.indexOf('/');
        if (slash >= 0) {
            n = n.substring(0, slash);
        }
        int lambda = n.indexOf("$$Lambda");
        if (lambda >= 0) {
            n = n.substring(0, lambda + "$$Lambda".length());
        }
        int proxy = n.lastIndexOf("$Proxy");
        if (proxy >= 0 && allDigits(n, proxy + "$Proxy".length())) {
            n = n.substring(0, proxy + "$Proxy".length());
            if (n.startsWith("jdk.proxy")) {
                n = "jdk.proxy" + n.substring(n.indexOf('.', "jdk.proxy".length()));
            }
        }
        return n;
    }

    private static boolean allDigits(String s, int from) {
        if (from >= s.length()) {
            return false;
        }
        for (int i = from; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static String javaName(String internal) {
        return internal.replace('/', '.');
    }
}
