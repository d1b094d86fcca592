/**
 * Source lines in reports: the line a frame of a call path stands at (the block that ran, for the
 * innermost frame; the call, for the others, as a Java stack trace shows them), the hottest lines,
 * and source files annotated with their counts, as callgrind_annotate shows C.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { share, type ContextNode, type MethodEntry, type Profile } from '../profile/model.js';
import { formatInt, formatPct, methodName, sourcePath, table, type NameOptions } from './names.js';

/** The key with the largest counter (the smallest key on a tie), or undefined. */
function heaviest(entries: readonly { line: number; counter: number }[] | undefined): number | undefined {
  let best: { line: number; counter: number } | undefined;
  for (const e of entries ?? []) if (e.line >= 0 && (best === undefined || e.counter > best.counter || (e.counter === best.counter && e.line < best.line))) best = e;
  return best?.line;
}

/** The line most of a context's own samples ran on. */
export function selfLine(n: ContextNode): number | undefined {
  return heaviest(n.self);
}

/** The line of the parent's method that called this context most (unless instrument --no-call-lines). */
export function callLine(n: ContextNode): number | undefined {
  return heaviest(n.calls);
}

/** `File.java:12`, `File.java` when the line is unknown, '' when the source is unknown. */
export function positionRef(m: MethodEntry, line: number | undefined): string {
  if (m.source === '') return line === undefined ? '' : `line ${line}`;
  return line === undefined ? m.source : `${m.source}:${line}`;
}

/** The frames of a context's call path, innermost first, each at the line a stack trace would show. */
export function stackTrace(n: ContextNode): { method: MethodEntry; line: number | undefined }[] {
  const out: { method: MethodEntry; line: number | undefined }[] = [];
  let inner: ContextNode | null = null;
  for (let c: ContextNode | null = n; c !== null && c.method !== null; c = c.parent) {
    out.push({ method: c.method, line: inner === null ? selfLine(c) : callLine(inner) });
    inner = c;
  }
  return out;
}

/** For a flame graph's tooltip: the line that called a context, and the lines its own samples ran on (at most 5). */
export function lineSummary(n: ContextNode): string {
  const out: string[] = [];
  const call = callLine(n);
  if (call !== undefined) out.push(`called from line ${call}${(n.calls?.length ?? 0) > 1 ? ` (and ${n.calls!.length - 1} more)` : ''}`);
  const byLine = new Map<number, number>();
  for (const e of n.self ?? []) if (e.line >= 0) byLine.set(e.line, (byLine.get(e.line) ?? 0) + e.counter);
  const sorted = [...byLine].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  if (sorted.length > 0 && n.counter > 0) {
    const shown = sorted.slice(0, 5).map(([l, c]) => `${l} (${formatPct(c / n.counter)})`);
    out.push(`self by line: ${shown.join(', ')}${sorted.length > 5 ? `, ${sorted.length - 5} more` : ''}`);
  }
  return out.join('\n');
}

export interface HotLine {
  method: MethodEntry;
  line: number;
  counter: number;
}

/** Self counters summed by method and line over all contexts, hottest first; lines unknown are left out. */
export function hotLines(p: Profile): HotLine[] {
  const sum = new Map<string, HotLine>();
  for (const n of p.nodes) {
    for (const e of n.self ?? []) {
      if (e.line < 0 || n.method === null) continue;
      const key = `${n.method.key}\u0000${e.line}`;
      const h = sum.get(key);
      if (h) h.counter += e.counter;
      else sum.set(key, { method: n.method, line: e.line, counter: e.counter });
    }
  }
  return [...sum.values()].sort((a, b) => b.counter - a.counter || a.method.id - b.method.id || a.line - b.line);
}

/** Whether any context records the lines its samples ran on. */
export function hasLines(p: Profile): boolean {
  return p.nodes.some((n) => n.self?.some((e) => e.line >= 0));
}

