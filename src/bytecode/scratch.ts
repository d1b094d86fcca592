/**
 * Growth of the scratch arrays that the table passes refill per method (docs/non-object-ir.md): a
 * method that needs more than the arrays hold gets at least twice their size, so a jar's methods
 * cause a few allocations in all.
 */

/** The size to grow an array of `have` entries to, for `need`. */
export function grownSize(have: number, need: number): number {
  return Math.max(need, have * 2, 64);
}

/** `a`, or a larger copy of it when it holds fewer than `need`. */
export function fit(a: Int32Array, need: number): Int32Array {
  if (a.length >= need) return a;
  const g = new Int32Array(grownSize(a.length, need));
  g.set(a);
  return g;
}

/**
 * fit for bytes. A separate function, not a generic one: called with two array types, fit was no
 * longer inlined and took 60 ms of a guava run.
 */
export function fitBytes(a: Uint8Array, need: number): Uint8Array {
  if (a.length >= need) return a;
  const g = new Uint8Array(grownSize(a.length, need));
  g.set(a);
  return g;
}
