// The workload for the example agent in agent/HotMethodsAgent.java: three methods with clearly
// different costs (about 1 : 3 : 6 bytecodes), so the agent's histogram is easy to read.
public class Main {
    static long light(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += i;
        }
        return s;
    }

    static long medium(int n) {
        long s = 0;
        for (int i = 0; i < 3 * n; i++) {
            s += i % 7;
        }
        return s;
    }

    static long heavy(int n) {
        long s = 0;
        for (int i = 0; i < 6 * n; i++) {
            s ^= (s << 1) + i;
        }
        return s;
    }

    public static void main(String[] args) {
        long total = 0;
        for (int round = 0; round < 200; round++) {
            total += light(10_000) + medium(10_000) + heavy(10_000);
        }
        System.out.println("total=" + total);
    }
}
