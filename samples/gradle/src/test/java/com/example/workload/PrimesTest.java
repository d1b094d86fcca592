package com.example.workload;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class PrimesTest {
    @Test
    public void smallNumbers() {
        assertFalse(Primes.isPrime(1));
        assertTrue(Primes.isPrime(2));
        assertTrue(Primes.isPrime(97));
        assertFalse(Primes.isPrime(91));
    }

    @Test
    public void primesBelowOneHundredThousand() {
        assertEquals(9592, Primes.countPrimes(100_000));
    }
}
