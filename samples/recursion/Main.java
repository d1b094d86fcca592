// Recursive functions: naive Fibonacci, Ackermann, mutual recursion, Towers of Hanoi, and a linear
// recursion far deeper than the runtime's default reified stack (1024 frames), run on a thread
// with a large stack so that the JVM itself never overflows.
public class Main {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static int ackermann(int m, int n) {
        if (m == 0) {
            return n + 1;
        }
        if (n == 0) {
            return ackermann(m - 1, 1);
        }
        return ackermann(m - 1, ackermann(m, n - 1));
    }

    static boolean isEven(int n) {
        return n == 0 || isOdd(n - 1);
    }

    static boolean isOdd(int n) {
        return n != 0 && isEven(n - 1);
    }

    static long hanoi(int disks, int from, int to, int via) {
        if (disks == 0) {
            return 0;
        }
        return hanoi(disks - 1, from, via, to) + 1 + hanoi(disks - 1, via, to, from);
    }

    static long sumTo(int n) {
        return n == 0 ? 0 : n + sumTo(n - 1);
    }

    public static void main(String[] args) throws Exception {
        System.out.println("fib(27)=" + fib(27));
        System.out.println("ackermann(2,3)=" + ackermann(2, 3));
        System.out.println("ackermann(3,3)=" + ackermann(3, 3));
        System.out.println("ackermann(3,5)=" + ackermann(3, 5));
        System.out.println("isEven(3001)=" + isEven(3001));
        System.out.println("hanoi(18)=" + hanoi(18, 1, 3, 2));
        final long[] deep = new long[1];
        Thread t = new Thread(null, () -> deep[0] = sumTo(20_000), "deep", 512L << 20);
        t.start();
        t.join();
        System.out.println("sumTo(20000)=" + deep[0]);
    }
}
