/**
 * pprof export (`report --format pprof`): the profile.proto that `go tool pprof`, Google Cloud
 * Profiler, Pyroscope and Datadog read, gzipped, encoded by the pprof-format package.
 *
 * Komorium's samples: sample types `samples` (for a sampling profile) and `bytecodes` (estimated,
 * or counted by the exact agent); each location is a method at a source line, each sample a
 * calling context at the line its samples ran on, with the thread's name as a `thread` label.
 *
 * Call graphs (call-edges, call-pairs, cbs sections): one sample per edge, the stack [callee at
 * its first line, caller at the line of the call], its count as the value. pprof then reads it as
 * a call graph: `-top` lists callees by the calls into them (flat), `-traces` the caller → callee
 * pairs, `-dot` the graph with the counts on its edges.
 *
 * A pprof file has one list of sample types, which every sample fills. So each section is a value
 * column of its own, and a sample holds zero in the columns of the sections it is not from: the
 * Komorium columns first, then each graph's, in file order (an edge two graphs share is one
 * sample with both counts). `-sample_index=NAME` picks a column; the default is `bytecodes` when
 * the file has Komorium's samples, else the first graph's.
 */
import { gzipSync } from 'node:zlib';
import { Function as PprofFunction, Label, Line, Location, Mapping, Profile as PprofProfile, Sample, StringTable, ValueType } from 'pprof-format';
import type { MethodEntry, Profile } from '../profile/model.js';
import type { CallGraph } from '../kinds/edge-records.js';
import { edgeKey } from '../kinds/edge-records.js';
import { methodName, sourcePath, type NameOptions } from './names.js';
import { weightedStacks } from './stacks.js';

/** A section's call graph and the kind it came from. */
export interface PprofGraph extends CallGraph {
  kind: string;
}

/** The string, function and location tables, each entry made once. */
class Tables {
  readonly strings = new StringTable();
  readonly functions = new Map<string, PprofFunction>();
  readonly locations = new Map<string, Location>();
  readonly mapping: Mapping;

  constructor(
    name: string,
    private readonly opts: NameOptions,
  ) {
    this.mapping = new Mapping({ id: 1, filename: this.strings.dedup(name), hasFunctions: true, hasFilenames: true, hasLineNumbers: true });
  }

  type(type: string): ValueType {
    return new ValueType({ type: this.strings.dedup(type), unit: this.strings.dedup('count') });
  }

  private fn(m: MethodEntry): PprofFunction {
    let f = this.functions.get(m.key);
    if (f === undefined) {
      f = new PprofFunction({
        id: this.functions.size + 1,
        name: this.strings.dedup(methodName(m, this.opts)),
        systemName: this.strings.dedup(`${m.className}.${m.name}${m.descriptor}`),
        filename: this.strings.dedup(sourcePath(m)),
        startLine: Math.max(0, m.line),
      });
      this.functions.set(m.key, f);
    }
    return f;
  }

  /** The location of a method at a line (0 when unknown). */
  location(m: MethodEntry, line: number | undefined): number {
    const at = Math.max(0, line ?? 0);
    const key = `${m.key}\u0000${at}`;
    let l = this.locations.get(key);
    if (l === undefined) {
      l = new Location({ id: this.locations.size + 1, mappingId: this.mapping.id, line: [new Line({ functionId: this.fn(m).id, line: at })] });
      this.locations.set(key, l);
    }
    return l.id as number;
  }
}

/**
 * The sample type of each graph: what its counts are (CallGraph.counts: `calls` when every call
 * was counted, `sampled_calls` for a sampler's, cbs's included). Not `samples`, which is
 * Komorium's column and which pprof users read as stacks sampled on a clock, nor plain `calls`
 * for a sampler, which would read as the number of calls. A name already taken (two exhaustive
 * graphs in one file) is prefixed with its kind: `call_pairs_calls`.
 */
