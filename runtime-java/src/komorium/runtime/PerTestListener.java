package komorium.runtime;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * One profile per test, for per-test bytecode counts (iai-callgrind's idea, on the JVM): with
 * {@code -Dkomorium.tests=DIR}, each JUnit Platform test (JUnit 5, and JUnit 4 through the
 * vintage engine) gets its own exact profile, {@code DIR/<test>.kprof}, whose header names the
 * test, its result and its wall time. {@code komorium-ts baseline save} and
 * {@code compare} read that folder.
 *
 * <p>The runtime registers this listener through {@code META-INF/services}, so it is loaded
 * wherever an instrumented jar is on a JUnit Platform class path; without {@code komorium.tests}
 * it does nothing and does not even start the runtime. A test's profile holds what ran between
 * its start and its end on every thread ({@code @BeforeEach} and {@code @AfterEach} included);
 * what runs between tests is left out. Tests must run one at a time: when they overlap (parallel
 * execution), the listener says so once and writes no more profiles.
 */
public final class PerTestListener implements TestExecutionListener {
    private final String dir = System.getProperty("komorium.tests");
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean failed;
    private long started;

    private boolean active() {
        return dir != null && !dir.trim().isEmpty() && !failed;
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        if (!test.isTest() || !active()) {
            return;
        }
        if (running.incrementAndGet() > 1) {
            fail("tests overlap (parallel execution); per-test profiles need one test at a time");
            return;
        }
        try {
            Control.reset();
            Control.start();
        } catch (IllegalStateException e) {
            fail(e.getMessage().replaceFirst("^komorium: ", ""));
            return;
        }
        started = System.nanoTime();
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (!test.isTest() || !active()) {
            return;
        }
        long wall = System.nanoTime() - started;
        running.decrementAndGet();
        String name = TestNames.of(UniqueId.parse(test.getUniqueId()));
        try {
            File folder = new File(dir.trim());
            if (!folder.isDirectory() && !folder.mkdirs() && !folder.isDirectory()) {
                throw new IOException("cannot create " + folder);
            }
            String file = new File(folder, TestNames.fileName(name, test.getUniqueId())).getPath();
            String[][] headers = {
                {"test", name},
                {"testId", test.getUniqueId()},
                {"testResult", result.getStatus().name()},
                {"testWallNanos", String.valueOf(wall)},
            };
            Control.dump(file, true, headers);
            // What runs until the next test starts is not a test's.
            Control.stop();
        } catch (IOException | RuntimeException e) {
            fail("cannot write the profile of " + name + ": " + e);
        }
    }

    private void fail(String message) {
        if (!failed) {
            failed = true;
            System.err.println("komorium: " + message + "; no more per-test profiles are written");
        }
    }

    /** Test names and file names from unique ids. */
    static final class TestNames {
        private TestNames() {
        }

        /**
         * {@code com.example.PrimesTest.counts()}, {@code com.example.PrimesTest.param(int)[2]}:
         * the class, the method and the invocation of a template, from the unique id's segments
         * (the engine's left out).
         */
        static String of(UniqueId id) {
            StringBuilder sb = new StringBuilder();
            List<UniqueId.Segment> segments = id.getSegments();
            for (UniqueId.Segment s : segments) {
                String type = s.getType();
                String value = s.getValue();
                if (type.equals("engine")) {
                    continue;
                }
                if (type.endsWith("-invocation") || type.equals("dynamic-test") || type.equals("dynamic-container")) {
                    sb.append('[').append(value.startsWith("#") ? value.substring(1) : value).append(']');
                } else {
                    if (sb.length() > 0) {
                        sb.append('.');
                    }
                    sb.append(vintageMethod(value, sb));
                }
            }
            return sb.toString();
        }

        /**
         * The vintage engine names a JUnit 4 test {@code method(com.example.FooTest)} under a runner
         * segment that already names the class; {@code method()} reads as a Jupiter test does and
         * keeps the class out of the name twice.
         */
        private static String vintageMethod(String value, CharSequence prefix) {
            int open = value.indexOf('(');
            if (open > 0 && value.endsWith(")")) {
                String owner = value.substring(open + 1, value.length() - 1);
                String before = prefix.toString();
                if (before.endsWith("." + owner + ".") || before.equals(owner + ".")) {
                    return value.substring(0, open) + "()";
                }
            }
            return value;
        }

        /** A file name for the test: its name with unsafe characters replaced, shortened and made unique by a hash where needed. */
        static String fileName(String name, String uniqueId) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < name.length() && sb.length() < 150; i++) {
                char c = name.charAt(i);
                sb.append(Character.isLetterOrDigit(c) || "._-()[]$#,".indexOf(c) >= 0 ? c : '_');
            }
            boolean lossy = sb.length() < name.length() || !sb.toString().equals(name);
            if (lossy) {
                sb.append('-').append(Integer.toHexString(uniqueId.hashCode()));
            }
            return sb.append(".kprof").toString();
        }
    }
}
