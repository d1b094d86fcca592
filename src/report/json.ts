/**
 * The JSON report, for scripts and dashboards. Its shape is `JsonReport` below (every field is
 * documented there); `format`/`version` let consumers check what they read. The tree is a flat
 * list in preorder with parent ids rather than nested objects, so that deep stacks neither
 * overflow JSON.parse/stringify nor indent the file to megabytes.
 */
import { flatten } from '../profile/analysis.js';
import { share, type Profile } from '../profile/model.js';
import { methodName, sourceRef, type NameOptions } from './names.js';

export interface JsonReport {
  format: 'komorium-report';
  version: 1;
  /** The profile file. */
  profile: string;
  agent: string;
  /** What `self`/`total` counters count: `samples`, or `bytecodes` (exact agent). */
  unit: 'samples' | 'bytecodes';
  granularity: number;
  random: number;
  /** A Java long as a decimal string (it may exceed 2^53). */
  seed: string;
  threads: number;
  truncated: number;
  /** All `header` lines of the profile (jvm, os, date, options, pid, ...). */
  headers: Record<string, string>;
  totals: {
    /** Estimated (samples) or counted (exact) bytecodes of the whole run, all threads. */
    bytecodes: number;
    /** Σ counter over all contexts: the number of samples, or of counted bytecodes. */
    counter: number;
  };
  /** The method table, by id (the ids of the profile file). */
  methods: {
    id: number;
    /** Java-like display name, e.g. `com.foo.Bar.baz(int, String)`. */
    name: string;
    /** Internal class name, `com/foo/Bar`. */
    class: string;
    method: string;
    descriptor: string;
    /** `Bar.java:42`, or '' when unknown. */
    source: string;
    /** Σ counter of the method's contexts, and its share of `totals.counter` (0..1). */
    self: number;
    selfShare: number;
    /** Σ inclusive counter over the method's outermost contexts (recursion counted once). */
    total: number;
    totalShare: number;
    /** selfShare × totals.bytecodes and totalShare × totals.bytecodes, rounded. */
    selfBytecodes: number;
    totalBytecodes: number;
  }[];
  /** The calling context tree in preorder; node 0 is the root (`parent` and `method` -1). */
  tree: {
    id: number;
    parent: number;
    method: number;
    depth: number;
    /** Counter of the context itself, and inclusive of everything it called. */
    self: number;
    total: number;
    selfBytecodes: number;
    totalBytecodes: number;
  }[];
}

export function buildJsonReport(p: Profile, opts: NameOptions = {}): JsonReport {
  const flat = new Map(flatten(p).map((f) => [f.method, f]));
  const est = (c: number): number => Math.round(share(p, c) * p.totalBytecodes);
  return {
    format: 'komorium-report',
    version: 1,
    profile: p.name,
    agent: p.agent,
    unit: p.unit,
    granularity: p.granularity,
    random: p.random,
    seed: p.seed.toString(),
    threads: p.threads,
    truncated: p.truncated,
    headers: Object.fromEntries(p.headers.map((h) => [h.key, h.value])),
    totals: { bytecodes: p.totalBytecodes, counter: p.totalCounter },
    methods: p.methods.map((m) => {
      const f = flat.get(m);
      const self = f?.self ?? 0;
      const total = f?.total ?? 0;
      return {
        id: m.id,
        name: methodName(m, opts),
        class: m.className,
        method: m.name,
        descriptor: m.descriptor,
        source: sourceRef(m),
        self,
        selfShare: share(p, self),
        total,
        totalShare: share(p, total),
        selfBytecodes: est(self),
        totalBytecodes: est(total),
      };
    }),
    tree: p.nodes.map((n) => ({
      id: n.id,
      parent: n.parent === null ? -1 : n.parent.id,
      method: n.method === null ? -1 : n.method.id,
      depth: n.depth,
      self: n.counter,
      total: n.total,
      selfBytecodes: est(n.counter),
      totalBytecodes: est(n.total),
    })),
  };
}

/** One method or tree node per line: readable, diffable, and a tenth of the size of full indentation. */
export function renderJson(p: Profile, opts: NameOptions = {}): string {
  const report = buildJsonReport(p, opts);
  const fields = Object.entries(report).map(([k, v]) =>
    Array.isArray(v)
      ? `  ${JSON.stringify(k)}: [${v.length === 0 ? '' : '\n' + v.map((e) => '    ' + JSON.stringify(e)).join(',\n') + '\n  '}]`
      : `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`,
  );
  return '{\n' + fields.join(',\n') + '\n}\n';
}
