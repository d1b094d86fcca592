package komorium.runtime;

import java.util.List;

/**
 * The sampling window of {@code cbs} (Figure 3 of seed 004): after a trigger, SAMPLES samples
 * STRIDE calls apart, the first 1 to STRIDE calls after the trigger, drawn from a generator seeded
 * with {@code komorium.seed}. One window samples a run; {@code -Dkomorium.cbs.grid=STRIDES x
 * SAMPLES} (for instance {@code 1,3,7x1,16}) runs one per cell of the paper's Table 2 on the same
 * calls and triggers, each writing its own profile: with a counting trigger each cell's call graph
 * is the one a run with that stride and samples gives (test/cbs.test.ts), so a grid costs one run.
 * Fields are racy between threads, as Cbs says.
 */
final class CbsWindow {
    final int stride;
    final int samples;
    /** Figure 3's skippedInvocations and samplesThisTimerInterrupt, and whether the window is open. */
    private int skipped;
    private int left;
    boolean open;
    /** The cell's draws of its start offsets, and the windows it opened. */
    final CbsClock draws = new CbsClock(0);

    private final Counts.PerThread<Counts.ByPair> edges = new Counts.PerThread<Counts.ByPair>() {
        @Override
        Counts.ByPair create() {
            return new Counts.ByPair();
        }
    };

    private CbsWindow(int stride, int samples) {
        this.stride = stride;
        this.samples = samples;
        this.left = samples;
    }

    /** The window of komorium.cbs.stride and .samples, or the cells of komorium.cbs.grid (strides × samples, in that order). */
    static CbsWindow[] fromOptions(int stride, int samples) {
        int[][] grid = Config.strictGrid("komorium.cbs.grid");
        if (grid == null) {
            return new CbsWindow[] {new CbsWindow(stride, samples)};
        }
        CbsWindow[] cells = new CbsWindow[grid[0].length * grid[1].length];
        int i = 0;
        for (int s : grid[0]) {
            for (int n : grid[1]) {
                cells[i++] = new CbsWindow(s, n);
            }
        }
        return cells;
    }

    /** A window opens: how many calls away its first sample is, 1 to STRIDE (the paper's random start). */
    int nextStart() {
        return draws.nextStart(stride);
    }

    /** The grid's trigger: the window opens unless it is open. */
    void start() {
        if (!open) {
            skipped = nextStart();
            open = true;
        }
    }

    /** The grid's call: whether it is a sample. The window closes after its last sample. */
    boolean count() {
        if (!open || --skipped > 0) {
            return false;
        }
        skipped = stride;
        if (--left <= 0) {
            left = samples;
            open = false;
        }
        return true;
    }

    void record(int site, int callee) {
        edges.get().add(site, callee);
    }

    List<Counts.ByPair> tables() {
        return edges.all();
    }
}
