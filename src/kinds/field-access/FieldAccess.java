package komorium.runtime;

/**
 * The runtime of the {@code field-access} profile kind (seed 000 §4.2): how often each field
 * access site (getfield, putfield, getstatic, putstatic) ran. Reads and writes per field are
 * summed from the sites when the profile is read.
 */
public final class FieldAccess {
    private static final Counts.PerThread<Counts.BySite> ACCESSES = new Counts.PerThread<Counts.BySite>() {
        @Override
        Counts.BySite create() {
            return new Counts.BySite();
        }
    };

    static {
        Profiles.register(new Section());
    }

    private FieldAccess() {
    }

    /** One execution of the field instruction at {@code site}. */
    public static void access(int site) {
        ACCESSES.get().add(site);
    }

    private static final class Section extends KindSection {
        Section() {
            super("field-access");
        }

        @Override
        String writeRecords(ProfileFile file) {
            SiteCounts rows = SiteCounts.of(file, ACCESSES.all());
            FrameworkSection.start(file, kind());
            for (int i = 0; i < rows.sites.size(); i++) {
                file.record("access", rows.sites.get(i), rows.counts.get(i));
            }
            return "field-access: " + rows.total + " accesses at " + rows.sites.size() + " sites";
        }
    }
}
