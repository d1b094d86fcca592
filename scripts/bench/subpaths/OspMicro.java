/**
 * Operations per second of a few kinds of basic operation, each in its own loop, for the table of
 * seed 003 (Table 4.4, after the Java Grande suite's section 1): the cost of the skip logic at every
 * block weighs on cheap operations and hardly on expensive ones. Each kernel runs for a fixed number
 * of iterations after a warm-up; the checksum keeps the JIT from dropping the work.
 */
public final class OspMicro {
    static long sink;

    static long addInt(int n) {
        int a = 1, b = 2, c = 3;
        for (int i = 0; i < n; i++) {
            a += b; b += c; c += a; a += b; b += c; c += a; a += b; b += c;
        }
        return a + b + c;
    }

    static long multDouble(int n) {
        double a = 1.0000001, b = 0.9999999, c = 1.0;
        for (int i = 0; i < n; i++) {
            c *= a; c *= b; c *= a; c *= b; c *= a; c *= b; c *= a; c *= b;
        }
        return (long) c;
    }

    static long castIntFloat(int n) {
        float f = 0;
        int k = 0;
        for (int i = 0; i < n; i++) {
            f = i; k += (int) f; f = k; k += (int) f;
        }
        return k;
    }

    static long assignLocal(int n) {
        int a = 1, b = 2, c = 3, d = 4;
        for (int i = 0; i < n; i++) {
            a = b; b = c; c = d; d = a; a = b; b = c; c = d; d = a;
        }
        return a + b + c + d;
    }

    static long loopFor(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s++;
        }
        return s;
    }

    static long ifElse(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            if ((i & 1) == 0) {
                s += 3;
            } else if ((i & 2) == 0) {
                s -= 1;
            } else {
                s ^= i;
            }
        }
        return s;
    }

    static long call(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += twice(i);
        }
        return s;
    }

    static int twice(int x) {
        return x + x;
    }

    static long newArrayLong1(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            long[] a = new long[1];
            a[0] = i;
            s += a[0];
        }
        return s;
    }

    static long newArrayLong128(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            long[] a = new long[128];
            a[i & 127] = i;
            s += a.length;
        }
        return s;
    }

    interface Kernel {
        long run(int n);
    }

    static void measure(String name, int ops, int n, Kernel k) {
        sink += k.run(n / 10);
        long t0 = System.nanoTime();
        sink += k.run(n);
        long dt = System.nanoTime() - t0;
        System.out.println(name + "\t" + ((double) ops * n / (dt / 1e9)));
    }

    public static void main(String[] args) {
        int scale = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        measure("Add:Int", 8, 50_000_000 * scale, OspMicro::addInt);
        measure("Mult:Double", 8, 20_000_000 * scale, OspMicro::multDouble);
        measure("Cast:IntFloat", 4, 20_000_000 * scale, OspMicro::castIntFloat);
        measure("Assign:Local", 8, 50_000_000 * scale, OspMicro::assignLocal);
        measure("Loop:For", 1, 200_000_000 * scale, OspMicro::loopFor);
        measure("If:Else", 1, 100_000_000 * scale, OspMicro::ifElse);
        measure("Call:Static", 1, 100_000_000 * scale, OspMicro::call);
        measure("Create:Array:Long:1", 1, 20_000_000 * scale, OspMicro::newArrayLong1);
        measure("Create:Array:Long:128", 1, 2_000_000 * scale, OspMicro::newArrayLong128);
        System.err.println("checksum " + sink);
    }
}
