import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

// The README's quick start: a deterministic program with a clear hot path. Most bytecodes are
// spent in isPrime (trial division), fewer in buildReport (string building) and sortWords
// (sorting with a comparator), so a profile should rank them in that order. Takes about a second
// uninstrumented; an optional argument scales the prime limit (default 5000000).
public class Main {
    static boolean isPrime(int n) {
        if (n < 2) {
            return false;
        }
        if (n % 2 == 0) {
            return n == 2;
        }
        for (int d = 3; d * d <= n; d += 2) {
            if (n % d == 0) {
                return false;
            }
        }
        return true;
    }

    static int countPrimes(int limit) {
        int count = 0;
        for (int n = 0; n < limit; n++) {
            if (isPrime(n)) {
                count++;
            }
        }
        return count;
    }

    static String word(int i) {
        StringBuilder sb = new StringBuilder();
        int x = i * 7919 + 13;
        for (int k = 0; k < 6; k++) {
            sb.append((char) ('a' + x % 26));
            x = x / 26 + k * 31;
        }
        return sb.toString();
    }

    static String buildReport(int lines) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            sb.append("line ").append(i).append(": ").append(word(i)).append('\n');
        }
        return sb.toString();
    }

    static List<String> sortWords(int n) {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            words.add(word(i));
        }
        Collections.sort(words, (a, b) -> {
            int c = a.charAt(5) - b.charAt(5);
            return c != 0 ? c : a.compareTo(b);
        });
        return words;
    }

    static long checksum(String s) {
        long h = 1125899906842597L;
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + s.charAt(i);
        }
        return h;
    }

    public static void main(String[] args) {
        int limit = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        System.out.println("primes below " + limit + ": " + countPrimes(limit));
        String report = buildReport(limit / 20);
        System.out.println("report: " + report.length() + " chars, checksum " + checksum(report));
        List<String> sorted = sortWords(limit / 20);
        System.out.println("sorted: first " + sorted.get(0) + ", last " + sorted.get(sorted.size() - 1)
                + ", checksum " + checksum(String.join(",", sorted)));
    }
}
