package komorium.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-site counts of all threads as the rows of a section: runtime site numbers that name the
 * same site (a class loaded twice) summed into one row, rows in site order (the order of the ids
 * the file gives them).
 */
final class SiteCounts {
    final List<ProfileFile.SiteKey> sites = new ArrayList<ProfileFile.SiteKey>();
    final List<Long> counts = new ArrayList<Long>();
    long total;

    private SiteCounts() {
    }

    static SiteCounts of(ProfileFile file, List<Counts.BySite> tables) {
        Counts.LongList sum = new Counts.LongList();
        for (Counts.BySite t : tables) {
            t.sumInto(sum);
        }
        Map<ProfileFile.SiteKey, long[]> bySite = new HashMap<ProfileFile.SiteKey, long[]>();
        SiteCounts out = new SiteCounts();
        for (Map.Entry<Integer, long[]> e : sum.byIndex.entrySet()) {
            ProfileFile.SiteKey site = file.site(e.getKey());
            long[] c = bySite.get(site);
            if (c == null) {
                bySite.put(site, new long[] {e.getValue()[0]});
            } else {
                c[0] += e.getValue()[0];
            }
            out.total += e.getValue()[0];
        }
        List<ProfileFile.SiteKey> keys = new ArrayList<ProfileFile.SiteKey>(bySite.keySet());
        Collections.sort(keys);
        for (ProfileFile.SiteKey k : keys) {
            out.sites.add(k);
            out.counts.add(bySite.get(k)[0]);
        }
        return out;
    }
}
