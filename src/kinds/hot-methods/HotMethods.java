package komorium.runtime;

/**
 * The runtime of the {@code hot-methods} profile kind (seed 001 §4.3, Figure 5): calls and
 * backedges, charged to the method running. Instrumented code calls {@link #event} at a method's
 * entry and on each of its backedges, in the code that runs during a burst (or always, in the
 * exhaustive layout); the site says which method and, for a backedge, which loop.
 */
public final class HotMethods {
    private static final Counts.PerThread<Counts.BySite> EVENTS = new Counts.PerThread<Counts.BySite>() {
        @Override
        Counts.BySite create() {
            return new Counts.BySite();
        }
    };

    static {
        Profiles.register(new Section());
    }

    private HotMethods() {
    }

    /** A call of the method (its entry site) or an iteration of one of its loops (a backedge site). */
    public static void event(int site) {
        EVENTS.get().add(site);
    }

    private static final class Section extends KindSection {
        Section() {
            super("hot-methods");
        }

        @Override
        String writeRecords(ProfileFile file) {
            SiteCounts rows = SiteCounts.of(file, EVENTS.all());
            BurstSection.start(file, kind());
            for (int i = 0; i < rows.sites.size(); i++) {
                file.record("event", rows.sites.get(i), rows.counts.get(i));
            }
            return "hot-methods: " + rows.total + " calls and backedges at " + rows.sites.size() + " sites";
        }
    }
}
