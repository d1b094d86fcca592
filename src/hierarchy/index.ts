export {
  ClassHierarchy,
  MissingClassError,
  type ClassFileLike,
  type ClassHierarchyOptions,
  type MethodResolution,
  type ResolvedMethod,
  type UnresolvedMethod,
} from './hierarchy.js';
export { readClassHeader, type HierarchyClass, type HierarchyMethod } from './class-header.js';
export { findJavaHome, openJdk, type JdkClassSource } from './jdk.js';
export { JImage, JImageUnsupportedError } from './jimage.js';
export { ZipIndex } from '../jar/zip-index.js';
