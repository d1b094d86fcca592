package com.example.workload;

/** Pseudo-random numbers from a fixed seed, sorted by insertion sort. */
final class Shuffle {
    private Shuffle() {}

    static int[] numbers(int count, long seed) {
        int[] out = new int[count];
        long x = seed;
        for (int i = 0; i < count; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            out[i] = (int) (x >>> 40);
        }
        return out;
    }

    static void insertionSort(int[] a) {
        for (int i = 1; i < a.length; i++) {
            int v = a[i];
            int j = i - 1;
            while (j >= 0 && a[j] > v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }

    static long checksum(int[] a) {
        long h = 17;
        for (int v : a) h = h * 31 + v;
        return h;
    }
}
