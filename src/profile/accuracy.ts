/**
 * How close a sampled Komorium profile is to the exact one of the same run input (seed 002 §7.1),
 * seen twice: per calling context (the paper's overlap) and per method (the flat profile), each
 * with the overlap an ideal sampler taking as many samples would reach in expectation, so that a
 * low figure can be told apart from a run that simply has too few samples for its contexts.
 */
import { flatten, idealOverlapOf } from './analysis.js';
import { stackOf, type ContextNode, type Profile } from './model.js';
import { shareOverlap } from './share-overlap.js';
import { methodName } from '../report/names.js';

export interface ViewAccuracy {
  /** `calling contexts` or `methods`. */
  unit: string;
  overlap: number;
  /** Keys in either profile. */
  keys: number;
  /** What independent samples, as many as the sampled profile took, would reach; undefined when B is not sampled. */
  ideal?: number;
  /** The keys that lose the most overlap. */
  worst: { name: string; exact: number; sampled: number }[];
}

/** Self counters by calling context, keyed by the stack of method keys. */
function byContext(p: Profile): { counts: Map<string, number>; nodes: Map<string, ContextNode> } {
  const counts = new Map<string, number>();
  const nodes = new Map<string, ContextNode>();
  const keyOf = new Map<ContextNode, string>([[p.root, '']]);
  for (const n of p.nodes) {
    if (n.parent === null) continue;
    const key = `${keyOf.get(n.parent)!}\u0001${n.method!.key}`;
    keyOf.set(n, key);
    if (n.counter > 0) {
      counts.set(key, n.counter);
      nodes.set(key, n);
    }
  }
  return { counts, nodes };
}

/** The innermost frames of a context, enough to recognise it in a list. */
function contextName(n: ContextNode, frames = 3): string {
  const stack = stackOf(n).map((m) => methodName(m));
  return (stack.length > frames ? '… > ' : '') + stack.slice(-frames).join(' > ');
}

export function komoriumAccuracy(exact: Profile, sampled: Profile, worst = 10): ViewAccuracy[] {
  const samples = sampled.unit === 'samples' ? sampled.totalCounter : undefined;
  const ce = byContext(exact);
  const cs = byContext(sampled);
  const contexts = shareOverlap(ce.counts, cs.counts);
  const me = new Map(flatten(exact).filter((f) => f.self > 0).map((f) => [f.method.key, f]));
  const ms = new Map(flatten(sampled).filter((f) => f.self > 0).map((f) => [f.method.key, f]));
  const selfOf = (m: typeof me) => new Map([...m].map(([k, f]) => [k, f.self]));
  const methods = shareOverlap(selfOf(me), selfOf(ms));
  return [
    {
      unit: 'calling contexts',
      overlap: contexts.overlap,
      keys: contexts.rows.length,
      ideal: samples === undefined ? undefined : idealOverlapOf([...ce.counts.values()], samples),
      worst: contexts.rows.slice(0, worst).map((r) => ({ name: contextName((ce.nodes.get(r.key) ?? cs.nodes.get(r.key))!), exact: r.a, sampled: r.b })),
    },
    {
      unit: 'methods',
      overlap: methods.overlap,
      keys: methods.rows.length,
      ideal: samples === undefined ? undefined : idealOverlapOf([...me.values()].map((f) => f.self), samples),
      worst: methods.rows.slice(0, worst).map((r) => ({ name: methodName((me.get(r.key) ?? ms.get(r.key))!.method), exact: r.a, sampled: r.b })),
    },
  ];
}
