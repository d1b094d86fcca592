package komorium.runtime;

/**
 * The {@code volatile} mechanism of bursty tracing: as {@link BurstFlag}, but the field is
 * volatile, so every check reads it (a plain load on x86, but one the JIT may not hoist or merge)
 * and a loop sees the timer's change at its next iteration. Also what {@code burst-indy} uses in
 * class files too old for invokedynamic.
 */
public final class BurstVolatile {
    public static volatile boolean armed;

    static {
        Burst.arm(new Burst.Switch() {
            @Override
            public void set(boolean on) {
                armed = on;
            }
        }, "volatile", 10, 1);
    }

    private BurstVolatile() {
    }
}
