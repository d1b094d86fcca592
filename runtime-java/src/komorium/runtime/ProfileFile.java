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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One profile file in the format of docs/profile-format.md (version 2): the shared method and site
 * tables, then one section per profile kind. Sections refer to methods and sites by key while they
 * are collected; the file numbers only those that some record refers to, in sorted order, so that
 * the bytes below the header depend on the data alone (not on identifier order, class loaders or
 * which kinds ran).
 */
final class ProfileFile {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final AtomicInteger TEMP_SEQUENCE = new AtomicInteger();

    private final Map<MethodKey, MethodKey> methods = new HashMap<MethodKey, MethodKey>();
    private final Map<Integer, MethodKey> byMid = new HashMap<Integer, MethodKey>();
    private final Map<SiteKey, SiteKey> sites = new HashMap<SiteKey, SiteKey>();
    private final Map<Integer, SiteKey> bySite = new HashMap<Integer, SiteKey>();
    /** Headers after the standard ones (a per-test profile's test name), in order. */
    private final List<String[]> headers = new ArrayList<String[]>();
    /** Section and data records in order; a field is a String, a Number, a MethodKey or a SiteKey. */
    private final List<Object[]> records = new ArrayList<Object[]>();

    /**
     * A method line. Identity is the method key (class, name, descriptor), as the format requires;
     * identifiers that share a key (one class loaded by several loaders, or a callee registered by
     * name before its class was) become one method.
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

    /** A site line: a place in the original code of a method, and the member its instruction names. */
    static final class SiteKey implements Comparable<SiteKey> {
        final MethodKey method;
        final int bci;
        final int line;
        final String what;
        final String owner;
        final String name;
        final String descriptor;
        int id = -1;

        SiteKey(MethodKey method, int bci, int line, String what, String owner, String name, String descriptor) {
            this.method = method;
            this.bci = bci;
            this.line = line;
            this.what = what;
            this.owner = owner;
            this.name = name;
            this.descriptor = descriptor;
        }

        @Override
        public int compareTo(SiteKey o) {
            int c = method.compareTo(o.method);
            if (c == 0) {
                c = Integer.compare(bci, o.bci);
            }
            if (c == 0) {
                c = what.compareTo(o.what);
            }
            if (c == 0) {
                c = owner.compareTo(o.owner);
            }
            if (c == 0) {
                c = name.compareTo(o.name);
            }
            if (c == 0) {
                c = descriptor.compareTo(o.descriptor);
            }
            if (c == 0) {
                c = Integer.compare(line, o.line);
            }
            return c;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SiteKey && compareTo((SiteKey) o) == 0;
        }

        @Override
        public int hashCode() {
            return ((method.hashCode() * 31 + bci) * 31 + what.hashCode()) * 31 + name.hashCode();
        }
    }

    /** The method a runtime identifier names, entered into the method table. */
    MethodKey method(int mid) {
        MethodKey k = byMid.get(mid);
        if (k == null) {
            MID m = MID.get(mid);
            k = m != null
                    ? new MethodKey(internalName(m.getClassName()), orUnknown(m.getMethodName()), orVoid(m.getDescriptor()),
                            m.getSourceFile(), m.getFirstLine())
                    // A number no class registered (a program that drives an agent with its own stacks).
                    : new MethodKey(internalName(MID.toString(mid)), "<unknown>", "()V", null, -1);
            k = method(k);
            byMid.put(mid, k);
        }
        return k;
    }

    /** The table's instance of {@code key}, which absorbs the source and line {@code key} carries. */
    MethodKey method(MethodKey key) {
        MethodKey canonical = methods.get(key);
        if (canonical == null) {
            methods.put(key, key);
            return key;
        }
        canonical.absorb(key);
        return canonical;
    }

    /** The site a runtime site identifier names, entered into the site table with its method. */
    SiteKey site(int site) {
        SiteKey k = bySite.get(site);
        if (k == null) {
            k = new SiteKey(method(Sites.method(site)), Sites.bci(site), Sites.line(site), Sites.what(site),
                    Sites.owner(site), Sites.name(site), Sites.descriptor(site));
            SiteKey canonical = sites.get(k);
            if (canonical == null) {
                sites.put(k, k);
            } else {
                k = canonical;
            }
            bySite.put(site, k);
        }
        return k;
    }

    /** Adds a header line; headers describe the run and are never compared. */
    void header(String key, String value) {
        headers.add(new String[] {key, value});
    }

