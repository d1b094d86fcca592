/**
 * Jars that hold their libraries as jars. Two layouts have loaders that read nested jars, and both
 * are followed:
 * - Spring Boot's executable jar: the application's classes under BOOT-INF/classes/, its libraries
 *   as BOOT-INF/lib/*.jar, loaded by a class loader whose parent is the one that loaded the jar's
 *   root (where the launcher is). Its loader reads a nested jar in place, so the nested jar must be
 *   stored uncompressed (Entry.stored, kept as read).
 * - A web application archive (Servlet specification, "Web Application Archive File"): classes under
 *   WEB-INF/classes/, libraries as WEB-INF/lib/*.jar (and an executable WAR's WEB-INF/lib-provided/),
 *   loaded by the container's web application loader, which does not see the archive's root.
 * Jars elsewhere in a jar are data to every standard loader and are copied as they are.
 */
import type { Entry } from './entry.js';

const NESTED_JAR = /^(?:BOOT-INF\/lib|WEB-INF\/lib|WEB-INF\/lib-provided)\/[^/]+\.jar$/;

/** Entries that are jars a loader of this layout puts on the class path. */
export function isNestedLibrary(name: string): boolean {
  return NESTED_JAR.test(name);
}

export function isWebArchive(entries: readonly Entry[]): boolean {
  return entries.some((e) => e.name.startsWith('WEB-INF/'));
}

/**
 * Where the runtime's classes go so that every instrumented class can load them: the root, except
 * in a web application, whose loader sees only WEB-INF/classes/ and WEB-INF/lib/.
 */
export function runtimeFolder(entries: readonly Entry[]): string {
  return isWebArchive(entries) ? 'WEB-INF/classes/' : '';
}

/**
 * Whether a class entry of the archive is one of its program's classes. In a web application the
 * classes outside WEB-INF/ are not loaded by the application's loader (an executable WAR's launcher
 * is loaded by the JVM's), so they cannot see the runtime under WEB-INF/classes/ and stay as they are.
 */
export function isProgramClass(entries: readonly Entry[], name: string): boolean {
  return !isWebArchive(entries) || name.startsWith('WEB-INF/classes/');
}
