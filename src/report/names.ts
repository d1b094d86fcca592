/**
 * Human-readable method names and numbers for every report. Formatting is done by hand rather than
 * with Intl so that reports are byte-identical on every machine and locale (users diff them).
 */
import { TRUNCATED_CLASS, UNINSTRUMENTED_CLASS, type MethodEntry } from '../profile/model.js';
import { javaName } from '../classfile/names.js';
import { THREAD_CLASS } from '../profile/threads.js';

export interface NameOptions {
  /** `com/foo/Bar.baz(ILjava/lang/String;)V` instead of `com.foo.Bar.baz(int, String)`. */
  rawDescriptors?: boolean;
  /** Parameter types with their package (`java.util.List`); the owner always has it. */
  qualifiedParams?: boolean;
}

const PRIMITIVES: Record<string, string> = {
  B: 'byte',
  C: 'char',
  D: 'double',
  F: 'float',
  I: 'int',
  J: 'long',
  S: 'short',
  Z: 'boolean',
  V: 'void',
};

/**
 * The parameter types of a method descriptor as Java source would spell them, or null when the
 * descriptor is malformed (names come from arbitrary files: show them raw rather than guess).
 */
export function javaParams(descriptor: string, qualified = false): string[] | null {
  if (!descriptor.startsWith('(')) return null;
  const params: string[] = [];
  let i = 1;
  while (i < descriptor.length && descriptor[i] !== ')') {
    let dims = 0;
    while (descriptor[i] === '[') {
      dims++;
      i++;
    }
    const c = descriptor[i];
    let base: string;
    if (c === 'L') {
      const end = descriptor.indexOf(';', i);
      if (end < 0) return null;
      const internal = descriptor.slice(i + 1, end);
      if (internal === '') return null;
      base = javaTypeName(internal, qualified);
      i = end + 1;
    } else if (c !== undefined && c !== 'V' && PRIMITIVES[c] !== undefined) {
      base = PRIMITIVES[c]!;
      i++;
    } else return null;
    params.push(base + '[]'.repeat(dims));
  }
  return descriptor[i] === ')' ? params : null;
}

/** `java/lang/String` → `String`; `com/foo/Bar` → `Bar` (or `com.foo.Bar` when qualified). */
export function javaTypeName(internal: string, qualified = false): string {
  if (internal.startsWith('java/lang/') && !internal.slice(10).includes('/')) return internal.slice(10);
  if (qualified) return javaName(internal);
  return internal.slice(internal.lastIndexOf('/') + 1);
}

/** The display name of a method: `com.foo.Bar.baz(int, String)`, or the raw form. null is the root. */
export function methodName(m: MethodEntry | null, opts: NameOptions = {}): string {
  if (m === null) return 'all';
  if (m.className === TRUNCATED_CLASS) return '<truncated stack>';
  if (m.className === THREAD_CLASS) return `thread ${m.name}`;
  if (m.className === UNINSTRUMENTED_CLASS) return UNINSTRUMENTED_CLASS;
  if (opts.rawDescriptors) return `${m.className}.${m.name}${m.descriptor}`;
  const params = javaParams(m.descriptor, opts.qualifiedParams);
  const owner = javaName(m.className);
  return params === null ? `${owner}.${m.name}${m.descriptor}` : `${owner}.${m.name}(${params.join(', ')})`;
}

/** `Bar.java:42`, `Bar.java`, or '' when nothing is known. */
export function sourceRef(m: MethodEntry | null): string {
  if (m === null || m.source === '') return '';
  return m.line >= 0 ? `${m.source}:${m.line}` : m.source;
}

/** `com/foo/Bar.java` for a method of `com/foo/Bar$Inner` compiled from `Bar.java`; '' when the source is unknown. */
export function sourcePath(m: MethodEntry): string {
  if (m.source === '') return '';
  const slash = m.className.lastIndexOf('/');
  return (slash < 0 ? '' : m.className.slice(0, slash + 1)) + m.source;
}

/** 1234567.8 → `1,234,568`. */
export function formatInt(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '∞' : v < 0 ? '-∞' : '?';
  const r = Math.round(v);
  const s = Math.abs(r).toString();
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ',';
    out += s[i];
  }
  return (r < 0 ? '-' : '') + out;
}

/** Signed integer with thousands separators: `+1,234`, `-56`, `0`. */
export function formatSignedInt(v: number): string {
  const s = formatInt(v);
  return Math.round(v) > 0 || v === Infinity ? '+' + s : s;
}

/** A fraction as a percentage, `12.3%` (`decimals` digits). */
export function formatPct(fraction: number, decimals = 1): string {
  if (!Number.isFinite(fraction)) return fraction > 0 ? '+∞%' : fraction < 0 ? '-∞%' : '?%';
  const s = (fraction * 100).toFixed(decimals);
  // -0.0% reads like a shrink that is not there.
  return (/^-0\.?0*$/.test(s) ? s.slice(1) : s) + '%';
}

export function formatSignedPct(fraction: number, decimals = 1): string {
  const s = formatPct(fraction, decimals);
  return s.startsWith('-') || s.startsWith('+') || /^0\.?0*%$/.test(s) ? s : '+' + s;
}

export function padLeft(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

export function padRight(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Lays out rows as columns; `align[i]` 'r' right-aligns column i. The last column is never padded. */
export function table(rows: string[][], align: ('l' | 'r')[], indent = '  '): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map(
    (r) =>
      indent +
      r
        .map((c, i) => (i === r.length - 1 ? c : align[i] === 'r' ? padLeft(c, widths[i]!) : padRight(c, widths[i]!)))
        .join('  ')
        .trimEnd(),
  );
}

/**
 * A method-name filter for --method: `*` matches any run of characters, and the pattern is tried
 * against `com.foo.Bar.baz`, the Java-like name with parameters and the raw `com/foo/Bar.baz(I)V`,
 * so users can write whichever they copied from a report.
 */
export function methodMatcher(pattern: string): (m: MethodEntry) => boolean {
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
  return (m) =>
    re.test(`${javaName(m.className)}.${m.name}`) ||
    re.test(methodName(m)) ||
    re.test(methodName(m, { qualifiedParams: true })) ||
    re.test(methodName(m, { rawDescriptors: true }));
}

/** A site as a stack trace shows a position: `com.foo.Bar.baz(int)(Bar.java:42, bci 17)`. */
export function siteName(site: { method: MethodEntry; line: number; bci: number }, opts: NameOptions = {}): string {
  const where = site.method.source !== '' ? `${site.method.source}:${site.line >= 0 ? site.line : '?'}` : site.line >= 0 ? `line ${site.line}` : '';
  return `${methodName(site.method, opts)} (${where ? `${where}, ` : ''}bci ${site.bci})`;
}
