package komorium.runtime;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Online profiles: the profile so far, written while the program runs and without stopping it,
 * every {@code komorium.dumpEvery} seconds and/or when the process receives the signal named by
 * {@code komorium.dumpSignal} (e.g. {@code USR1}: {@code kill -USR1 <pid>}), into
 * {@code komorium.dumpOut} (default: {@code komorium.out} with {@code .dump} appended), atomically.
 * Off by default: a signal handler changes what the signal does to the program.
 */
final class Dumps {
    static final String EVERY = "komorium.dumpEvery";
    static final String SIGNAL = "komorium.dumpSignal";
    static final String OUT = "komorium.dumpOut";
    private static final Object LOCK = new Object();

    private Dumps() {
    }

    /** Starts what the properties ask for; called once, when the first profile section registers. */
    static void start() {
        int every = Config.strictInteger(EVERY, 0, 0);
        String signal = Config.strictRaw(SIGNAL);
        if (every == 0 && signal == null) {
            return;
        }
        String raw = Config.strictRaw(OUT);
        final String out = raw == null ? Config.out() + ".dump" : Config.outPath(raw);
        if (signal != null) {
            onSignal(signal, out);
        }
        if (every > 0) {
            final long millis = every * 1000L;
            Thread t = new Thread(new Runnable() {
                @Override
                public void run() {
                    while (true) {
                        try {
                            Thread.sleep(millis);
                        } catch (InterruptedException e) {
                            return;
                        }
                        dump(out);
                    }
                }
            }, "komorium-dump");
            t.setDaemon(true);
            t.start();
        }
    }

    static void dump(String out) {
        synchronized (LOCK) {
            Profiles.write(out, false);
        }
    }

    /**
     * sun.misc.Signal by reflection: the runtime is compiled for Java 8 with --release 8, which
     * hides it, and a JVM without it (or a signal the JVM keeps for itself) must be told apart.
     */
    private static void onSignal(String name, final String out) {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object handler = Proxy.newProxyInstance(Dumps.class.getClassLoader(), new Class<?>[] {handlerClass}, new InvocationHandler() {
                @Override
                public Object invoke(Object proxy, Method method, Object[] args) {
                    if (method.getName().equals("handle")) {
                        // Not on the signal thread: a dump of a big profile takes a while.
                        Thread t = new Thread(new Runnable() {
                            @Override
                            public void run() {
                                dump(out);
                            }
                        }, "komorium-dump");
                        t.setDaemon(true);
                        t.start();
                    }
                    return method.getName().equals("hashCode") ? Integer.valueOf(System.identityHashCode(proxy))
                            : method.getName().equals("equals") ? Boolean.valueOf(proxy == args[0]) : null;
                }
            });
            Object signal = signalClass.getConstructor(String.class).newInstance(name);
            signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
        } catch (java.lang.reflect.InvocationTargetException e) {
            Config.refuse(SIGNAL, name, "a signal the JVM lets programs handle, such as USR1 (" + e.getCause().getMessage() + ")");
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Report.error("komorium: -D" + SIGNAL + "=" + name + ": this JVM offers no signal handlers (" + e + "); no dumps on a signal");
        }
    }
}
