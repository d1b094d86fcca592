/**
 * The HTML page of a subpaths section (`report p.kprof -o heat.html --source-path src`): the hottest
 * subpaths as a table, and the source of every method they run through with each line coloured by
 * its heat, the estimated occurrences of the listed subpaths that run it. Clicking a subpath marks
 * its lines. One self-contained file, no network, the same bytes for the same profile and sources.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MethodEntry } from '../../profile/model.js';
import type { SiteEntry } from '../../profile/document.js';
import { formatInt, formatPct, methodName } from '../../report/names.js';
import type { ReportOptions } from '../kind.js';
import { chernoffBound } from './estimate.js';
import { byEstimate, estimateOf, type SubpathsSection } from './model.js';
import { segments } from './report.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface LineHeat {
  heat: number;
  /** Ranks of the listed subpaths that run the line. */
  ranks: Set<number>;
}

/** Per source file, per line: the heat and the subpaths that run it. */
function heatOf(s: SubpathsSection, opts: ReportOptions): { shown: ReturnType<typeof byEstimate>; files: Map<string, { method: MethodEntry; lines: Map<number, LineHeat> }> } {
  const shown = byEstimate(s).filter((p) => !opts.method || p.blocks.some((b) => opts.method!(b.method))).slice(0, opts.top);
  const files = new Map<string, { method: MethodEntry; lines: Map<number, LineHeat> }>();
  shown.forEach((p, i) => {
    const est = estimateOf(s, p);
    const seen = new Set<string>();
    for (const b of p.blocks) {
      for (const line of linesOf(b, opts)) {
        const k = `${fileKey(b.method)}\u0000${line}`;
        if (seen.has(k)) continue;
        seen.add(k);
        const f = files.get(fileKey(b.method)) ?? { method: b.method, lines: new Map<number, LineHeat>() };
        files.set(fileKey(b.method), f);
        const h = f.lines.get(line) ?? { heat: 0, ranks: new Set<number>() };
        h.heat += est;
        h.ranks.add(i + 1);
        f.lines.set(line, h);
      }
    }
  });
  return { shown, files };
}

function linesOf(b: SiteEntry, opts: ReportOptions): number[] {
  return (opts.blockCode?.(b)?.lines ?? [b.line]).filter((l) => l >= 0);
}

/** The source file of a method's class: its package folder and SourceFile name. */
function fileKey(m: MethodEntry): string {
  const pkg = m.className.includes('/') ? m.className.slice(0, m.className.lastIndexOf('/') + 1) : '';
  return m.source === '' ? `${m.className}.java` : `${pkg}${m.source}`;
}

function sourceText(rel: string, sourcePath: readonly string[]): string[] | null {
  for (const dir of sourcePath) {
    const p = join(dir, rel);
    if (existsSync(p)) return readFileSync(p, 'utf8').split(/\r?\n/);
  }
  return null;
}

function fileBlock(rel: string, lines: Map<number, LineHeat>, max: number, opts: ReportOptions): string {
  const text = sourceText(rel, opts.sourcePath ?? []);
  const hot = [...lines.keys()].sort((a, b) => a - b);
  const lo = Math.max(1, hot[0]! - 3);
  const hi = text ? Math.min(text.length, hot[hot.length - 1]! + 3) : hot[hot.length - 1]!;
  const rows: string[] = [];
  for (let n = lo; n <= hi; n++) {
    const h = lines.get(n);
    if (!text && !h) continue;
    const alpha = h ? (0.15 + 0.85 * (h.heat / max)).toFixed(3) : '0';
    const ranks = h ? [...h.ranks].sort((a, b) => a - b).join(' ') : '';
    rows.push(
      `<tr data-s="${ranks}" style="background:rgba(255,90,0,${alpha})"><td class="n">${n}</td><td class="h">${h ? formatInt(h.heat) : ''}</td>` +
        `<td><code>${text ? esc(text[n - 1] ?? '') : ''}</code></td></tr>`,
    );
  }
  const note = text ? '' : ' <span class="miss">(source not found in --source-path: lines and heat only)</span>';
  return `<h3>${esc(rel)}${note}</h3>\n<table class="src">${rows.join('\n')}</table>`;
}

const STYLE = `body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{padding:1px 6px;vertical-align:top}
th{text-align:left;border-bottom:1px solid #999}.r{text-align:right}.src td.n{color:#666;text-align:right}.src td.h{color:#333;text-align:right;font-size:11px}
tr.sp{cursor:pointer}tr.sp:hover{background:#eef}tr.sel{background:#cce}.src tr.mark td{outline:2px solid #24f}.miss{color:#a00;font-weight:normal;font-size:12px}code{white-space:pre}`;

const SCRIPT = `document.querySelectorAll('tr.sp').forEach(function(r){r.addEventListener('click',function(){
var k=r.getAttribute('data-rank');var on=!r.classList.contains('sel');
document.querySelectorAll('tr.sp').forEach(function(x){x.classList.remove('sel')});
document.querySelectorAll('.src tr').forEach(function(x){x.classList.toggle('mark',on&&(' '+x.getAttribute('data-s')+' ').indexOf(' '+k+' ')>=0)});
if(on)r.classList.add('sel');});});`;

export function subpathsHtml(s: SubpathsSection, opts: ReportOptions): string {
  const { shown, files } = heatOf(s, opts);
  const confidence = Number(s.confidence);
  const rows = shown.map((p, i) => {
    const est = estimateOf(s, p);
    const bound = s.mode === 'exact' ? 'exact' : `±${formatPct(chernoffBound(p.count, confidence), 1)}`;
    return `<tr class="sp" data-rank="${i + 1}"><td class="r">${i + 1}</td><td class="r">${formatInt(est)}</td><td class="r">${bound}</td>` +
      `<td class="r">${formatPct(s.blocks === 0 ? 0 : est / s.blocks, 2)}</td><td class="r">${p.blocks.length}</td><td>${esc(segments(p.blocks, opts).join(' → '))}</td></tr>`;
  });
  const max = Math.max(1, ...[...files.values()].flatMap((f) => [...f.lines.values()].map((h) => h.heat)));
  const byHeat = [...files.entries()].sort((a, b) => Math.max(...[...b[1].lines.values()].map((h) => h.heat)) - Math.max(...[...a[1].lines.values()].map((h) => h.heat)) || (a[0] < b[0] ? -1 : 1));
  const title = `subpaths: ${formatInt(s.blocks)} blocks, ${s.mode === 'exact' ? 'exact counts' : `f = ${formatInt(s.rate)}`}`;
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head><body>
<h1>Hot subpaths</h1>
<p>${esc(title)}; estimate = sampled × f / P(length), bound: Chernoff at ${esc(s.confidence)}. Click a subpath to mark its lines.</p>
<table><tr><th>#</th><th>estimate</th><th>bound</th><th>share</th><th>blocks</th><th>runs through</th></tr>
${rows.join('\n')}
</table>
<h2>Source lines by heat</h2>
<p>Heat of a line: the estimated occurrences of the listed subpaths that run it${opts.blockCode ? '' : ' (each block counted on the line it starts on; give --classes for every line of a block)'}.</p>
${byHeat.map(([rel, f]) => `<!-- ${esc(methodName(f.method))} -->\n${fileBlock(rel, f.lines, max, opts)}`).join('\n')}
<script>${SCRIPT}</script>
</body></html>
`;
}
