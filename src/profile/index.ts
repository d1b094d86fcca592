export * from './model.js';
export { escapeField, unescapeField } from './escape.js';
export { readProfile, parseProfile, PROFILE_VERSION } from './read.js';
export { writeProfile } from './write.js';
export * from './analysis.js';
