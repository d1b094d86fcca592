package komorium.runtime;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starting the configured agent and ending it: agent loading, the shutdown hook, and the
 * once-only reports of agent failures.
 */
final class Lifecycle {
    /** The agent as configured; stays set after a failure so that it still gets shutdown(). */
    private static volatile SamplingProfiler installed;
    private static final AtomicBoolean FAILURE_REPORTED = new AtomicBoolean();
    private static final AtomicBoolean OVERFLOW_REPORTED = new AtomicBoolean();
    private static final AtomicBoolean SHUT_DOWN = new AtomicBoolean();

    private Lifecycle() {
    }

    /** Creates the configured agent and registers the shutdown hook; null for {@code none}. */
    static SamplingProfiler start() {
        SamplingProfiler agent = create(Config.agent());
        if (agent == null) {
            return null;
        }
        installed = agent;
        if (agent instanceof TreeAgent) {
            ((TreeAgent) agent).inRunProfile = true;
            Profiles.register(new TreeSection((TreeAgent) agent));
            if (Config.testsDir() != null && !Config.outGiven()) {
                // Per-test profiles hold the run; what runs between tests is not a test's.
                Profiles.skipFinalWrite();
            }
            if (Config.jmx()) {
                Jmx.register();
            }
        }
        Profiles.beforeWrite(new Runnable() {
            @Override
            public void run() {
                shutdown();
            }
        });
        return agent;
    }

    private static SamplingProfiler create(String name) {
        if (name.equals("none")) {
            return null;
        }
        if (name.equals("sampling")) {
            return new SamplingAgent();
        }
        if (name.equals("exact")) {
            return new ExactAgent();
        }
        try {
            Class<?> c = load(name);
            if (!SamplingProfiler.class.isAssignableFrom(c)) {
                Report.error("komorium: agent " + name + " does not implement " + SamplingProfiler.class.getName()
                        + "; running without an agent");
                return null;
            }
            return (SamplingProfiler) c.getConstructor().newInstance();
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
            Report.error("komorium: cannot create agent " + name + ": " + Report.describe(cause)
                    + "; running without an agent (komorium.agent is sampling, exact, none or the name of a class"
                    + " implementing " + SamplingProfiler.class.getName() + " with a public no-argument constructor)");
            return null;
        }
    }

    private static Class<?> load(String name) throws ClassNotFoundException {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            try {
                return Class.forName(name, true, context);
            } catch (ClassNotFoundException e) {
                // try the others
            }
        }
        try {
            return Class.forName(name, true, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException e) {
            // The runtime may live in a child loader (e.g. inside an application server's webapp).
            return Class.forName(name, true, Lifecycle.class.getClassLoader());
        }
    }

    /** The built-in agent of this run, or null ({@code none}, an agent of your own); starts the runtime if needed. */
    static TreeAgent treeAgent() {
        TC.ensureStarted();
        SamplingProfiler a = installed;
        return a instanceof TreeAgent ? (TreeAgent) a : null;
    }

    /** Runs once, on the shutdown hook: gives the agent the pending bytecodes (§7.2). */
    static void shutdown() {
        if (!SHUT_DOWN.compareAndSet(false, true)) {
            return;
        }
        SamplingProfiler agent = installed;
        if (!(agent instanceof AgentLifecycle)) {
            return;
        }
        try {
            ((AgentLifecycle) agent).shutdown(TC.pendingBytecodes());
        } catch (Throwable t) {
            Report.error("komorium: agent " + agent.getClass().getName() + " failed at shutdown: " + Report.describe(t));
        }
    }

    static void agentFailed(SamplingProfiler agent, String method, Throwable failure, int returned) {
        if (!FAILURE_REPORTED.compareAndSet(false, true)) {
            return;
        }
        String what = failure != null ? Report.describe(failure) : method + " returned granularity " + returned;
        Report.error("komorium: agent " + agent.getClass().getName() + " failed: " + what
                + "; profiling continues with granularity " + Integer.MAX_VALUE
                + " (agent disabled; the program is not affected)");
    }

    static void sampleDropped(SamplingProfiler agent) {
        if (OVERFLOW_REPORTED.compareAndSet(false, true)) {
            Report.error("komorium: agent " + agent.getClass().getName()
                    + " overflowed the thread stack while sampling deep recursion; such samples are dropped");
        }
    }
}
