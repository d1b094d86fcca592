package komorium.runtime;

/**
 * Subpath identifiers. A subpath is identified up to rotation, the identity the thesis calls ideal
 * (seed 003 §2.3.5): a loop of n blocks sampled at random points is one subpath, not n, while the
 * order of the blocks and blocks that occur twice still count (XOR, the thesis' encoding, loses
 * both). The identifier is a 64-bit hash of the length and of the least rotation of the block
 * numbers; what it loses beyond rotation is a 64-bit collision, which the exact mode counts.
 */
final class SubpathIds {
    private SubpathIds() {
    }

    /**
     * The start of the lexicographically least rotation of {@code s[0..n)} (two-pointer method,
     * O(n)); n is a power of two (every subpath length is), so indices wrap with a mask.
     */
    static int leastRotation(int[] s, int n) {
        int mask = n - 1;
        int i = 0;
        int j = 1;
        int k = 0;
        while (i < n && j < n && k < n) {
            int a = s[(i + k) & mask];
            int b = s[(j + k) & mask];
            if (a == b) {
                k++;
                continue;
            }
            if (a > b) {
                i += k + 1;
            } else {
                j += k + 1;
            }
            if (i == j) {
                j++;
            }
            k = 0;
        }
        return Math.min(i, j);
    }

    /** The 64-bit hash of {@code s[0..n)} read from {@code rot} on, cyclically, and of n (a power of two). */
    static long hash(int[] s, int n, int rot) {
        long h = 0x9E3779B97F4A7C15L * (n + 1);
        for (int k = 0, i = rot; k < n; k++, i = (i + 1) & (n - 1)) {
            h = (h ^ (s[i] & 0xffffffffL)) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 31;
        }
        h *= 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }

    /** The identifier of {@code s[0..n)}: the hash of its least rotation. */
    static long id(int[] s, int n) {
        return hash(s, n, leastRotation(s, n));
    }

    /** The thesis' identifier (§3.2): the length and the exclusive-or of the block numbers. */
    static long xorId(int[] s, int n) {
        int x = 0;
        for (int i = 0; i < n; i++) {
            x ^= s[i];
        }
        return ((long) n << 32) | (x & 0xffffffffL);
    }

    /** Whether {@code a} from {@code ra} and {@code b} from {@code rb} are the same cyclic sequence of n (a power of two) blocks. */
    static boolean sameRotation(int[] a, int ra, int[] b, int rb, int n) {
        int mask = n - 1;
        for (int k = 0; k < n; k++) {
            if (a[(ra + k) & mask] != b[(rb + k) & mask]) {
                return false;
            }
        }
        return true;
    }
}
