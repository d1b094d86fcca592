package komorium.runtime;

/**
 * The system properties of the bursty-tracing kinds, read when the first instrumented class
 * registers (Sites.forClass), before the program's main method runs: a bad value then stops the
 * JVM before the program starts, with one line naming the property (Config.strictInteger), rather
 * than when a burst first needs it, halfway through the program's output.
 */
final class KindOptions {
    static final int BURST_SPARSITY = Config.strictInteger("komorium.burst.sparsity", 999, 0);
    static final int BURST_LENGTH = Config.strictInteger("komorium.burst.length", 1, 1);
    /** 0 when not set: each timer mechanism has its own default. */
    static final int BURST_PERIOD_MS = Config.strictInteger("komorium.burst.period", 0, 1);
    static final int BURST_AWAKE_MS = Config.strictInteger("komorium.burst.awake", 0, 1);
    static final int STREAMS_WINDOW = Config.strictInteger("komorium.streams.window", 1 << 18, 1024);
    static final int STREAMS_EVERY = Config.strictInteger("komorium.streams.every", 1, 1);
    static final int STREAMS_MIN_LENGTH = Config.strictInteger("komorium.streams.minLength", 2, 2);
    static final int STREAMS_MAX_LENGTH = Config.strictInteger("komorium.streams.maxLength", 100, STREAMS_MIN_LENGTH);

    private KindOptions() {
    }

    /** Reads (and so checks) every property; called once, early. */
    static void check() {
        // The static initializer did the work.
    }
}
