package komorium.runtime;

import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;

/**
 * The {@code indy} mechanism of bursty tracing, the closest a stock JVM comes to HPS's conditional
 * control: every check is an invokedynamic bound to one {@link MutableCallSite} whose target is a
 * constant, false while disarmed. The JIT inlines the constant and removes the check with the
 * code behind it, so compiled code counts nothing; the timer of {@link Burst} re-links the call
 * site to true and back, and each re-link deoptimizes every compiled method that folded it (the
 * cost of switching, measured in BENCHMARKS-hps.md). A SwitchPoint would cost the same: OpenJDK
 * implements it with a MutableCallSite and syncAll.
 */
public final class BurstIndy {
    private static final MethodHandle ON = MethodHandles.constant(boolean.class, Boolean.TRUE);
    private static final MethodHandle OFF = MethodHandles.constant(boolean.class, Boolean.FALSE);
    private static final MutableCallSite SITE = new MutableCallSite(OFF);
    private static final MutableCallSite[] SITES = {SITE};

    static {
        Burst.arm(new Burst.Switch() {
            @Override
            public void set(boolean on) {
                SITE.setTarget(on ? ON : OFF);
                MutableCallSite.syncAll(SITES);
            }
        }, "indy", 1000, 100);
    }

    private BurstIndy() {
    }

    /** The bootstrap of every check's invokedynamic: all share one call site. */
    public static CallSite bootstrap(MethodHandles.Lookup lookup, String name, MethodType type) {
        return SITE;
    }
}
