/**
 * subpaths (seed 003, OSP): the hot subpaths of 2^n consecutive basic blocks (n = 1..5 by default),
 * across calls and returns as the program ran, sampled by a skip counter at every block entry into
 * a concise sample of bounded memory, each with its estimated count and a Chernoff error bound.
 * OSP samples inside its own runtime logic (`sampling: 'own'`), so it needs a probe at every block:
 * the exhaustive layout. A duplicating layout would show it blocks only in bursts after a check at a method entry
 * or backedge, so subpaths could neither start at any block nor follow a call.
 */
import type { ProfileKind } from '../kind.js';
import { subpathsSection } from './section.js';

export const kind: ProfileKind = {
  name: 'subpaths',
  title: 'hot subpaths of 2^n basic blocks in bounded memory, with error bounds (seed 003, OSP)',
  runtimeClass: 'komorium/runtime/Subpaths',
  events: [{ event: 'block', handler: 'enterBlock' }],
  sampling: 'own',
  section: subpathsSection,
};
