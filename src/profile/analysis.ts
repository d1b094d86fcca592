/**
 * Comparisons and aggregations over profiles: merge, the overlap metric of seed 002 §7.1 (and what
 * an ideal sampler could reach on it), and the per-method flat profile.
 */
import { KomoriumError } from '../errors.js';
import { buildProfile, share, toDraft, type ContextNode, type MethodEntry, type Profile, type TreeDraft } from './model.js';

/**
 * Merges profiles of the same agent and unit (e.g. several runs, or parts of one run): counters are
 * summed per calling context (stacks compared by method key), as are totalBytecodes, threads and
 * truncated. Sample counts are only commensurable at the same sampling granularity, so differing
 * granularities are refused for the sampling unit. Headers come from the first profile, plus a
 * `merged` header.
 */
export function mergeProfiles(profiles: Profile[]): Profile {
  if (profiles.length === 0) throw new KomoriumError('merge: no profiles given');
  const first = profiles[0]!;
  for (const p of profiles.slice(1)) {
    if (p.agent !== first.agent || p.unit !== first.unit) {
      throw new KomoriumError(
        `merge: ${p.name} was written by agent "${p.agent}" (unit ${p.unit}) but ${first.name} by agent "${first.agent}" (unit ${first.unit}): only profiles of the same agent can be merged`,
      );
    }
    if (p.unit === 'samples' && (p.granularity !== first.granularity || p.random !== first.random)) {
      throw new KomoriumError(
        `merge: ${p.name} was sampled at granularity ${describeGranularity(p)} but ${first.name} at ${describeGranularity(first)}: ` +
          `a sample stands for a different number of bytecodes, so summing them would skew the profile (use diff to compare them)`,
      );
    }
  }
  const root: TreeDraft = { method: null, counter: 0, children: profiles.map((p) => toDraft(p)).flatMap((d) => d.children) };
  const sum = (f: (p: Profile) => number): number => profiles.reduce((s, p) => s + f(p), 0);
  const totalBytecodes = sum((p) => p.totalBytecodes);
  if (!Number.isSafeInteger(totalBytecodes)) throw new KomoriumError('merge: the total bytecodes exceed 2^53-1');
  return buildProfile(
    {
      name: '<merged>',
      version: 2,
      headers: [...first.headers.filter((h) => h.key !== 'merged'), { key: 'merged', value: `${profiles.length} profiles` }],
      agent: first.agent,
      unit: first.unit,
      granularity: first.granularity,
      random: first.random,
      seed: first.seed,
      totalBytecodes,
      threads: sum((p) => p.threads),
      truncated: sum((p) => p.truncated),
    },
    root,
  );
}

export function describeGranularity(p: Pick<Profile, 'granularity' | 'random'>): string {
  return p.random > 0 ? `${p.granularity}+random[0,${p.random})` : `${p.granularity}`;
}

/** Calls `visit` for every pair of contexts with the same stack of method keys in a and b (roots included). */
export function forEachSharedContext(a: Profile, b: Profile, visit: (x: ContextNode, y: ContextNode) => void): void {
  const stack: [ContextNode, ContextNode][] = [[a.root, b.root]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    visit(x, y);
    if (x.children.length === 0 || y.children.length === 0) continue;
    const byKey = new Map(y.children.map((c) => [c.method!.key, c]));
    for (const cx of x.children) {
      const cy = byKey.get(cx.method!.key);
      if (cy !== undefined) stack.push([cx, cy]);
    }
  }
}

export interface MethodOverlap {
  key: string;
  /** The method as named in a (or in b when a lacks it). */
  method: MethodEntry;
  /** Self share (Σ rce of the method's contexts) in a and in b. */
  selfA: number;
  selfB: number;
  /** Σ over the method's shared contexts of min(rce_a, rce_b): its part of the context overlap. */
  contextOverlap: number;
}

export interface OverlapResult {
  /** Seed 002 §7.1: Σ over shared calling contexts of min(rce_a, rce_b), in [0, 1]. */
  total: number;
  /** The same on the flat profile: Σ over methods of min(self share a, self share b), in [0, 1]. */
  methodOverlap: number;
  /** Per method key, sorted by the overlap it loses (max(selfA, selfB) − contextOverlap), largest first. */
  perMethod: MethodOverlap[];
}

/**
 * The overlap percentage of seed 002 §7.1 (as a fraction), plus the method-level view: how similar
 * the distribution of self time over methods is, and which methods account for the difference.
 * Two empty profiles are identical (1); an empty and a non-empty one share nothing (0).
 */
