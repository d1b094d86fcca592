package komorium.runtime;

/**
 * Optional second interface of a {@link SamplingProfiler}: to be told when the program ends.
 *
 * <p>The runtime installs one JVM shutdown hook for the configured agent. It runs when the last
 * non-daemon thread ends, on {@code System.exit}, and on SIGINT, SIGTERM and SIGHUP; it cannot
 * run after {@code Runtime.halt}, SIGKILL or a crash. The hook computes the bytecodes still
 * pending (§7.2) and calls {@link #shutdown(long)}, exactly once.
 */
public interface AgentLifecycle {

    /**
     * Called once at JVM shutdown, on the runtime's shutdown-hook thread; the place to write
     * results.
     *
     * <p>Other shutdown hooks run at the same time, and threads that are still alive (daemon
     * threads, threads racing with {@code System.exit}) may still call
     * {@link SamplingProfiler#processSample} concurrently with and after this call, so take the
     * same lock as {@code processSample} while reading the data. It is also called for an agent
     * that the runtime disabled after a failure, so it can report what it has. Exceptions are
     * reported on standard error and otherwise ignored. The JVM waits for this method, so keep it
     * short and never call {@code System.exit} here.
     *
     * @param pendingBytecodes the bytecodes executed by all registered threads (finished ones
     *                         included) since each one's last {@code processSample} call: add them
     *                         to the total so that no thread's last bytecodes are lost. For threads
     *                         still running the figure is a snapshot.
     */
    void shutdown(long pendingBytecodes);
}
