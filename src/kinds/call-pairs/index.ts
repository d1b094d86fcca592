/**
 * call-pairs (seed 001 §4.3, Figure 5): calls recorded during bursts with their caller and the
 * method that actually ran after virtual dispatch. Counted per call site and callee, as the paper
 * pairs call sites with targets; hot pairs are (caller method, callee), and the report gives each
 * pair's hottest call lines.
 */
import type { ProfileKind } from '../kind.js';
import { callPairsSection } from './section.js';

export const kind: ProfileKind = {
  name: 'call-pairs',
  title: 'caller and the method that ran, per call, sampled in bursts (seed 001)',
  runtimeClass: 'komorium/runtime/CallPairs',
  events: [{ event: 'call', handler: 'call', receiver: true }],
  section: callPairsSection,
};
