package komorium.runtime;

import java.io.File;
import java.io.IOException;

/**
 * Control of the run's profile, from the program itself or, through the MBean
 * {@code komorium:type=Profiler} ({@link ProfilerMXBean}, {@code -Dkomorium.jmx=true}), from
 * outside the process: start and stop recording, reset what was recorded, dump it to a file. With
 * {@code -Dkomorium.start=false} a run records nothing until {@link #start}, so that start-up or
 * warm-up can be left out; a long-running server can be profiled for a window with
 * {@code start}, {@code dump(path, true)} and {@code stop}.
 *
 * <p>These act on the built-in agents ({@code sampling}, {@code exact}); with {@code none} or an
 * agent of your own they throw {@link IllegalStateException}. A thread's bytecodes are handed to
 * the agent at its samples, so the bytecodes a thread ran since its last sample go to the window
 * after a reset or a dump (for the exact agent, at most one block's worth).
 */
public final class Control {
    private Control() {
    }

    private static TreeAgent agent() {
        TreeAgent a = Lifecycle.treeAgent();
        if (a == null) {
            throw new IllegalStateException("komorium: the agent is " + Config.agent()
                    + "; start, stop, reset and dump work with the sampling and exact agents (-Dkomorium.agent)");
        }
        return a;
    }

    /** Records from now on (samples and bytecodes are counted again). */
    public static void start() {
        agent().recording = true;
    }

    /** Stops recording: samples are dropped and bytecodes not counted until {@link #start}. */
    public static void stop() {
        agent().recording = false;
    }

    public static boolean isRecording() {
        return agent().recording;
    }

    /** Forgets everything recorded so far; recording goes on (or stays stopped). */
    public static void reset() {
        TreeAgent a = agent();
        synchronized (a) {
            a.zero();
        }
    }

    /** {@link #dump(String, boolean)} without a reset. */
    public static String dump(String path) throws IOException {
        return dump(path, false);
    }

    /**
     * Writes what was recorded so far to {@code path} ({@code %p} becomes the process id; null
     * means {@code komorium.out}), atomically, in the format of the profile written at exit, and
     * with {@code reset} forgets it in the same step, so that consecutive dumps add up to the run.
     *
     * @return the absolute path written
     */
    public static String dump(String path, boolean reset) throws IOException {
        return dump(path, reset, new String[0][]);
    }

    /** {@link #dump(String, boolean)} with extra header lines ({@code {key, value}}). */
    static String dump(String path, boolean reset, String[][] headers) throws IOException {
        TreeAgent a = agent();
        File target = new File(path == null ? Config.out() : path.replace("%p", String.valueOf(Config.pid()))).getAbsoluteFile();
        synchronized (a) {
            Profiles.write(target, headers);
            if (reset) {
                a.zero();
            }
        }
        return target.getPath();
    }

    /** The bytecodes recorded since the start or the last reset: counted (exact agent) or estimated at exit. */
    public static long totalBytecodes() {
        TreeAgent a = agent();
        synchronized (a) {
            return a.totalBytecodes;
        }
    }

    /** {@code sampling} or {@code exact}. */
    public static String agentName() {
        return agent().name();
    }
}
