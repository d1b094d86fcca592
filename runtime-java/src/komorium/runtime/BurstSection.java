package komorium.runtime;

/**
 * The start of a section of the bursty-tracing kinds (hot-methods, call-pairs, data-streams): the
 * framework's sampling header, then, when the checks used {@link Burst}, what the bursts were:
 * {@code trigger}, {@code burst} (sparsity, length, the sparse phase while armed) and
 * {@code armed} (the timer's awake and period in ms, the armed share of the time in parts per
 * million, the switches, and the latest a timer wake-up came in microseconds). The header's
 * {@code interval} is then (length + sparsity) / length rounded up (1 only when every check samples), and {@code samples} the bursts.
 */
final class BurstSection {
    private BurstSection() {
    }

    static void start(ProfileFile file, String kind) {
        if (!BurstState.used) {
            FrameworkSection.start(file, kind);
            return;
        }
        int s = Burst.sparsity();
        int l = Burst.length();
        file.section(kind);
        file.record("layout", Sites.layout());
        file.record("interval", (long) Math.ceil(((double) s + l) / l));
        file.record("random", 0);
        file.record("seed", Config.seed());
        file.record("samples", Burst.bursts);
        file.record("trigger", "burst-" + BurstState.mechanism);
        file.record("burst", s, l, Burst.armedSparsity());
        file.record("armed", Burst.awakeMs(), Burst.periodMs(), Burst.armedPpm(), Burst.switches(), Burst.lateMicros());
    }
}
