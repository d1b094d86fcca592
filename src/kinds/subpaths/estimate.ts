/**
 * What a sample count says (seed 003 §2.3.6, §4.4): the estimated count of a subpath is its count
 * in the sample × f / P(length), and its error bound at a confidence c is the ε of the Chernoff
 * bound Pr(|x − E x| ≥ ε E x) ≤ e^(−ε² E x / 6) (two-sided, the thesis' σ1) or e^(−ε² E x / 2)
 * (one-sided, σ2), with the sample count standing in for E x as in the thesis' Tables 4.8–4.10.
 */

/**
 * P(length): with one length per sampled start, 2^n blocks with n = 1..N is chosen with probability
 * 2^(N−n) / (2^N − 1); with all lengths per start, every length is taken (1).
 */
export function lengthProbability(length: number, maxLength: number, perStart: 'one' | 'all' = 'one'): number {
  const n = Math.log2(length);
  const big = Math.log2(maxLength);
  if (!Number.isInteger(n) || n < 1 || n > big) return 0;
  return perStart === 'all' ? 1 : 2 ** (big - n) / (2 ** big - 1);
}

/** The estimated number of occurrences of a subpath sampled `count` times at rate f. */
export function estimatedCount(count: number, length: number, rate: number, maxLength: number, perStart: 'one' | 'all' = 'one'): number {
  return (count * rate) / lengthProbability(length, maxLength, perStart);
}

/**
 * The relative error ε that the Chernoff bound allows at `confidence` for a sample count `count`:
 * √(k · ln(1 / (1 − confidence)) / count), k = 6 two-sided, 2 one-sided. Infinite for count 0.
 */
export function chernoffBound(count: number, confidence: number, sided: 'two' | 'one' = 'two'): number {
  if (count <= 0) return Infinity;
  return Math.sqrt(((sided === 'two' ? 6 : 2) * Math.log(1 / (1 - confidence))) / count);
}
