package komorium.runtime;

/**
 * The {@code komorium.subpaths.*} system properties, read when the first instrumented block runs. As
 * for every framework kind, a bad value stops the JVM at once with one line naming the property
 * (exit status 2): a profile taken with a setting nobody asked for would mislead.
 */
final class SubpathConfig {
    static final String MODE = "komorium.subpaths.mode";
    static final String MAX_LENGTH = "komorium.subpaths.maxLength";
    static final String MEMORY = "komorium.subpaths.memory";
    static final String INTERVAL = "komorium.subpaths.interval";
    static final String CONFIDENCE = "komorium.subpaths.confidence";
    static final String LENGTHS = "komorium.subpaths.lengths";
    static final String EXACT_LIMIT = "komorium.subpaths.exactLimit";
    static final String EXACT_TOP = "komorium.subpaths.exactTop";

    private SubpathConfig() {
    }

    /** {@code sample} (OSP, the default), {@code skip} (the skip logic alone) or {@code exact} (every subpath). */
    static int mode() {
        String v = Config.strictRaw(MODE);
        if (v == null || v.equals("sample")) {
            return Subpaths.MODE_SAMPLE;
        }
        if (v.equals("skip")) {
            return Subpaths.MODE_SKIP;
        }
        if (v.equals("exact")) {
            return Subpaths.MODE_EXACT;
        }
        Config.refuse(MODE, v, "sample, skip or exact");
        return Subpaths.MODE_SAMPLE;
    }

    /** log2 of {@code komorium.subpaths.maxLength}: a power of two from 2 to 1024, default 32. */
    static int logMaxLength() {
        int n = Config.strictInteger(MAX_LENGTH, 32, 2);
        if (Integer.bitCount(n) != 1 || n > 1024) {
            Config.refuse(MAX_LENGTH, String.valueOf(n), "a power of two from 2 to 1024");
        }
        return Integer.numberOfTrailingZeros(n);
    }

    /**
     * What a sampled start yields: {@code one} subpath of a length drawn with probability
     * proportional to 1/length (the thesis, §2.3.3; the default), or {@code all} lengths, the
     * subpaths of 2, 4, … maxLength blocks that start there (true: P(length) = 1 for each).
     */
    static boolean allLengths() {
        String v = Config.strictRaw(LENGTHS);
        if (v == null || v.equals("one")) {
            return false;
        }
        if (v.equals("all")) {
            return true;
        }
        Config.refuse(LENGTHS, v, "one or all");
        return false;
    }

    /** The hot list's bound in entries (distinct subpaths kept). */
    static int memory() {
        return Config.strictInteger(MEMORY, 4096, 16);
    }

    /** The first and smallest sampling rate f: one subpath start per f blocks on average. */
    static int interval() {
        return Config.strictInteger(INTERVAL, 1000, 1);
    }

    /** The confidence of the Chernoff error bounds, as written (a number strictly between 0 and 1). */
    static String confidence() {
        String v = Config.strictRaw(CONFIDENCE);
        if (v == null) {
            return "0.95";
        }
        try {
            double c = Double.parseDouble(v);
            if (c > 0 && c < 1 && v.matches("0?\\.[0-9]+")) {
                return v.startsWith(".") ? "0" + v : v;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        Config.refuse(CONFIDENCE, v, "a decimal number strictly between 0 and 1, such as 0.95");
        return "0.95";
    }

    /** Distinct subpaths the exact mode keeps; later new ones are only counted as overflow. */
    static int exactLimit() {
        return Config.strictInteger(EXACT_LIMIT, 1000000, 1);
    }

    /** Subpaths the exact mode writes into the profile, hottest first. */
    static int exactTop() {
        return Config.strictInteger(EXACT_TOP, 10000, 1);
    }
}
