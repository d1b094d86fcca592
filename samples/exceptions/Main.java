import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

// Exceptions thrown and caught through several frames: user exceptions, exceptions from the JDK,
// finally blocks, try-with-resources with suppressed exceptions, exceptions thrown through a JDK
// callback, cause chains, and a stack overflow. Messages of JDK exceptions are not printed (they
// may name locals or differ between JDKs).
public class Main {
    static final class AppException extends Exception {
        private static final long serialVersionUID = 1L;
        final int code;

        AppException(String message, int code) {
            super(message);
            this.code = code;
        }
    }

    static int finallyRuns;
    static int closed;

    static int level3(int x) throws AppException {
        if (x % 3 == 0) {
            throw new AppException("multiple of three: " + x, x);
        }
        return x * 2;
    }

    static int level2(int x) throws AppException {
        try {
            return level3(x) + 1;
        } finally {
            finallyRuns++;
        }
    }

    static int level1(int x) {
        try {
            return level2(x);
        } catch (AppException e) {
            return -e.code;
        }
    }

    static int deep(int n) {
        if (n == 0) {
            throw new IllegalStateException("bottom");
        }
        return deep(n - 1) + 1;
    }

    static final class Resource implements AutoCloseable {
        final String name;
        final boolean failOnClose;

        Resource(String name, boolean failOnClose) {
            this.name = name;
            this.failOnClose = failOnClose;
        }

        @Override
        public void close() {
            closed++;
            if (failOnClose) {
                throw new IllegalArgumentException("close " + name);
            }
        }
    }

    static String classify(int k) {
        try {
            switch (k) {
                case 0:
                    return "ok " + Integer.parseInt("12");
                case 1:
                    return "parsed " + Integer.parseInt("twelve");
                case 2:
                    return "divided " + (10 / (k - 2));
                case 3:
                    int[] pair = new int[2];
                    return "element " + pair[k];
                case 4:
                    Object o = "text";
                    return "cast " + (Integer) o;
                case 5:
                    String s = k > 4 ? null : "x";
                    return "length " + s.length();
                default:
                    throw new UnsupportedOperationException();
            }
        } catch (NumberFormatException e) {
            return "NumberFormatException";
        } catch (ArithmeticException | ArrayIndexOutOfBoundsException e) {
            return e.getClass().getSimpleName();
        } catch (RuntimeException e) {
            return "other " + e.getClass().getName();
        }
    }

    static int overflow(int n) {
        return overflow(n + 1) + 1;
    }

    public static void main(String[] args) {
        int sum = 0;
        for (int i = 1; i <= 30; i++) {
            sum += level1(i);
        }
        System.out.println("sum=" + sum + " finally=" + finallyRuns);

        try {
            deep(100);
        } catch (IllegalStateException e) {
            System.out.println("deep: " + e.getMessage());
        }

        for (int k = 0; k <= 6; k++) {
            System.out.println("classify " + k + ": " + classify(k));
        }

        try (Resource a = new Resource("a", true); Resource b = new Resource("b", true)) {
            throw new IllegalStateException("body " + a.name + b.name);
        } catch (IllegalStateException e) {
            System.out.println("twr: " + e.getMessage() + " suppressed=" + e.getSuppressed().length
                    + " first=" + e.getSuppressed()[0].getMessage() + " closed=" + closed);
        }

        List<Integer> list = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            list.add(10 - i);
        }
        try {
            Collections.sort(list, (x, y) -> {
                if (x == 5 || y == 5) {
                    throw new IllegalArgumentException("five");
                }
                return Integer.compare(x, y);
            });
        } catch (IllegalArgumentException e) {
            System.out.println("through sort: " + e.getMessage());
        }

        try {
            try {
                level2(9);
            } catch (AppException e) {
                throw new RuntimeException("wrapped", e);
            }
        } catch (RuntimeException e) {
            StringBuilder chain = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                chain.append(t.getClass().getSimpleName()).append('(').append(t.getMessage()).append(") ");
            }
            System.out.println("chain: " + chain.toString().trim());
        }

        try {
            overflow(0);
        } catch (StackOverflowError e) {
            System.out.println("caught StackOverflowError");
        }
        System.out.println("still running: " + level1(4));
    }
}
