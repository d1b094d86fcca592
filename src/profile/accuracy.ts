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

/**
 * Numbers for calling contexts shared by the two profiles: a context is its parent's number and its
 * method's key, so equal stacks get equal numbers and a key stays short however deep the stack (a key
 * spelling out the whole stack made Rhino's 450,000 contexts, hundreds of frames deep, take gigabytes).
 */
type ContextIds = Map<string, number>;

/** Self counters by calling context, keyed by the context's number in `ids`. */
function byContext(p: Profile, ids: ContextIds): { counts: Map<string, number>; nodes: Map<string, ContextNode> } {
  const counts = new Map<string, number>();
  const nodes = new Map<string, ContextNode>();
  const idOf = new Map<ContextNode, number>([[p.root, 0]]);
  for (const n of p.nodes) {
    if (n.parent === null) continue;
    const step = `${idOf.get(n.parent)!}\u0001${n.method!.key}`;
    let id = ids.get(step);
    if (id === undefined) ids.set(step, (id = ids.size + 1));
    idOf.set(n, id);
    if (n.counter > 0) {
      counts.set(String(id), n.counter);
      nodes.set(String(id), n);
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
  const ids: ContextIds = new Map();
  const ce = byContext(exact, ids);
  const cs = byContext(sampled, ids);
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
