/**
 * pprof export (`report --format pprof`): the profile.proto that `go tool pprof`, Google Cloud
 * Profiler, Pyroscope and Datadog read, gzipped, encoded by the pprof-format package. Sample types
 * are `samples` (for a sampling profile) and `bytecodes` (estimated, or counted by the exact agent);
 * each location is a method at a source line, each sample a calling context at the line its
 * samples ran on, with the thread's name as a `thread` label.
 */
import { gzipSync } from 'node:zlib';
import { Function as PprofFunction, Label, Line, Location, Mapping, Profile as PprofProfile, Sample, StringTable, ValueType } from 'pprof-format';
import type { MethodEntry, Profile } from '../profile/model.js';
import { methodName, sourcePath, type NameOptions } from './names.js';
import { weightedStacks } from './stacks.js';

export function renderPprof(p: Profile, opts: NameOptions = {}): Uint8Array {
  const strings = new StringTable();
  const functions = new Map<MethodEntry, PprofFunction>();
  const fn = (m: MethodEntry): PprofFunction => {
    let f = functions.get(m);
    if (f === undefined) {
      f = new PprofFunction({
        id: functions.size + 1,
        name: strings.dedup(methodName(m, opts)),
        systemName: strings.dedup(`${m.className}.${m.name}${m.descriptor}`),
        filename: strings.dedup(sourcePath(m)),
        startLine: Math.max(0, m.line),
      });
      functions.set(m, f);
    }
    return f;
  };
  const mapping = new Mapping({ id: 1, filename: strings.dedup(p.name), hasFunctions: true, hasFilenames: true, hasLineNumbers: true });
  const locations = new Map<string, Location>();
  const location = (m: MethodEntry, line: number | undefined): Location => {
    const key = `${m.id}:${line ?? 0}`;
    let l = locations.get(key);
    if (l === undefined) {
      l = new Location({ id: locations.size + 1, mappingId: mapping.id, line: [new Line({ functionId: fn(m).id, line: line ?? 0 })] });
      locations.set(key, l);
    }
    return l;
  };

  const sampled = p.unit === 'samples';
  const types = [
    ...(sampled ? [new ValueType({ type: strings.dedup('samples'), unit: strings.dedup('count') })] : []),
    new ValueType({ type: strings.dedup('bytecodes'), unit: strings.dedup('count') }),
  ];
  const perCounter = p.totalCounter === 0 ? 0 : p.totalBytecodes / p.totalCounter;
  const threadKey = strings.dedup('thread');
  const samples: Sample[] = [];
  for (const s of weightedStacks(p)) {
    const bytecodes = sampled ? Math.round(s.counter * perCounter) : s.counter;
    samples.push(
      new Sample({
        // Leaf first, as profile.proto orders a sample's locations.
        locationId: s.frames.map((f) => location(f.method, f.line).id).reverse(),
        value: sampled ? [s.counter, bytecodes] : [bytecodes],
        label: s.thread === null ? [] : [new Label({ key: threadKey, str: strings.dedup(s.thread) })],
      }),
    );
  }
  const comment = [`komorium profile ${p.name}: agent ${p.agent}, ${sampled ? `granularity ${p.granularity}${p.random > 0 ? ` + random [0, ${p.random})` : ''}` : 'every bytecode counted'}`];
  const profile = new PprofProfile({
    sampleType: types,
    sample: samples,
    mapping: [mapping],
    location: [...locations.values()],
    function: [...functions.values()],
    stringTable: strings,
    periodType: new ValueType({ type: strings.dedup('bytecodes'), unit: strings.dedup('count') }),
    period: sampled ? p.granularity : 1,
    comment: comment.map((c) => strings.dedup(c)),
    defaultSampleType: strings.dedup('bytecodes'),
  });
  return gzipSync(profile.encode());
}
