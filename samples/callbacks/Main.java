import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;

// Code the JDK calls back: comparators in sorts, Comparable, Runnables run by a Thread and by an
// executor, stream lambdas and method references, a user Iterable consumed by the JDK,
// hashCode/equals called by HashMap, computeIfAbsent, ThreadLocal.withInitial, toString called by
// String.valueOf. With the runtime's call-out continuation these callbacks keep their callers'
// calling contexts.
public class Main {
    static final class Point implements Comparable<Point> {
        final int x;
        final int y;

        Point(int x, int y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public int hashCode() {
            return 31 * x + y;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Point && ((Point) o).x == x && ((Point) o).y == y;
        }

        @Override
        public int compareTo(Point o) {
            return x != o.x ? Integer.compare(x, o.x) : Integer.compare(y, o.y);
        }

        @Override
        public String toString() {
            return "(" + x + "," + y + ")";
        }
    }

    static final class Range implements Iterable<Integer> {
        final int from;
        final int to;

        Range(int from, int to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public Iterator<Integer> iterator() {
            return new Iterator<Integer>() {
                int next = from;

                @Override
                public boolean hasNext() {
                    return next < to;
                }

                @Override
                public Integer next() {
                    if (next >= to) {
                        throw new NoSuchElementException();
                    }
                    return next++;
                }
            };
        }
    }

    static long accumulated;

    static void accumulate(int v) {
        accumulated += v;
    }

    static boolean isPrime(int n) {
        if (n < 2) {
            return false;
        }
        for (int d = 2; d * d <= n; d++) {
            if (n % d == 0) {
                return false;
            }
        }
        return true;
    }

    public static void main(String[] args) throws Exception {
        List<String> words = new ArrayList<>(Arrays.asList("pear", "fig", "banana", "kiwi", "apple", "date", "cherry"));
        Collections.sort(words, new Comparator<String>() {
            @Override
            public int compare(String a, String b) {
                return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
            }
        });
        System.out.println("by length: " + words);
        words.sort((a, b) -> b.compareTo(a));
        System.out.println("reversed: " + words);

        Point[] points = new Point[12];
        for (int i = 0; i < points.length; i++) {
            points[i] = new Point((i * 5) % 4, (i * 7) % 5);
        }
        Arrays.sort(points);
        System.out.println("comparable: " + Arrays.toString(points));

        Map<Point, Integer> seen = new HashMap<>();
        for (Point p : points) {
            seen.merge(p, 1, Integer::sum);
        }
        System.out.println("hash lookups: " + seen.get(new Point(0, 0)) + " " + seen.get(new Point(3, 1)) + " "
                + seen.containsKey(new Point(9, 9)) + " size=" + seen.size());

        final int[] ran = new int[1];
        Thread t = new Thread(() -> ran[0] = IntStream.rangeClosed(1, 100).sum());
        t.start();
        t.join();
        System.out.println("runnable on a thread: " + ran[0]);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        final long[] fromPool = new long[1];
        pool.submit(new Runnable() {
            @Override
            public void run() {
                fromPool[0] = IntStream.range(0, 1000).filter(Main::isPrime).count();
            }
        }).get();
        pool.shutdown();
        System.out.println("runnable on an executor: " + fromPool[0]);

        int sumSquares = IntStream.range(0, 1000).filter(i -> i % 3 == 0).map(i -> i * i).sum();
        System.out.println("stream: " + sumSquares);
        String joined = words.stream().filter(w -> w.length() > 3).map(String::toUpperCase).collect(Collectors.joining("-"));
        System.out.println("joined: " + joined);
        Map<Integer, List<String>> byLength = words.stream()
                .collect(Collectors.groupingBy(String::length, TreeMap::new, Collectors.toList()));
        System.out.println("grouped: " + byLength);
        IntStream.rangeClosed(1, 10).forEach(Main::accumulate);
        System.out.println("method reference: " + accumulated);

        int total = 0;
        for (int v : new Range(0, 10)) {
            total += v;
        }
        long evens = StreamSupport.stream(new Range(0, 50).spliterator(), false).filter(v -> v % 2 == 0).count();
        System.out.println("iterable: " + total + " " + evens);

        TreeMap<String, Integer> tree = new TreeMap<>(Comparator.comparing(String::length).thenComparing(Comparator.reverseOrder()));
        for (String w : words) {
            tree.put(w, w.length());
        }
        System.out.println("tree map: " + tree.keySet());

        Map<Integer, List<Integer>> buckets = new TreeMap<>();
        for (int i = 0; i < 20; i++) {
            buckets.computeIfAbsent(i % 4, k -> new ArrayList<>()).add(i);
        }
        System.out.println("computeIfAbsent: " + buckets);

        ThreadLocal<StringBuilder> local = ThreadLocal.withInitial(() -> new StringBuilder("init"));
        System.out.println("thread local: " + local.get().append("+used"));
        System.out.println("valueOf: " + String.valueOf(new Point(4, 2)));
    }
}
