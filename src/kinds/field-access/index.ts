/**
 * field-access (seed 000 §4.2): how often each field is read and written, counted at every
 * getfield, putfield, getstatic and putstatic (the paper counted the instance field instructions;
 * static fields are here too, as a user tuning data layout wants them).
 */
import type { ProfileKind } from '../kind.js';
import { fieldAccessSection } from './section.js';

export const kind: ProfileKind = {
  name: 'field-access',
  title: 'reads and writes per field, with their sites (seed 000)',
  runtimeClass: 'komorium/runtime/FieldAccess',
  events: [{ event: 'field', handler: 'access' }],
  section: fieldAccessSection,
};
