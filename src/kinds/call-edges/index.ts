/**
 * call-edges (seed 000 §4.2): how often each call site called each method, the callee being the
 * method that actually ran after virtual dispatch. A call site is the caller method and the
 * bytecode index of its invoke instruction; the report shows its source line.
 */
import type { ProfileKind } from '../kind.js';
import { callEdgesSection } from './section.js';

export const kind: ProfileKind = {
  name: 'call-edges',
  title: 'calls per call site and the method that actually ran (seed 000)',
  runtimeClass: 'komorium/runtime/CallEdges',
  events: [{ event: 'call', handler: 'call', receiver: true }],
  section: callEdgesSection,
};
