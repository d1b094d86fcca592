/**
 * The overlap of two distributions of counts over the same kind of key (seed 000 §4.4, seed 002
 * §7.1): each key's share of its profile's total, and Σ min(share in a, share in b). 100% means
 * the same distribution; a sampled profile is compared with the exhaustive one this way.
 */

export interface ShareRow {
  key: string;
  a: number;
  b: number;
}

export interface ShareOverlap {
  /** In [0, 1]; two empty profiles overlap 1, an empty and a non-empty one 0. */
  overlap: number;
  /** Every key, sorted by what it loses (|a − b|), largest first. */
  rows: ShareRow[];
}

/**
 * With `cutoff` below 1, each profile is first cut to its top members that together make `cutoff`
 * of its total (seed 001 §5: the members of a 90% profile), and shares are of what is kept.
 */
export function shareOverlap(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, cutoff = 1): ShareOverlap {
  if (cutoff < 1) return shareOverlap(topMembers(a, cutoff), topMembers(b, cutoff));
  const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((s, v) => s + v, 0);
  const ta = total(a);
  const tb = total(b);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows: ShareRow[] = [];
  let overlap = 0;
  for (const key of keys) {
    const row = { key, a: ta === 0 ? 0 : (a.get(key) ?? 0) / ta, b: tb === 0 ? 0 : (b.get(key) ?? 0) / tb };
    overlap += Math.min(row.a, row.b);
    rows.push(row);
  }
  if (ta === 0 && tb === 0) overlap = 1;
  rows.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  // Float sums can land a hair outside [0, 1]; a CI gate must not fail on 100.00000000000001%.
  return { overlap: Math.min(1, Math.max(0, overlap)), rows };
}

/** The largest members (ties by key) whose sum first reaches `cutoff` of the total. */
export function topMembers(m: ReadonlyMap<string, number>, cutoff: number): Map<string, number> {
  const total = [...m.values()].reduce((s, v) => s + v, 0);
  const sorted = [...m].filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const out = new Map<string, number>();
  let sum = 0;
  for (const [k, v] of sorted) {
    if (sum >= cutoff * total) break;
    out.set(k, v);
    sum += v;
  }
  return out;
}
