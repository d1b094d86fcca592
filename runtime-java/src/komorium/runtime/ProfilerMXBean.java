package komorium.runtime;

import java.io.IOException;

/**
 * The profile's controls as the MBean {@code komorium:type=Profiler}, registered in the platform
 * MBean server when the program runs with {@code -Dkomorium.jmx=true}: jconsole and VisualVM show
 * it, and any JMX client can call it (after {@code jcmd <pid> ManagementAgent.start_local}, or
 * through the attach API, for a JVM started without a JMX port). See {@link Control}.
 */
public interface ProfilerMXBean {
    /** {@code sampling} or {@code exact}. */
    String getAgent();

    boolean isRecording();

    /** Bytecodes recorded since the start or the last reset. */
    long getTotalBytecodes();

    void start();

    void stop();

    void reset();

    /** Writes the profile to {@code path} (empty: {@code komorium.out}); returns the file written. */
    String dump(String path) throws IOException;

    /** {@link #dump} and, in the same step, {@link #reset}. */
    String dumpAndReset(String path) throws IOException;
}