    /** Starts the section of profile kind {@code kind}. */
    void section(String kind) {
        records.add(new Object[] {"section", kind});
    }

    /** One data line: a record name and its fields. */
    void record(Object... fields) {
        records.add(fields);
    }

    /**
     * A callee found by reflection is registered by name alone; where its class registered it too
     * (it is instrumented), that registration knows the source file and first line.
     */
    private void completeSources() {
        boolean incomplete = false;
        for (MethodKey m : methods.keySet()) {
            incomplete |= m.source.isEmpty();
        }
        if (!incomplete) {
            return;
        }
        for (int id = 0, n = MID.count(); id < n; id++) {
            MID m = MID.get(id);
            if (m == null || m.getSourceFile() == null) {
                continue;
            }
            MethodKey k = methods.get(new MethodKey(internalName(m.getClassName()), m.getMethodName(), m.getDescriptor(), null, -1));
            if (k != null) {
                k.absorb(new MethodKey(k.className, k.name, k.descriptor, m.getSourceFile(), m.getFirstLine()));
            }
        }
    }

    /** The whole file. */
    byte[] render() {
        completeSources();
        List<MethodKey> methodList = new ArrayList<MethodKey>(methods.keySet());
        Collections.sort(methodList);
        for (int i = 0; i < methodList.size(); i++) {
            methodList.get(i).id = i;
        }
        List<SiteKey> siteList = new ArrayList<SiteKey>(sites.keySet());
        Collections.sort(siteList);
        for (int i = 0; i < siteList.size(); i++) {
            siteList.get(i).id = i;
        }
        StringBuilder sb = new StringBuilder(64 + 64 * methodList.size() + 48 * siteList.size() + 24 * records.size());
        sb.append("komorium-profile\t2\n");
        header(sb, "jvm", property("java.vm.name") + " " + property("java.version"));
        header(sb, "os", property("os.name") + " " + property("os.arch"));
        header(sb, "date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        header(sb, "options", Config.options());
        header(sb, "pid", String.valueOf(Config.pid()));
        // Whether the JDK's own bytecodes are counted: the runtime runs from a patched java.base
        // only when the JDK was instrumented (komorium-ts instrument-jdk).
        header(sb, "jdk", TC.inJavaBase() ? "instrumented" : "not instrumented");
        for (String[] h : headers) {
            header(sb, h[0], h[1]);
        }
        for (MethodKey m : methodList) {
            sb.append("method\t").append(m.id).append('\t');
            escape(sb, m.className).append('\t');
            escape(sb, m.name).append('\t');
            escape(sb, m.descriptor).append('\t');
            escape(sb, m.source).append('\t');
            sb.append(m.line).append('\n');
        }
        for (SiteKey s : siteList) {
            sb.append("site\t").append(s.id).append('\t').append(s.method.id).append('\t').append(s.bci).append('\t')
                    .append(s.line).append('\t');
            escape(sb, s.what).append('\t');
            escape(sb, s.owner).append('\t');
            escape(sb, s.name).append('\t');
            escape(sb, s.descriptor).append('\n');
        }
        for (Object[] r : records) {
            for (int i = 0; i < r.length; i++) {
                if (i > 0) {
                    sb.append('\t');
                }
                Object f = r[i];
                if (f instanceof MethodKey) {
                    sb.append(((MethodKey) f).id);
                } else if (f instanceof SiteKey) {
                    sb.append(((SiteKey) f).id);
                } else if (f instanceof Number) {
                    sb.append(f);
                } else {
                    escape(sb, String.valueOf(f));
                }
            }
            sb.append('\n');
        }
        sb.append("end\t").append(methodList.size() + siteList.size() + records.size()).append('\n');
        return sb.toString().getBytes(UTF8);
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

    private static void header(StringBuilder sb, String key, String value) {
        sb.append("header\t").append(key).append('\t');
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
     * even if the JVM is halted in the middle (a racing {@code Runtime.halt}). A target that is not
     * a regular file (a device, a pipe) is written to directly.
     */
    void write(File target) throws IOException {
        byte[] bytes = render();
        if (target.exists() && !target.isFile() && !target.isDirectory()) {
            // A device or a pipe (-Dkomorium.out=/dev/null, /dev/stdout, a FIFO): written to, never
            // renamed over, which would replace /dev/null itself with a regular file.
            OutputStream os = new FileOutputStream(target);
            try {
                os.write(bytes);
            } finally {
                os.close();
            }
            return;
        }
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
