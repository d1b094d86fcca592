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

    /**
     * One execution of the field instruction at {@code site}. A call in the probes, never inlined
     * (its length is kept above FreqInlineSize, see {@link OutOfLine}; test/twin.test.ts checks it).
     */
    public static void access(int site) {
        ACCESSES.get().add(site);
        if (OutOfLine.NEVER) {
            OutOfLine.padding = new int[] {
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
            };
        }
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
