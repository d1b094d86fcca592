/**
 * data-streams (seed 001 §4.3, Figure 5): the data references a thread makes during bursts
 * (getfield, putfield, getstatic, putstatic, array loads and stores), each its site, the object
 * touched as a number stable for the run, and the array index, analysed at run time into hot data
 * streams (Chilimbi, PLDI 2001; Chilimbi and Hirzel, PLDI 2002): repeated subsequences found with
 * Sequitur whose heat, length times frequency, covers 90% of the references. The report shows
 * each stream as its sequence of Class.field and array accesses with their sites.
 */
import type { ProfileKind } from '../kind.js';
import { dataStreamsSection } from './section.js';

export const kind: ProfileKind = {
  name: 'data-streams',
  title: 'hot data streams: repeated sequences of field and array references, sampled in bursts (seed 001)',
  runtimeClass: 'komorium/runtime/DataStreams',
  events: [
    { event: 'field', handler: 'field', operands: true },
    { event: 'array', handler: 'array', operands: true },
  ],
  section: dataStreamsSection,
};
