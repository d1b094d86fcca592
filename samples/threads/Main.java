import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

// Several threads doing deterministic work. Results are printed by the main thread in a fixed
// order after joining, so the output does not depend on scheduling.
public class Main {
    static int counter;

    static synchronized void increment() {
        counter++;
    }

    static int collatzSteps(long n) {
        int steps = 0;
        while (n != 1) {
            n = (n & 1) == 0 ? n / 2 : 3 * n + 1;
            steps++;
        }
        return steps;
    }

    static final class Worker extends Thread {
        final int from;
        final int to;
        long sum;
        int longest;
        int longestAt;

        Worker(int from, int to) {
            super("worker-" + from);
            this.from = from;
            this.to = to;
        }

        @Override
        public void run() {
            for (int i = from; i < to; i++) {
                int s = collatzSteps(i);
                sum += s;
                if (s > longest) {
                    longest = s;
                    longestAt = i;
                }
            }
        }
    }

    static long sumOfSquares(int from, int to) {
        long s = 0;
        for (long i = from; i < to; i++) {
            s += i * i;
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        // Plain threads over disjoint ranges.
        List<Worker> workers = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            workers.add(new Worker(1 + k * 50_000, 1 + (k + 1) * 50_000));
        }
        for (Worker w : workers) {
            w.start();
        }
        long total = 0;
        for (Worker w : workers) {
            w.join();
            System.out.println(w.getName() + ": steps=" + w.sum + " longest=" + w.longest + " at " + w.longestAt);
            total += w.sum;
        }
        System.out.println("total steps=" + total);

        // A pool: tasks run on pool threads, results collected in submission order.
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<Long>> futures = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            final int from = k * 100_000;
            futures.add(pool.submit(() -> sumOfSquares(from, from + 100_000)));
        }
        for (int k = 0; k < futures.size(); k++) {
            System.out.println("task " + k + ": " + futures.get(k).get());
        }
        pool.shutdown();

        // Contention on a monitor and on an atomic.
        AtomicLong atomic = new AtomicLong();
        Thread[] ts = new Thread[4];
        for (int k = 0; k < ts.length; k++) {
            ts[k] = new Thread(() -> {
                for (int i = 0; i < 25_000; i++) {
                    increment();
                    atomic.addAndGet(i);
                }
            });
            ts[k].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("counter=" + counter + " atomic=" + atomic.get());
    }
}
