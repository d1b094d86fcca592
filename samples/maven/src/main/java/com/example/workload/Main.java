package com.example.workload;

/**
 * A deterministic workload for the komorium-ts Maven and Gradle samples: the same output, and the
 * same profile, on every run. Usage: {@code java -jar app.jar [n]} (default n = 200000).
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        System.out.println("primes below " + n + ": " + Primes.countPrimes(n));
        int[] data = Shuffle.numbers(n / 200, 42L);
        Shuffle.insertionSort(data);
        System.out.println("sorted " + data.length + " numbers, checksum " + Shuffle.checksum(data));
    }
}