export function renderHotLines(p: Profile, top: number, opts: NameOptions = {}): string[] {
  const lines = hotLines(p);
  if (lines.length === 0) return ['The profile records no source lines (classes without a LineNumberTable, or a profile from an older komorium-ts).'];
  const est = (c: number) => formatInt(share(p, c) * p.totalBytecodes);
  return [
    `Hottest lines by self, top ${Math.min(top, lines.length)} of ${lines.length}:`,
    ...table(
      [['self', 'est. bytecodes', 'line', 'method'], ...lines.slice(0, top).map((h) => [formatPct(share(p, h.counter)), est(h.counter), positionRef(h.method, h.line), methodName(h.method, opts)])],
      ['r', 'r', 'l', 'l'],
    ),
  ];
}

/** The first of `dirs` that holds `path` (or, failing that, its file name). */
function findSource(dirs: readonly string[], path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  for (const d of dirs) for (const candidate of [join(d, path), join(d, name)]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** Directories given to --source-path (repeatable, or one list separated by ':'); UsageError for one that is not a directory. */
export function sourceDirs(values: readonly string[]): string[] {
  const dirs = values.flatMap((v) => v.split(':')).filter((d) => d !== '');
  for (const d of dirs) {
    if (!existsSync(d) || !statSync(d).isDirectory()) throw new UsageError(`--source-path ${d}: not a directory`);
  }
  return dirs;
}

/** Lines shown around each counted line of a long file; files up to LONG lines are shown whole. */
const CONTEXT = 4;
const LONG = 200;

/**
 * Each source file with counted lines, hottest file first, found under `dirs` by its package path:
 * the counts beside the code, `.` on lines that ran nothing; long files only around counted lines.
 */
export function annotateSources(p: Profile, dirs: readonly string[], top: number): string[] {
  const byFile = new Map<string, Map<number, number>>();
  for (const h of hotLines(p)) {
    if (h.method.source === '') continue;
    const path = sourcePath(h.method);
    const counts = byFile.get(path) ?? new Map<number, number>();
    counts.set(h.line, (counts.get(h.line) ?? 0) + h.counter);
    byFile.set(path, counts);
  }
  const files = [...byFile].map(([path, counts]) => ({ path, counts, sum: [...counts.values()].reduce((a, b) => a + b, 0) }));
  files.sort((a, b) => b.sum - a.sum || (a.path < b.path ? -1 : 1));
  const out: string[] = [];
  const missing: string[] = [];
  for (const f of files.slice(0, top)) {
    const found = findSource(dirs, f.path);
    if (found === undefined) {
      missing.push(`${f.path} (${formatPct(share(p, f.sum))})`);
      continue;
    }
    out.push(`-- ${f.path}: ${formatPct(share(p, f.sum))} of the samples (${found})`, ...annotateFile(p, readFileSync(found, 'utf8'), f.counts), '');
  }
  if (missing.length > 0) out.push(`Not found under ${dirs.join(', ')}: ${missing.join(', ')}`);
  return out;
}

function annotateFile(p: Profile, text: string, counts: Map<number, number>): string[] {
  const source = text.split(/\r?\n/);
  if (source[source.length - 1] === '') source.pop();
  const shown = new Set<number>();
  if (source.length <= LONG) for (let l = 1; l <= source.length; l++) shown.add(l);
  else for (const l of counts.keys()) for (let k = l - CONTEXT; k <= l + CONTEXT; k++) if (k >= 1 && k <= source.length) shown.add(k);
  const rows: string[][] = [['self', 'est. bytecodes', 'line', '']];
  let previous = 0;
  for (const l of [...shown].sort((a, b) => a - b)) {
    if (l > previous + 1) rows.push(['', '', '', `-- line ${l} --`]);
    const c = counts.get(l);
    rows.push([c === undefined ? '.' : formatPct(share(p, c), 2), c === undefined ? '.' : formatInt(share(p, c) * p.totalBytecodes), String(l), source[l - 1]!.replace(/\t/g, '    ')]);
    previous = l;
  }
  // Lines counted past the end of the file: the source is not the one the classes were built from.
  const beyond = [...counts.keys()].filter((l) => l > source.length);
  if (beyond.length > 0) rows.push(['', '', '', `(counted lines ${beyond.join(', ')} are past the end of this file: is it the source the classes were built from?)`]);
  return table(rows, ['r', 'r', 'r', 'l']);
}