function graphColumns(graphs: readonly PprofGraph[], taken: readonly string[]): string[] {
  const used = new Set(taken);
  return graphs.map((g) => {
    const name = used.has(g.counts) ? `${g.kind.replace(/-/g, '_')}_${g.counts}` : g.counts;
    used.add(name);
    return name;
  });
}

/** One sample per edge of any graph, [callee, caller at the call's line], its counts in the graphs' columns from `first` on. */
function edgeSamples(t: Tables, graphs: readonly PprofGraph[], first: number, width: number): Sample[] {
  const byEdge = new Map<string, Sample>();
  graphs.forEach((g, i) => {
    for (const e of g.edges) {
      const key = edgeKey(e);
      let s = byEdge.get(key);
      if (s === undefined) {
        // The callee at its first line: the call enters it there; which of its lines ran is not known.
        s = new Sample({ locationId: [t.location(e.callee, e.callee.line), t.location(e.site.method, e.site.line)], value: new Array<number>(width).fill(0) });
        byEdge.set(key, s);
      }
      (s.value as number[])[first + i] = e.count;
    }
  });
  return [...byEdge.values()];
}

/** Komorium's samples, in columns [samples, bytecodes] (sampled) or [bytecodes] (exact), then zeros up to `width`. */
function stackSamples(t: Tables, p: Profile, width: number): Sample[] {
  const sampled = p.unit === 'samples';
  const perCounter = p.totalCounter === 0 ? 0 : p.totalBytecodes / p.totalCounter;
  const threadKey = t.strings.dedup('thread');
  return weightedStacks(p).map((s) => {
    const bytecodes = sampled ? Math.round(s.counter * perCounter) : s.counter;
    const value = sampled ? [s.counter, bytecodes] : [bytecodes];
    return new Sample({
      // Leaf first, as profile.proto orders a sample's locations.
      locationId: s.frames.map((f) => t.location(f.method, f.line)).reverse(),
      value: [...value, ...new Array<number>(width - value.length).fill(0)],
      label: s.thread === null ? [] : [new Label({ key: threadKey, str: t.strings.dedup(s.thread) })],
    });
  });
}

/** The pprof file of Komorium's samples (`p`, when the profile has them) and of the call graphs of its other sections. */
export function renderPprof(p: Profile | null, graphs: readonly PprofGraph[], name: string, opts: NameOptions = {}): Uint8Array {
  if (p === null && graphs.length === 0) throw new Error('renderPprof: nothing to export');
  const t = new Tables(p?.name ?? name, opts);
  const sampled = p !== null && p.unit === 'samples';
  const komorium = p === null ? [] : sampled ? ['samples', 'bytecodes'] : ['bytecodes'];
  const columns = [...komorium, ...graphColumns(graphs, komorium)];
  const samples = [...(p === null ? [] : stackSamples(t, p, columns.length)), ...edgeSamples(t, graphs, komorium.length, columns.length)];
  const comment = [
    ...(p === null ? [] : [`komorium profile ${p.name}: agent ${p.agent}, ${sampled ? `granularity ${p.granularity}${p.random > 0 ? ` + random [0, ${p.random})` : ''}` : 'every bytecode counted'}`]),
    ...graphs.map((g, i) => `${columns[komorium.length + i]}: ${g.note}`),
  ];
  // The period is the bytecode clock's; a graph has none (cbs's windows are not a fixed count of calls).
  const period = p === null ? {} : { periodType: t.type('bytecodes'), period: sampled ? p.granularity : 1 };
  const profile = new PprofProfile({
    sampleType: columns.map((c) => t.type(c)),
    sample: samples,
    mapping: [t.mapping],
    location: [...t.locations.values()],
    function: [...t.functions.values()],
    stringTable: t.strings,
    ...period,
    comment: comment.map((c) => t.strings.dedup(c)),
    defaultSampleType: t.strings.dedup(p === null ? columns[0]! : 'bytecodes'),
  });
  return gzipSync(profile.encode());
}
