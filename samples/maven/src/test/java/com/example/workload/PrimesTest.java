package com.example.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PrimesTest {
    @Test
    void countsThePrimesBelowTenThousand() {
        assertEquals(1229, Primes.countPrimes(10_000));
    }
}
