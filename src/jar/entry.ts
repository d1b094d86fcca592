/** One file or folder of a jar or class folder, in the order it was read. */
export interface Entry {
  /** Path inside the jar, '/'-separated; folders end with '/'. */
  name: string;
  /** Contents (empty for folders). */
  data: Uint8Array;
  /** A class to rewrite: `*.class` (also under META-INF/versions/N/), except module-info.class. */
  isClass: boolean;
  /** Set on every entry readInput gives; entries made elsewhere may leave it out (a name ending in '/' is a folder). */
  isDirectory?: boolean;
  /** The time a jar recorded for the entry (readInput sets it for jar entries only); written back as it was read. */
  date?: Date;
  unixPermissions?: number;
  comment?: string;
  /** Written without compression, as it was read (a jar nested in a Spring Boot jar must be). */
  stored?: boolean;
}

export interface Input {
  kind: 'jar' | 'dir';
  entries: Entry[];
}

/** module-info.class describes a module and has no code; it is copied as it is. */
export function isClassName(name: string): boolean {
  if (!name.endsWith('.class') || name.endsWith('/')) return false;
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base !== 'module-info.class' && base !== '.class';
}

/** A name JavaScript objects enumerate before all others (an array index such as "42"). */
export function isArrayIndex(name: string): boolean {
  return /^(0|[1-9]\d{0,9})$/.test(name) && Number(name) < 0xffffffff;
}

export function isDirectoryEntry(e: Entry): boolean {
  return e.isDirectory ?? e.name.endsWith('/');
}
