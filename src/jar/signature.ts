/**
 * Jar signatures (JAR File Specification, "Signed JAR File"). Once a class changes, its digest in
 * the manifest and the .SF file no longer match and the JVM refuses the jar ("SHA-256 digest
 * error"). Removing the signature block files and the manifest's per-entry digests makes it an
 * unsigned jar that runs. The manifest's main section (Main-Class, Class-Path, …) is kept byte for byte.
 */
import { isDirectoryEntry } from './entry.js';
import type { Entry } from './entry.js';

const SIGNATURE_FILE = /^META-INF\/(?:[^/]+\.(?:SF|RSA|DSA|EC)|SIG-[^/]*)$/i;
const MANIFEST = /^META-INF\/MANIFEST\.MF$/i;
/** SHA-256-Digest, SHA1-Digest, MD5-Digest, … */
const DIGEST_ATTRIBUTE = /^[^:]*-Digest$/i;

export function isSignatureFile(name: string): boolean {
  return SIGNATURE_FILE.test(name);
}

export function isManifest(name: string): boolean {
  return MANIFEST.test(name);
}

export function isSigned(entries: readonly Entry[]): boolean {
  return entries.some((e) => !isDirectoryEntry(e) && isSignatureFile(e.name));
}

export interface StripResult {
  entries: Entry[];
  /** Names of the signature files removed. */
  removed: string[];
  /** Per-entry digest attributes removed from the manifest. */
  digestsRemoved: number;
}

/** Physical lines with their terminators (CRLF, LF or CR), so they can be joined back unchanged. */
function lines(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/g) ?? [];
}

function isBlank(line: string): boolean {
  return /^(?:\r\n|\n|\r)?$/.test(line);
}

/**
 * Removes the `*-Digest` attributes from the manifest's per-entry sections and drops the sections
 * left with only a Name. Returns null when there is nothing to remove.
 */
export function stripManifestDigests(manifest: Uint8Array): { data: Uint8Array; removed: number } | null {
  // latin1 maps each byte to one char and back, so untouched parts round-trip exactly.
  const text = Buffer.from(manifest.buffer, manifest.byteOffset, manifest.byteLength).toString('latin1');
  const all = lines(text);
  const mainEnd = all.findIndex(isBlank);
  if (mainEnd < 0) return null;
  let out = all.slice(0, mainEnd + 1).join('');
  let removed = 0;
  let section: string[][] = []; // logical attributes, each a list of physical lines
  const flush = (terminator: string): void => {
    const kept = section.filter((attr) => {
      const name = attr[0].slice(0, Math.max(0, attr[0].indexOf(':')));
      if (DIGEST_ATTRIBUTE.test(name)) {
        removed++;
        return false;
      }
      return true;
    });
    // A section that only named its entry to give digests has no reason left to exist.
    const drop = kept.length < section.length && kept.every((attr) => /^Name:/i.test(attr[0]));
    if (!drop) out += kept.map((attr) => attr.join('')).join('') + terminator;
    section = [];
  };
  for (let i = mainEnd + 1; i < all.length; i++) {
    const line = all[i];
    if (isBlank(line)) flush(line);
    else if (line.startsWith(' ') && section.length > 0) section[section.length - 1].push(line);
    else section.push([line]);
  }
  if (section.length > 0) flush('');
  if (removed === 0) return null;
  return { data: new Uint8Array(Buffer.from(out, 'latin1')), removed };
}

export function stripSignature(entries: readonly Entry[]): StripResult {
  const removed: string[] = [];
  let digestsRemoved = 0;
  const out: Entry[] = [];
  for (const e of entries) {
    if (!isDirectoryEntry(e) && isSignatureFile(e.name)) {
      removed.push(e.name);
      continue;
    }
    if (!isDirectoryEntry(e) && isManifest(e.name)) {
      const stripped = stripManifestDigests(e.data);
      if (stripped) {
        digestsRemoved += stripped.removed;
        out.push({ ...e, data: stripped.data });
        continue;
      }
    }
    out.push(e);
  }
  return { entries: out, removed, digestsRemoved };
}
