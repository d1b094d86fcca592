package komorium.runtime;

import java.util.List;
import java.util.Map;

/**
 * The runtime of the {@code data-streams} profile kind (seed 001 §4.3, Figure 5): the sequence of
 * data references each thread makes during bursts (every getfield, putfield, getstatic, putstatic
 * and array load and store), analysed into hot data streams (Chilimbi, PLDI 2001; Chilimbi and
 * Hirzel, PLDI 2002): repeated subsequences whose heat, length times frequency, covers most
 * references. A reference is its site, the object touched as a number stable for the run
 * ({@link ObjectIds}; none for a static field) and the array index. Bursts are kept apart: no
 * stream spans the gap between two.
 */
public final class DataStreams {
    /** Streams written to the profile at most, hottest first; the rest is summed in the header line. */
    static final int WRITTEN = 2000;

    private static final Counts.PerThread<StreamTrace> TRACES = new Counts.PerThread<StreamTrace>() {
        @Override
        StreamTrace create() {
            return new StreamTrace();
        }
    };

    static {
        Profiles.register(new Section());
    }

    private DataStreams() {
    }

    /** getfield, putfield (object), getstatic, putstatic (null). */
    public static void field(Object object, int site) {
        TRACES.get().add(site, object, -1, epoch());
    }

    /** An array load or store. */
    public static void array(Object array, int index, int site) {
        TRACES.get().add(site, array, index, epoch());
    }

    /** Changes between two bursts: of Burst, or, under the seed-000 sampler, each sample is one. */
    private static long epoch() {
        if (BurstState.used) {
            return BurstState.epoch;
        }
        return Sampler.interval() > 1 ? Sampler.samples : 0;
    }

    private static final class Section extends KindSection {
        Section() {
            super("data-streams");
        }

        @Override
        String writeRecords(ProfileFile file) {
            StreamTable.close();
            long restarts = 0;
            for (StreamTrace t : TRACES.all()) {
                t.flush();
                restarts += t.idRestarts();
            }
            List<Map.Entry<StreamTable.Key, long[]>> all = StreamTable.sorted();
            int n = Math.min(WRITTEN, all.size());
            long heat = 0;
            for (Map.Entry<StreamTable.Key, long[]> e : all) {
                heat += e.getValue()[0];
            }
            BurstSection.start(file, kind());
            file.record("streams", StreamTable.references(), heat + StreamTable.droppedHeat(), StreamTable.windows(), all.size(), restarts,
                    StreamTrace.EVERY, StreamTable.skippedReferences());
            for (int i = 0; i < n; i++) {
                int[] t = all.get(i).getKey().triples;
                long[] v = all.get(i).getValue();
                file.record("stream", i, v[0], v[1], t.length / 3);
                for (int j = 0; j < t.length; j += 3) {
                    file.record("ref", i, j / 3, file.site(t[j]), t[j + 1], t[j + 2]);
                }
            }
            return "data-streams: " + StreamTable.references() + " references, " + all.size() + " hot data streams";
        }
    }
}
