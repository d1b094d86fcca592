package komorium.runtime;

/**
 * The {@code flag} mechanism of bursty tracing: checks read {@link #armed}, a plain static
 * boolean that the timer of {@link Burst} sets. While it is false a check is a load and a branch
 * and counts nothing; the JIT may even hoist the load out of a loop without calls, so that such a
 * loop is checked at its head only, and sees the timer's change when it next reads the field.
 */
public final class BurstFlag {
    /** Written by the timer thread only. Not volatile on purpose (see above). */
    public static boolean armed;

    static {
        Burst.arm(new Burst.Switch() {
            @Override
            public void set(boolean on) {
                armed = on;
            }
        }, "flag", 10, 1);
    }

    private BurstFlag() {
    }
}
