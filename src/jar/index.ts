/** The jar layer: reading inputs, writing outputs, signatures and output-path safety. */
export { isClassName, isDirectoryEntry } from './entry.js';
export type { Entry, Input } from './entry.js';
export { readInput, readJar, readFolder } from './read.js';
export { writeJar, writeDir, writeOutputs, jarBytes, atomicWrite, FIXED_DATE } from './write.js';
export type { Output } from './write.js';
export { stripSignature, stripManifestDigests, isSigned, isSignatureFile, isManifest } from './signature.js';
export type { StripResult } from './signature.js';
export { assertSafeOutput, JAR_NAME } from './safety.js';
export { writeError, readError } from './fs-errors.js';
export { mainAttributes, manifestText, manifestClassPath, classPathFile, withClassPath } from './manifest.js';
export { isNestedLibrary, isWebArchive, runtimeFolder, isProgramClass } from './layout.js';