export function overlap(a: Profile, b: Profile): OverlapResult {
  const per = new Map<string, MethodOverlap>();
  const entry = (m: MethodEntry): MethodOverlap => {
    let e = per.get(m.key);
    if (e === undefined) per.set(m.key, (e = { key: m.key, method: m, selfA: 0, selfB: 0, contextOverlap: 0 }));
    return e;
  };
  for (const n of a.nodes) if (n.method !== null && n.counter > 0) entry(n.method).selfA += share(a, n.counter);
  for (const n of b.nodes) if (n.method !== null && n.counter > 0) entry(n.method).selfB += share(b, n.counter);
  let total = 0;
  forEachSharedContext(a, b, (x, y) => {
    if (x.method === null) return;
    const m = Math.min(share(a, x.counter), share(b, y.counter));
    if (m > 0) {
      total += m;
      entry(x.method).contextOverlap += m;
    }
  });
  let methodOverlap = 0;
  for (const e of per.values()) methodOverlap += Math.min(e.selfA, e.selfB);
  if (a.totalCounter === 0 && b.totalCounter === 0) total = methodOverlap = 1;
  const loss = (e: MethodOverlap): number => Math.max(e.selfA, e.selfB) - e.contextOverlap;
  const perMethod = [...per.values()].sort((x, y) => loss(y) - loss(x) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  // Float sums can land a hair outside [0, 1]; a CI gate must not fail on 100.00000000000001%.
  const clamp = (v: number): number => Math.min(1, Math.max(0, v));
  return { total: clamp(total), methodOverlap: clamp(methodOverlap), perMethod };
}

/**
 * The overlap (seed 002 §7.1) that `samples` independent samples drawn in proportion to `exact`'s
 * counters would have with `exact`, in expectation: 1 − Σ E|k/N − p| / 2 with k ~ Binomial(N, p)
 * per calling context. It bounds what any sampler can show with that many samples: a run whose
 * weight is spread over many contexts of fewer than one expected sample each (ecj compiling
 * java.util: 2.6 million contexts in 1.4 billion bytecodes) cannot reach a high overlap at a
 * coarse granularity, however unbiased the sampler is.
 */
export function idealSampledOverlap(exact: Profile, samples: number): number {
  const counts: number[] = [];
  for (const node of exact.nodes) if (node.method !== null && node.counter > 0) counts.push(node.counter);
  return idealOverlapOf(counts, samples);
}

/**
 * The same bound for any distribution of counts over keys (calling contexts, methods, lines): the
 * expected overlap of `samples` independent draws in proportion to `counts` with `counts` itself.
 */
export function idealOverlapOf(counts: readonly number[], samples: number): number {
  const total = counts.reduce((s, c) => s + c, 0);
  if (total === 0 || samples <= 0) return total === 0 ? 1 : 0;
  const n = Math.round(samples);
  let lost = 0;
  for (const c of counts) if (c > 0) lost += binomialMeanAbsDeviation(n, c / total);
  return Math.min(1, Math.max(0, 1 - lost / (2 * n)));
}

/** E|X − np| for X ~ Binomial(n, p), by de Moivre's closed form 2·(f+1)·C(n, f+1)·p^(f+1)·(1−p)^(n−f), f = ⌊np⌋. */
export function binomialMeanAbsDeviation(n: number, p: number): number {
  if (p <= 0 || p >= 1) return 0;
  const f = Math.floor(n * p);
  if (f + 1 > n) return 0;
  const log = Math.log(2 * (f + 1)) + logChoose(n, f + 1) + (f + 1) * Math.log(p) + (n - f) * Math.log1p(-p);
  return Math.exp(log);
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/** ln(n!) exactly for small n, else by Stirling's series (error below 1e-10 from n = 20). */
function logFactorial(n: number): number {
  if (n < 20) {
    let s = 0;
    for (let i = 2; i <= n; i++) s += Math.log(i);
    return s;
  }
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + 1 / (12 * n) - 1 / (360 * n ** 3);
}

export interface FlatMethod {
  method: MethodEntry;
  /** Σ counter of the method's contexts. */
  self: number;
  /**
   * Σ inclusive counter of the method's outermost contexts: every stack that contains the method
   * counts once, however often recursion repeats the method in it.
   */
  total: number;
}

/** The flat profile: one entry per method that occurs in the tree, in method-table order. */
export function flatten(profile: Profile): FlatMethod[] {
  const flat = new Map<MethodEntry, FlatMethod>();
  const onPath = new Map<MethodEntry, number>();
  // Iterative DFS with enter/exit events, so deep (recursive) stacks cannot overflow the JS stack.
  const stack: { node: ContextNode; exit: boolean }[] = [{ node: profile.root, exit: false }];
  while (stack.length > 0) {
    const { node, exit } = stack.pop()!;
    const m = node.method;
    if (exit) {
      if (m !== null) onPath.set(m, onPath.get(m)! - 1);
      continue;
    }
    if (m !== null) {
      let f = flat.get(m);
      if (f === undefined) flat.set(m, (f = { method: m, self: 0, total: 0 }));
      f.self += node.counter;
      const depth = onPath.get(m) ?? 0;
      if (depth === 0) f.total += node.total;
      onPath.set(m, depth + 1);
    }
    stack.push({ node, exit: true });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, exit: false });
  }
  return [...flat.values()].sort((x, y) => x.method.id - y.method.id);
}
