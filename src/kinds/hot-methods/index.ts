/**
 * hot-methods (seed 001 §4.3, Figure 5): calls and backedges, charged to the method running: an
 * event at each method entry (a call of the method) and on each backedge (an iteration of one of
 * its loops), recorded during bursts. The paper's hot method profile; the report gives the
 * method's source line and its hottest loops.
 */
import type { ProfileKind } from '../kind.js';
import { hotMethodsSection } from './section.js';

export const kind: ProfileKind = {
  name: 'hot-methods',
  title: 'calls and loop iterations per method, sampled in bursts (seed 001)',
  runtimeClass: 'komorium/runtime/HotMethods',
  events: [
    { event: 'entry', handler: 'event' },
    { event: 'backedge', handler: 'event' },
  ],
  section: hotMethodsSection,
};
