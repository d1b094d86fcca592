package komorium.runtime;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * Registers {@link ProfilerMXBean}. Kept apart so that the runtime's other classes need java.base
 * only: this one is loaded only with {@code -Dkomorium.jmx=true}, and a JVM without
 * java.management reports that instead of failing.
 */
final class Jmx implements ProfilerMXBean {
    static final String NAME = "komorium:type=Profiler";

    private Jmx() {
    }

    static void register() {
        try {
            ManagementFactory.getPlatformMBeanServer().registerMBean(new Jmx(), new ObjectName(NAME));
        } catch (Exception | LinkageError e) {
            Report.error("komorium: cannot register the MBean " + NAME + ": " + Report.describe(e));
        }
    }

    @Override
    public String getAgent() {
        return Control.agentName();
    }

    @Override
    public boolean isRecording() {
        return Control.isRecording();
    }

    @Override
    public long getTotalBytecodes() {
        return Control.totalBytecodes();
    }

    @Override
    public void start() {
        Control.start();
    }

    @Override
    public void stop() {
        Control.stop();
    }

    @Override
    public void reset() {
        Control.reset();
    }

    @Override
    public String dump(String path) throws IOException {
        return Control.dump(path == null || path.isEmpty() ? null : path, false);
    }

    @Override
    public String dumpAndReset(String path) throws IOException {
        return Control.dump(path == null || path.isEmpty() ? null : path, true);
    }
}
