package komorium.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code subpaths} section of the profile file (docs/profile-format.md): the settings, the
 * rate f the hot list ended at, the blocks all threads ran, and one {@code subpath} record per
 * entry, its count followed by its blocks in the order they ran. Written at exit and by every online
 * dump, while threads may still run.
 */
final class SubpathSection extends KindSection {
    private static final String[] MODES = {"sample", "skip", "exact"};

    SubpathSection() {
        super("subpaths");
    }

    @Override
    String writeRecords(ProfileFile file) {
        long blocks = Subpaths.blocks();
        FrameworkSection.start(file, kind());
        file.record("mode", MODES[Subpaths.MODE]);
        file.record("maxLength", Subpaths.MAX_LENGTH);
        file.record("confidence", Subpaths.CONFIDENCE);
        file.record("blocks", blocks);
        file.record("threads", Subpaths.threads());
        int[][] seqs;
        long[] counts;
        if (Subpaths.MODE == Subpaths.MODE_EXACT) {
            SubpathExact.Snapshot x = SubpathExact.snapshot(Subpaths.EXACT_TOP);
            file.record("rate", 1);
            file.record("exactLimit", x.limit);
            for (int log = 1; log <= Subpaths.LOG_MAX; log++) {
                file.record("length", 1 << log, x.total[log], x.distinct[log], x.overflow[log]);
            }
            file.record("ids", x.orderedFull ? -1 : x.ordered, x.exact, x.hashIds, x.xorIds);
            seqs = x.blocks;
            counts = x.counts;
        } else {
            SubpathHotList.Snapshot h = SubpathHotList.snapshot();
            file.record("rate", h.rate);
            file.record("perStart", Subpaths.ALL_LENGTHS ? "all" : "one");
            file.record("memory", h.limit);
            file.record("peakEntries", h.peakEntries);
            file.record("memoryBytes", h.peakBytes);
            file.record("resamples", h.resamples);
            seqs = h.blocks;
            counts = h.counts;
        }
        List<Row> rows = rows(file, seqs, counts);
        for (Row r : rows) {
            Object[] rec = new Object[2 + r.blocks.length];
            rec[0] = "subpath";
            rec[1] = r.count;
            System.arraycopy(r.blocks, 0, rec, 2, r.blocks.length);
            file.record(rec);
        }
        return "subpaths: " + blocks + " blocks, " + rows.size() + " subpaths " + (Subpaths.MODE == Subpaths.MODE_EXACT ? "counted" : "in the hot list");
    }

    /**
     * One row per subpath as the file names its blocks: runtime site numbers that name the same
     * site (a class loaded twice) make one subpath, summed, shown as the smallest of its sequences.
     */
    private static List<Row> rows(ProfileFile file, int[][] seqs, long[] counts) {
        Map<List<ProfileFile.SiteKey>, Row> byKey = new HashMap<List<ProfileFile.SiteKey>, Row>();
        for (int i = 0; i < seqs.length; i++) {
            ProfileFile.SiteKey[] b = new ProfileFile.SiteKey[seqs[i].length];
            for (int k = 0; k < b.length; k++) {
                b[k] = file.site(seqs[i][k]);
            }
            List<ProfileFile.SiteKey> key = canonical(b);
            Row r = byKey.get(key);
            if (r == null) {
                byKey.put(key, new Row(b, counts[i]));
            } else {
                r.count += counts[i];
                if (compare(b, r.blocks) < 0) {
                    r.blocks = b;
                }
            }
        }
        List<Row> rows = new ArrayList<Row>(byKey.values());
        Collections.sort(rows, new Comparator<Row>() {
            @Override
            public int compare(Row a, Row b) {
                int c = Long.compare(b.count, a.count);
                return c != 0 ? c : SubpathSection.compare(a.blocks, b.blocks);
            }
        });
        return rows;
    }

    /** The least rotation of the blocks, by site order. */
    private static List<ProfileFile.SiteKey> canonical(ProfileFile.SiteKey[] b) {
        int n = b.length;
        int best = 0;
        for (int r = 1; r < n; r++) {
            for (int k = 0; k < n; k++) {
                int c = b[(r + k) % n].compareTo(b[(best + k) % n]);
                if (c != 0) {
                    if (c < 0) {
                        best = r;
                    }
                    break;
                }
            }
        }
        List<ProfileFile.SiteKey> out = new ArrayList<ProfileFile.SiteKey>(n);
        for (int k = 0; k < n; k++) {
            out.add(b[(best + k) % n]);
        }
        return out;
    }

    private static int compare(ProfileFile.SiteKey[] a, ProfileFile.SiteKey[] b) {
        if (a.length != b.length) {
            return a.length - b.length;
        }
        for (int k = 0; k < a.length; k++) {
            int c = a[k].compareTo(b[k]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static final class Row {
        ProfileFile.SiteKey[] blocks;
        long count;

        Row(ProfileFile.SiteKey[] blocks, long count) {
            this.blocks = blocks;
            this.count = count;
        }
    }
}
