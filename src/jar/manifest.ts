/**
 * The manifest's main section (JAR File Specification, "Manifest Specification"): the attributes a
 * class path depends on. Lines are at most 72 bytes; a line that starts with a space continues the
 * previous one. Class-Path holds relative URLs, separated by spaces, resolved against the folder of
 * the jar that names them (a jar inside another jar has no folder: its Class-Path means nothing).
 */
import { dirname, resolve } from 'node:path';
import { isManifest } from './signature.js';
import type { Entry } from './entry.js';

/** The main section's attributes, names as written (lookups are case-insensitive, as the JDK's). */
export function mainAttributes(text: string): Map<string, string> {
  const attrs = new Map<string, string>();
  let last: string | null = null;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line === '') break; // the main section ends at the first blank line
    if (line.startsWith(' ') && last !== null) {
      attrs.set(last, attrs.get(last)! + line.slice(1));
      continue;
    }
    const colon = line.indexOf(': ');
    if (colon <= 0) continue;
    last = line.slice(0, colon).toLowerCase();
    attrs.set(last, line.slice(colon + 2));
  }
  return attrs;
}

/** The manifest entry's text, or null when the jar has none. */
export function manifestText(entries: readonly Entry[]): string | null {
  const m = entries.find((e) => isManifest(e.name));
  return m ? Buffer.from(m.data).toString('utf8') : null;
}

/** The file a Class-Path URL of the jar at `jarPath` names, or null for a URL that is not a file. */
export function classPathFile(jarPath: string, url: string): string | null {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== 'file') return null;
  try {
    return resolve(dirname(resolve(jarPath)), decodeURIComponent(url.replace(/^file:(\/\/)?/i, '')));
  } catch {
    return null; // a malformed %-escape
  }
}

/**
 * The files a jar's Class-Path names, as paths resolved against the jar's folder, in order.
 * URLs with a scheme other than `file:` (a class path may name an http URL) are returned in
 * `unsupported` instead.
 */
export function manifestClassPath(jarPath: string, entries: readonly Entry[]): { paths: string[]; unsupported: string[] } {
  const text = manifestText(entries);
  const value = text === null ? undefined : mainAttributes(text).get('class-path');
  const paths: string[] = [];
  const unsupported: string[] = [];
  for (const url of (value ?? '').split(' ').filter((u) => u !== '')) {
    const path = classPathFile(jarPath, url);
    if (path === null) unsupported.push(url);
    else paths.push(path);
  }
  return { paths, unsupported };
}

/**
 * The manifest with its Class-Path URLs mapped through `map`, or the same text when none changes
 * (the rest stays byte for byte). The new attribute is wrapped as the specification asks: lines of
 * at most 72 bytes, continued on lines that start with a space.
 */
export function withClassPath(text: string, map: (url: string) => string): string {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const lines = text.split(/\r\n|\n|\r/);
  const start = lines.findIndex((l) => /^class-path: /i.test(l));
  if (start < 0 || lines.slice(0, start).includes('')) return text;
  let end = start + 1;
  while (end < lines.length && lines[end]!.startsWith(' ')) end++;
  const name = lines[start]!.slice(0, lines[start]!.indexOf(':'));
  const value = lines[start]!.slice(name.length + 2) + lines.slice(start + 1, end).map((l) => l.slice(1)).join('');
  const urls = value.split(' ').filter((u) => u !== '');
  const mapped = urls.map(map);
  if (mapped.every((u, i) => u === urls[i])) return text;
  return [...lines.slice(0, start), ...wrap(`${name}: ${mapped.join(' ')}`), ...lines.slice(end)].join(eol);
}

/** Manifest lines of at most 72 bytes (UTF-8), never splitting a character. */
function wrap(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > 72) {
      out.push(current);
      current = ' ';
      bytes = 1;
    }
    current += ch;
    bytes += size;
  }
  out.push(current);
  return out;
}
