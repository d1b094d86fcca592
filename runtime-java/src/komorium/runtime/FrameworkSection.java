package komorium.runtime;

/**
 * What every section of a kind built on the Arnold–Ryder framework starts with: how the classes
 * were laid out, the sampling interval, and how many samples were taken.
 */
final class FrameworkSection {
    private FrameworkSection() {
    }

    static void start(ProfileFile file, String kind) {
        file.section(kind);
        file.record("layout", Sites.layout());
        file.record("interval", Sampler.interval());
        file.record("random", Sampler.random());
        file.record("seed", Config.seed());
        file.record("samples", Sampler.samples);
    }
}
