/**
 * The cbs section: how it sampled (trigger, period asked and achieved, stride, samples per window,
 * seed, how many triggers, windows and samples), then `edge<TAB>site<TAB>callee<TAB>count`
 * records as call-edges writes them, the count being samples (docs/profile-format.md).
 */
import { KomoriumError } from '../../errors.js';
import type { SectionReader } from '../../profile/document.js';
import { formatInt } from '../../report/names.js';
import { edgeAccuracy, edgeTables, stackTraceSite } from '../call-graph.js';
import { edgeLines, mergeEdges, readEdges, type CallEdge } from '../edge-records.js';
import type { SectionCodec } from '../kind.js';

export interface CbsHeader {
  /** timer, checks or bytecodes. */
  trigger: string;
  /** call (checks before each call), or an entry placement measured against it (index.ts). */
  placement: string;
  /** Timer: nanoseconds between ticks; the counting triggers: calls between windows. */
  period: number;
  /** Timer: the mean period achieved (0 before the second tick); otherwise the period. */
  achieved: number;
  stride: number;
  /** Samples per trigger (the paper's SAMPLES_PER_TIMER_INTERRUPT). */
  window: number;
  /** Timer: none (the window opens right after the tick) or calls (its start drawn over the period's calls). Absent before it existed: none. */
  spread: string;
  seed: bigint;
  ticks: number;
  windows: number;
  samples: number;
  /** Samples an entry placement could not attribute to an instrumented call site. */
  dropped: number;
}

export interface Cbs {
  header: CbsHeader;
  edges: CallEdge[];
}

const HEADER = ['trigger', 'placement', 'period', 'achieved', 'stride', 'window', 'spread', 'seed', 'ticks', 'windows', 'samples', 'dropped'] as const;

function readHeader(r: SectionReader): CbsHeader {
  const int = (name: string, min = 0) => r.int(r.scalar(name), 1, name, min);
  const seed = r.scalar('seed');
  if (!/^(0|-?[1-9][0-9]*)$/.test(seed.fields[1]!)) r.fail(`seed "${seed.fields[1]}" is not a decimal integer`, seed.line);
  const trigger = choice(r, 'trigger', ['timer', 'checks', 'bytecodes']);
  return {
    trigger,
    placement: r.str(r.scalar('placement'), 1, 'placement'),
    period: int('period', 1),
    achieved: int('achieved'),
    stride: int('stride', 1),
    window: int('window', 1),
    // Absent in profiles written before the record existed: their windows started right after the tick.
    spread: r.section.records.some((x) => x.fields[0] === 'spread') ? choice(r, 'spread', ['none', 'calls']) : 'none',
    seed: BigInt(seed.fields[1]!),
    ticks: int('ticks'),
    windows: int('windows'),
    samples: int('samples'),
    dropped: int('dropped'),
  };
}

/** The one record `name`, whose value must be one of `choices` (`trigger "x" is not timer, checks or bytecodes`). */
function choice(r: SectionReader, name: string, choices: readonly string[]): string {
  const record = r.scalar(name);
  const value = r.str(record, 1, name);
  const listed = `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  if (!choices.includes(value)) r.fail(`${name} "${value}" is not ${listed}`, record.line);
  return value;
}

function headerLines(h: CbsHeader): string[] {
  return HEADER.map((k) => `${k}\t${h[k]}`);
}

function duration(ns: number): string {
  if (ns >= 1e9) return `${+(ns / 1e9).toFixed(3)} s`;
  if (ns >= 1e6) return `${+(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${+(ns / 1e3).toFixed(3)} us`;
  return `${ns} ns`;
}

/** `timer every 10 ms (achieved 10.4 ms), stride 7, 16 samples per window`. */
export function describeCbs(h: CbsHeader): string {
  const trigger =
    h.trigger === 'timer'
      ? `timer every ${duration(h.period)} (achieved ${h.achieved === 0 ? 'unknown: under two ticks' : duration(h.achieved)})`
      : `${h.trigger} trigger every ${formatInt(h.period)} calls${h.trigger === 'bytecodes' ? " (counted as calls: Komorium's bytecode clock needs Komorium's instrumentation)" : ''}`;
  const placement = h.placement === 'call' ? '' : `, ${h.placement} placement`;
  const spread = h.spread === 'calls' ? ', start spread over the calls' : '';
  return `${trigger}, stride ${h.stride}, ${h.window} samples per window${spread}${placement}`;
}

function sameSampling(a: CbsHeader, b: CbsHeader): boolean {
  return a.trigger === b.trigger && a.placement === b.placement && a.period === b.period && a.stride === b.stride && a.window === b.window && a.spread === b.spread;
}

function headline(s: Cbs): string {
  const h = s.header;
  const dropped = h.dropped > 0 ? `; ${formatInt(h.dropped)} samples had no instrumented caller` : '';
  return `cbs: ${formatInt(h.samples)} samples on ${formatInt(s.edges.length)} edges in ${formatInt(h.windows)} windows (${describeCbs(h)}${dropped})`;
}

export const cbsSection: SectionCodec<Cbs> = {
  read(r) {
    r.only([...HEADER, 'edge']);
    return { header: readHeader(r), edges: readEdges(r, 'edge') };
  },

  methods: (s) => s.edges.map((e) => e.callee),
  sites: (s) => s.edges.map((e) => e.site),
  lines: (s, ids) => [...headerLines(s.header), ...edgeLines('edge', s.edges, ids)],

  merge(sections, names) {
    const first = sections[0]!.header;
    sections.forEach((s, i) => {
      if (!sameSampling(s.header, first)) {
        throw new KomoriumError(
          `merge: the cbs section of ${names[i]} was sampled with ${describeCbs(s.header)} but that of ${names[0]} with ${describeCbs(first)}: their counts are not commensurable`,
        );
      }
    });
    const sum = (k: 'ticks' | 'windows' | 'samples' | 'dropped') => sections.reduce((n, s) => n + s.header[k], 0);
    const ticks = sum('ticks');
    // The mean achieved period over all runs, weighted by their ticks.
    const achieved = ticks === 0 ? first.achieved : Math.round(sections.reduce((n, s) => n + s.header.achieved * s.header.ticks, 0) / ticks);
    return {
      header: { ...first, achieved, ticks, windows: sum('windows'), samples: sum('samples'), dropped: sum('dropped') },
      edges: mergeEdges(sections.map((s) => s.edges)),
    };
  },

  report: (s, opts) => [headline(s), ...edgeTables(s.edges, opts, stackTraceSite)].join('\n') + '\n',

  // `exact` is a call-edges section (ProfileKind.measuredAgainst) or another cbs section: both are edge lists.
  accuracy: (exact, sampled, opts) => edgeAccuracy(exact.edges, sampled.edges, opts),
  // A sample is a call, sampled: even a run that sampled every call (period 1, stride 1) is named as sampled, as the kind is.
  callGraph: (s) => ({ edges: s.edges, counts: 'sampled_calls', note: headline(s) }),
};
