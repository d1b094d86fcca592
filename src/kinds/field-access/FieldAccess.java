package komorium.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

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

    private static final class Section implements Profiles.Section {
        private String description = "";

        @Override
        public String kind() {
            return "field-access";
        }

        @Override
        public String describe() {
            return description;
        }

        @Override
        public void write(ProfileFile file) {
            Counts.LongList sum = new Counts.LongList();
            for (Counts.BySite t : ACCESSES.all()) {
                t.sumInto(sum);
            }
            List<Object[]> rows = new ArrayList<Object[]>();
            long accesses = 0;
            for (Map.Entry<Integer, long[]> e : sum.byIndex.entrySet()) {
                rows.add(new Object[] {"access", file.site(e.getKey()), e.getValue()[0]});
                accesses += e.getValue()[0];
            }
            Collections.sort(rows, new java.util.Comparator<Object[]>() {
                @Override
                public int compare(Object[] a, Object[] b) {
                    return ((ProfileFile.SiteKey) a[1]).compareTo((ProfileFile.SiteKey) b[1]);
                }
            });
            FrameworkSection.start(file, kind());
            for (Object[] r : rows) {
                file.record(r);
            }
            description = "field-access: " + accesses + " accesses at " + rows.size() + " sites";
        }
    }
}
