/**
 * Immediate dominators by Cooper, Harvey & Kennedy's iteration ("A Simple, Fast Dominance
 * Algorithm"), over blocks in reverse postorder with predecessors in compressed arrays (those of
 * block b are pred[predStart[b]] … pred[predStart[b + 1] - 1]), for loops.ts and table-loops.ts.
 */

/**
 * Fills dom[b] with b's immediate dominator for every block of `post` (the entry's is itself),
 * leaving the other blocks' entries as they are (-1 expected). `post` is the postorder of a
 * depth-first search from the entry, post[nPost - 1] the entry itself; `order` is scratch of at
 * least as many entries as there are blocks.
 */
export function iterateDominators(
  post: ArrayLike<number>,
  nPost: number,
  predStart: Int32Array,
  pred: Int32Array,
  order: Int32Array,
  dom: Int32Array,
): void {
  for (let k = 0; k < nPost; k++) order[post[nPost - 1 - k]!] = k;
  const entry = post[nPost - 1]!;
  dom[entry] = entry;
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = nPost - 2; k >= 0; k--) {
      const b = post[k]!;
      let d = -1;
      for (let q = predStart[b]!; q < predStart[b + 1]!; q++) {
        const p = pred[q]!;
        if (dom[p] === -1) continue;
        if (d === -1) d = p;
        else {
          let a = p;
          while (a !== d) {
            while (order[a]! > order[d]!) a = dom[a]!;
            while (order[d]! > order[a]!) d = dom[d]!;
          }
        }
      }
      if (d !== -1 && dom[b] !== d) {
        dom[b] = d;
        changed = true;
      }
    }
  }
}
