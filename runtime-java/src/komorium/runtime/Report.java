package komorium.runtime;

import java.io.PrintStream;

/** Messages of the runtime on standard error; never throws into the program. */
final class Report {
    private Report() {
    }

    /** Always printed: something did not work as configured. */
    static void error(String message) {
        print(message);
    }

    /** Printed unless {@code komorium.quiet} is set. */
    static void info(String message) {
        if (!Config.quiet()) {
            print(message);
        }
    }

    private static void print(String message) {
        try {
            PrintStream err = System.err;
            if (err != null) {
                err.println(message);
                err.flush();
            }
        } catch (Throwable ignored) {
            // Reporting must never make the program fail (closed stream, stack overflow, ...).
        }
    }

    /** {@code java.lang.IllegalStateException: message} with the cause chain's first frame. */
    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(String.valueOf(t));
        StackTraceElement[] trace = t.getStackTrace();
        if (trace != null && trace.length > 0) {
            sb.append(" at ").append(trace[0]);
        }
        return sb.toString();
    }
}
