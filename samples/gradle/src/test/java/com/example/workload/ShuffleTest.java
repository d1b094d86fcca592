package com.example.workload;

import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class ShuffleTest {
    @Test
    public void insertionSortSorts() {
        int[] data = Shuffle.numbers(2_000, 7L);
        Shuffle.insertionSort(data);
        for (int i = 1; i < data.length; i++) {
            assertTrue("out of order at " + i, data[i - 1] <= data[i]);
        }
    }
}
