/**
 * cbs (seed 004, Arnold and Grove): the dynamic call graph by counter-based sampling. A trigger
 * (a timer, or a count of calls) arms a flag; the next calls are counted and every STRIDE-th is a
 * sample, SAMPLES per trigger. The check is Figure 3, tested inline before every call instrumented
 * code makes (the runtime class Cbs.java says why the call and not the callee's prologue); a sample
 * records the call site and the method that ran, the edge call-edges counts exhaustively, which
 * is what a cbs profile is measured against.
 *
 * KOMORIUM_CBS_PLACEMENT, read when `instrument` starts, builds the placements that were measured
 * against this one (scripts/bench/cbs.mjs): `entry-stack` (Figure 3 in each instrumented method's
 * prologue, the caller found by a stack walk on each sample), `entry-site` (the same, the caller
 * from a site number every invoke stores in a static) and `entry-thread` (in a per-thread slot).
 * They only see calls into instrumented methods. Not for users: the default, `call`, is the kind.
 */
import { UsageError } from '../../errors.js';
import type { EventRequest } from '../../framework/events.js';
import type { ProfileKind } from '../kind.js';
import { cbsSection } from './section.js';
import { experiment } from '../../experiments.js';

const GUARD = 'armed';

export const PLACEMENTS: Record<string, readonly EventRequest[]> = {
  call: [{ event: 'call', handler: 'call', receiver: true, guard: GUARD }],
  'entry-stack': [
    { event: 'entry', handler: 'entry', guard: GUARD },
    { event: 'call', handler: '', siteOnly: true },
  ],
  'entry-site': [
    { event: 'entry', handler: 'entryAfterSite', guard: GUARD },
    { event: 'call', handler: 'site' },
  ],
  'entry-thread': [
    { event: 'entry', handler: 'entryAfterThreadSite', guard: GUARD },
    { event: 'call', handler: 'threadSite' },
  ],
};

function placementEvents(): readonly EventRequest[] {
  const asked = experiment('KOMORIUM_CBS_PLACEMENT');
  if (asked === undefined || asked === '') return PLACEMENTS.call!;
  const events = PLACEMENTS[asked];
  if (!events) throw new UsageError(`KOMORIUM_CBS_PLACEMENT=${asked}: expected one of ${Object.keys(PLACEMENTS).join(', ')}`);
  return events;
}

export const kind: ProfileKind = {
  name: 'cbs',
  title: 'the call graph by counter-based sampling: SAMPLES calls STRIDE apart after each trigger (seed 004)',
  runtimeClass: 'komorium/runtime/Cbs',
  events: placementEvents(),
  sampling: 'own',
  measuredAgainst: ['call-edges'],
  section: cbsSection,
};
