package com.example.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ShuffleTest {
    @Test
    void insertionSortSorts() {
        int[] data = Shuffle.numbers(2_000, 7L);
        Shuffle.insertionSort(data);
        for (int i = 1; i < data.length; i++) {
            assertTrue(data[i - 1] <= data[i], "out of order at " + i);
        }
    }

    @Test
    void checksumIsStable() {
        int[] data = Shuffle.numbers(1_000, 7L);
        assertTrue(Shuffle.checksum(data) == Shuffle.checksum(Shuffle.numbers(1_000, 7L)));
    }
}
