package komorium.runtime;

/**
 * Breakdown variant: one skip counter for all threads, a static int as seed 000's trigger (no
 * thread check), whose slow path only resets it: the cost of the cheapest possible skip logic.
 */
public final class Subpaths {
    static int skip = 1000;
    static long starts;

    private Subpaths() {
    }

    public static void enterBlock(int site) {
        if (--skip <= 0) {
            slow();
        }
    }

    private static void slow() {
        skip = 1000;
        starts++;
    }
}
