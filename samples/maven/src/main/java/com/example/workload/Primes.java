package com.example.workload;

/** Counts primes by trial division: on purpose the hottest code of the workload. */
final class Primes {
    private Primes() {}

    static int countPrimes(int below) {
        int count = 0;
        for (int i = 2; i < below; i++) {
            if (isPrime(i)) count++;
        }
        return count;
    }

    static boolean isPrime(int n) {
        if (n < 4) return n > 1;
        if (n % 2 == 0) return false;
        for (int d = 3; d * d <= n; d += 2) {
            if (n % d == 0) return false;
        }
        return true;
    }
}
