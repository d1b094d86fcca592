/**
 * The text report of a subpaths section: the hottest subpaths, each as the methods and source lines
 * it runs through, with its estimated count, the Chernoff bound of that estimate and its share of
 * the blocks the program ran; with `detail`, every block, and its bytecode where the report was
 * given the classes.
 */
import type { SiteEntry } from '../../profile/document.js';
import { formatInt, formatPct, methodName, table } from '../../report/names.js';
import type { ReportOptions } from '../kind.js';
import { chernoffBound } from './estimate.js';
import { byEstimate, estimateOf, type Subpath, type SubpathsSection } from './model.js';

/** Consecutive blocks of one method: `Main.loop(int) Main.java:12–17`. */
export function segments(blocks: readonly SiteEntry[], opts: ReportOptions): string[] {
  const out: { method: SiteEntry['method']; lines: number[] }[] = [];
  for (const b of blocks) {
    // A block's own lines where the classes were given, else the line it starts on.
    const lines = opts.blockCode?.(b)?.lines ?? [b.line];
    const last = out[out.length - 1];
    if (last && last.method === b.method) last.lines.push(...lines);
    else out.push({ method: b.method, lines: [...lines] });
  }
  return out.map(({ method, lines }) => {
    const known = lines.filter((l) => l >= 0);
    const lo = Math.min(...known);
    const hi = Math.max(...known);
    const where = known.length === 0 ? '' : lo === hi ? `${lo}` : `${lo}–${hi}`;
    const src = method.source !== '' ? method.source : 'line';
    return `${methodName(method, opts)}${where ? ` ${src}:${where}` : ''}`;
  });
}

function settings(s: SubpathsSection): string {
  const who = `${formatInt(s.blocks)} blocks in ${formatInt(s.threads)} thread${s.threads === 1 ? '' : 's'}`;
  if (s.mode === 'exact') return `exact (every subpath of 2 to ${s.maxLength} blocks counted), ${who}`;
  if (s.mode === 'skip') return `skip only (no subpath sampled: the cost of the skip logic), ${who}`;
  const mem = s.memory === undefined ? '' : `; hot list ${formatInt(s.peakEntries ?? 0)} of ${formatInt(s.memory)} entries at most (${formatInt((s.memoryBytes ?? 0) / 1024)} KiB), ${formatInt(s.resamples ?? 0)} resamples`;
  return `sampled, 2 to ${s.maxLength} blocks, ${who}; f = ${formatInt(s.rate)} at the end${mem}`;
}

function exactLines(s: SubpathsSection): string[] {
  const out: string[] = [];
  for (const l of s.lengths ?? []) {
    const distinct = l.distinct < 0 ? '?' : formatInt(l.distinct);
    out.push(`  length ${l.length}: ${formatInt(l.total)} subpaths, ${distinct} distinct${l.overflow > 0 ? `, ${formatInt(l.overflow)} past exactLimit ${formatInt(s.exactLimit ?? 0)} (not counted by subpath)` : ''}`);
  }
  if (s.ids) {
    const ordered = s.ids.ordered < 0 ? 'more than exactLimit' : formatInt(s.ids.ordered);
    out.push(
      `  distinct subpaths: ${ordered} in execution order, ${formatInt(s.ids.exact)} up to rotation (the identity used), ` +
        `${formatInt(s.ids.hash64)} 64-bit identifiers (${formatInt(s.ids.exact - s.ids.hash64)} collisions), ${formatInt(s.ids.xor)} XOR identifiers (the thesis' encoding)`,
    );
  }
  return out;
}

function row(s: SubpathsSection, p: Subpath, rank: number, opts: ReportOptions, confidence: number): string[] {
  const est = estimateOf(s, p);
  const bound = s.mode === 'exact' ? 'exact' : `±${formatPct(chernoffBound(p.count, confidence), 1)}`;
  return [`${rank}`, formatInt(est), bound, formatPct(s.blocks === 0 ? 0 : est / s.blocks, 2), formatInt(p.count), `${p.blocks.length}`, segments(p.blocks, opts).join(' → ')];
}

function blockLines(p: Subpath, opts: ReportOptions): string[] {
  const out: string[] = [];
  p.blocks.forEach((b, i) => {
    out.push(`      ${i + 1}. ${methodName(b.method, opts)} bci ${b.bci}${b.line >= 0 ? `, line ${b.line}` : ''}`);
    const code = opts.blockCode?.(b);
    if (code) out.push(...code.text.map((l) => `           ${l}`));
  });
  return out;
}

export function reportSubpaths(s: SubpathsSection, opts: ReportOptions): string {
  const confidence = Number(s.confidence);
  const lines = [`subpaths: ${settings(s)}`];
  if (s.mode === 'exact') lines.push(...exactLines(s));
  if (s.mode === 'skip') return lines.join('\n') + '\n';
  const match = opts.method;
  const hot = byEstimate(s).filter((p) => !match || p.blocks.some((b) => match(b.method)));
  const shown = hot.slice(0, opts.top);
  const what = s.mode === 'exact' ? 'count' : `estimated count = sampled × f / P(length), ± Chernoff bound at ${s.confidence} (two-sided)`;
  lines.push('', `Hottest subpaths${match ? ' through the matching methods' : ''} (${formatInt(hot.length)}; ${what}; share of the blocks run):`);
  const header = ['#', s.mode === 'exact' ? 'count' : 'estimate', 'bound', 'share', s.mode === 'exact' ? 'counted' : 'sampled', 'blocks', 'runs through'];
  const rows = shown.map((p, i) => row(s, p, i + 1, opts, confidence));
  if (!opts.detail) {
    lines.push(...table([header, ...rows], ['r', 'r', 'r', 'r', 'r', 'r', 'l']));
    return lines.join('\n') + '\n';
  }
  shown.forEach((p, i) => {
    lines.push(...table([header, rows[i]!], ['r', 'r', 'r', 'r', 'r', 'r', 'l']).slice(i === 0 ? 0 : 1), ...blockLines(p, opts));
  });
  return lines.join('\n') + '\n';
}
