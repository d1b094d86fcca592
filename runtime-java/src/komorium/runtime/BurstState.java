package komorium.runtime;

/**
 * What the profile kinds learn of bursty tracing without starting it: whether {@link Burst} runs
 * (its class initialized), which mechanisms arm its checks, and the burst epoch, which changes
 * each time a burst starts after checks that did not sample, so that a trace of references can
 * tell one burst from the next. Kept apart from {@link Burst} because reading a field of Burst
 * would initialize it, and with it the configuration of a trigger the program may not use.
 */
final class BurstState {
    static volatile boolean used;
    /** The mechanisms that arm the checks, in the order they started ({@code counter} when none). */
    static volatile String mechanism = "counter";
    /** Racy by design: a lost increment merges two bursts of a trace, never crashes. */
    static long epoch;

    private BurstState() {
    }
}
