package komorium.runtime;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one profile file of a run: every profile kind that is active in this JVM registers its
 * section here, and one shutdown hook writes them all into {@code komorium.out}, once, atomically,
 * at normal exit, at {@code System.exit} and on SIGTERM. Nothing is written when no section
 * registered (the {@code none} agent of Komorium with no other kind).
 */
final class Profiles {
    /** One profile kind's part of the file. */
    interface Section {
        /** The kind's name, as {@code instrument --profile} takes it. */
        String kind();

        /** Adds the section's records; called once, on the hook thread, while other threads may still run. */
        void write(ProfileFile file);

        /** One phrase for the line printed at exit, valid after {@link #write}. */
        String describe();
    }

    private static final List<Section> SECTIONS = new ArrayList<Section>();
    private static final List<Runnable> BEFORE_WRITE = new ArrayList<Runnable>();
    private static final AtomicBoolean WRITTEN = new AtomicBoolean();
    private static boolean hooked;

    private Profiles() {
    }

    /** Adds a section (and, with the first one, the shutdown hook). */
    static void register(Section section) {
        synchronized (SECTIONS) {
            SECTIONS.add(section);
            hook();
        }
    }

    /** Runs {@code task} on the hook thread before the sections are written (Komorium's pending bytecodes). */
    static void beforeWrite(Runnable task) {
        synchronized (SECTIONS) {
            BEFORE_WRITE.add(task);
            hook();
        }
    }

    private static void hook() {
        if (hooked) {
            return;
        }
        hooked = true;
        Dumps.start();
        // Called by a section's class or by the agent's start, perhaps on an application thread
        // after counting started: the JDK code that registering runs is the runtime's work.
        TC.mute();
        try {
            Runtime.getRuntime().addShutdownHook(new ShutdownHook());
        } catch (IllegalStateException e) {
            // The first instrumented code runs inside another shutdown hook: too late to be told
            // about the end. Profile anyway; nothing will be written.
            Report.error("komorium: the JVM is already shutting down; no profile will be written");
        } catch (SecurityException e) {
            Report.error("komorium: cannot add a shutdown hook (" + e + "); no profile will be written");
        } finally {
            TC.unmute();
        }
    }

    /**
     * The hook that writes the profile. With the JDK instrumented (issue 26) the JDK code the JVM's
     * shutdown runs is counted too, and two parts of it would land in the profile by chance: the
     * hook thread's own first bytecodes, and what the thread that runs the shutdown (DestroyJavaVM
     * after the last thread ended, or the thread calling {@code System.exit}) still runs while
     * this hook writes: the rest of its loop over the hooks (IdentityHashMap's iterator). So that
     * thread stops counting when it starts this hook, a point its own code reaches in the same
     * way every time, and this thread counts nothing.
     */
    private static final class ShutdownHook extends Thread {
        ShutdownHook() {
            super("komorium-shutdown");
        }

        @Override
        public void start() {
            // On the thread that runs the shutdown (ApplicationShutdownHooks starts each hook);
            // it is never unmuted: what it runs from here on is the JVM's end.
            TC.mute();
            super.start();
        }

        @Override
        public void run() {
            TC.mute();
            writeAll();
        }
    }

    /** Writes the file, once. */
    static void writeAll() {
        if (!WRITTEN.compareAndSet(false, true)) {
            return;
        }
        List<Runnable> tasks;
        synchronized (SECTIONS) {
            tasks = new ArrayList<Runnable>(BEFORE_WRITE);
        }
        for (Runnable t : tasks) {
            t.run();
        }
        if (!writeFinal) {
            return;
        }
        write(Config.out(), true);
    }

    /**
     * Writes every section so far into {@code out}: at exit, and for an online dump ({@link Dumps})
     * while the program runs, which is why a section must tolerate being written more than once.
     */
    static void write(String out, boolean atExit) {
        try {
            String what = write(new File(out));
            if (atExit && what != null) {
                Report.info("komorium: wrote " + out + " (" + what + ")");
            }
        } catch (IOException | RuntimeException e) {
            Report.error("komorium: cannot write the profile " + out + ": " + e);
        }
    }

    /** False when the run's data all went into dumps (per-test profiles): no file at exit. */
    private static volatile boolean writeFinal = true;

    static void skipFinalWrite() {
        writeFinal = false;
    }

    /**
     * Writes every registered section into {@code target} now, atomically ({@link Control#dump});
     * returns the sections' description, or null when no section is registered (nothing written).
     */
    static String write(File target) throws IOException {
        return write(target, new String[0][]);
    }

    /** {@link #write(File)} with extra headers, {@code {key, value}} each. */
    static String write(File target, String[][] headers) throws IOException {
        TC.mute();
        try {
            return writeMuted(target, headers);
        } finally {
            TC.unmute();
        }
    }

    private static String writeMuted(File target, String[][] headers) throws IOException {
        List<Section> sections;
        synchronized (SECTIONS) {
            sections = new ArrayList<Section>(SECTIONS);
        }
        if (sections.isEmpty()) {
            return null;
        }
        ProfileFile file = new ProfileFile();
        for (String[] h : headers) {
            file.header(h[0], h[1]);
        }
        StringBuilder what = new StringBuilder();
        for (Section s : sections) {
            try {
                s.write(file);
                what.append(what.length() == 0 ? "" : "; ").append(s.describe());
            } catch (RuntimeException | LinkageError e) {
                Report.error("komorium: the " + s.kind() + " section failed: " + Report.describe(e));
            }
        }
        file.write(target);
        return what.toString();
    }
}
