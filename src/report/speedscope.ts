/**
 * speedscope export (`report --format speedscope`): speedscope's own file format
 * (https://www.speedscope.app/file-format-schema.json), "sampled" profiles over shared frames, one
 * frame per method with its source file and first line. A profile that records thread names gives
 * one speedscope profile per thread group (speedscope's thread selector), others one profile.
 * Weights are the profile's counter (samples, or bytecodes for the exact agent), or estimated
 * bytecodes with `--value bytecodes`.
 */
import type { MethodEntry, Profile } from '../profile/model.js';
import { threadGroups, UNKNOWN_THREAD } from '../profile/threads.js';
import { threadNames } from '../profile/detail.js';
import { methodName, sourcePath, type NameOptions } from './names.js';
import { weightedStacks, type WeightedStack } from './stacks.js';

export interface SpeedscopeOptions extends NameOptions {
  value?: 'samples' | 'bytecodes';
}

const SCHEMA = 'https://www.speedscope.app/file-format-schema.json';

export function renderSpeedscope(p: Profile, opts: SpeedscopeOptions = {}): string {
  const frames: { name: string; file?: string; line?: number }[] = [];
  const frameOf = new Map<MethodEntry, number>();
  const frame = (m: MethodEntry): number => {
    let i = frameOf.get(m);
    if (i === undefined) {
      i = frames.length;
      const file = sourcePath(m);
      frames.push({ name: methodName(m, opts), ...(file !== '' ? { file } : {}), ...(m.line >= 0 ? { line: m.line } : {}) });
      frameOf.set(m, i);
    }
    return i;
  };
  const perCounter = p.totalCounter === 0 ? 0 : p.totalBytecodes / p.totalCounter;
  const weight = (s: WeightedStack) => (opts.value === 'bytecodes' && p.unit === 'samples' ? Math.round(s.counter * perCounter) : s.counter);

  const stacks = weightedStacks(p);
  const names = threadNames(p.nodes);
  const groups = threadGroups(names);
  const groupOf = (s: WeightedStack) => (names.length === 0 ? 'all threads' : s.thread === null ? UNKNOWN_THREAD : groups.get(s.thread)!);
  const byGroup = new Map<string, WeightedStack[]>();
  for (const s of stacks) {
    const g = groupOf(s);
    const list = byGroup.get(g);
    if (list) list.push(s);
    else byGroup.set(g, [s]);
  }
  const what = opts.value === 'bytecodes' || p.unit === 'bytecodes' ? 'bytecodes' : 'samples';
  const profiles = [...byGroup]
    .map(([group, list]) => {
      // One sample per calling context and line; the frames of a context differ from its neighbours' only in depth.
      const merged = new Map<string, { stack: number[]; weight: number }>();
      for (const s of list) {
        const stack = s.frames.map((f) => frame(f.method));
        const key = stack.join(',');
        const m = merged.get(key);
        if (m) m.weight += weight(s);
        else merged.set(key, { stack, weight: weight(s) });
      }
      const samples = [...merged.values()].filter((m) => m.weight > 0);
      return {
        type: 'sampled' as const,
        name: `${group} (${what})`,
        unit: 'none' as const,
        startValue: 0,
        endValue: samples.reduce((t, m) => t + m.weight, 0),
        samples: samples.map((m) => m.stack),
        weights: samples.map((m) => m.weight),
      };
    })
    // The busiest thread first: speedscope opens the first profile.
    .sort((a, b) => b.endValue - a.endValue || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const file = {
    $schema: SCHEMA,
    name: p.name,
    exporter: 'komorium-ts',
    activeProfileIndex: 0,
    shared: { frames },
    profiles,
  };
  return JSON.stringify(file) + '\n';
}
