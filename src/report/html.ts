/**
 * A single self-contained HTML file with an interactive flame graph (inline CSS and JS, no network
 * access, no date: the same profile gives the same bytes). The profile travels as JSON in a
 * `<script type="application/json">` element with `<`, `>` and `&` escaped, so a class or method
 * name such as `</script><img onerror=...>` stays data; the page shows names only via
 * textContent and canvas text.
 */
import { forEachSharedContext } from '../profile/analysis.js';
import type { Profile } from '../profile/model.js';
import { FLAME_CLIENT_JS } from './flame-client.js';
import { methodName, sourceRef, type NameOptions } from './names.js';
import { headerLines } from './text.js';
import { lineSummary } from './lines.js';
import { isJdkClass } from './jdk.js';

/** What the client script reads (see flame-client.ts). Arrays are per context, in preorder. */
export interface FlamePayload {
  mode: 'profile' | 'diff';
  unit: 'samples' | 'bytecodes';
  /** Display name and `File.java:line` per method id. */
  names: string[];
  sources: string[];
  parent: number[];
  method: number[];
  self: number[];
  total: number[];
  totalCounter: number;
  totalBytecodes: number;
  /** Ids of the methods of JDK classes (java.*, javax.*, jdk.*, sun.*, com.sun.*), drawn in cool colours; absent when none. */
  jdk?: number[];
  /** Per context, where the profile records them: the line that called it and the lines its samples ran on. */
  lines?: string[];
  /** Diff mode: the counters of the same calling context in A (0 where A lacks it). */
  a?: { self: number[]; total: number[]; totalCounter: number; totalBytecodes: number };
  labelA?: string;
  labelB?: string;
}

export function flamePayload(p: Profile, opts: NameOptions = {}): FlamePayload {
  const jdk = p.methods.filter((m) => isJdkClass(m.className)).map((m) => m.id);
  return {
    mode: 'profile',
    unit: p.unit,
    names: p.methods.map((m) => methodName(m, opts)),
    sources: p.methods.map((m) => sourceRef(m)),
    parent: p.nodes.map((n) => (n.parent === null ? -1 : n.parent.id)),
    method: p.nodes.map((n) => (n.method === null ? -1 : n.method.id)),
    self: p.nodes.map((n) => n.counter),
    total: p.nodes.map((n) => n.total),
    totalCounter: p.totalCounter,
    totalBytecodes: p.totalBytecodes,
    ...(jdk.length > 0 ? { jdk } : {}),
    ...(p.nodes.some((n) => n.self !== undefined || n.calls !== undefined) ? { lines: p.nodes.map(lineSummary) } : {}),
  };
}

/** B's tree with A's counters attached per shared calling context: the differential flame graph. */
export function diffFlamePayload(a: Profile, b: Profile, opts: NameOptions = {}, labels = { a: 'A', b: 'B' }): FlamePayload {
  const payload = flamePayload(b, opts);
  const self = new Array<number>(b.nodes.length).fill(0);
  const total = new Array<number>(b.nodes.length).fill(0);
  forEachSharedContext(b, a, (nb, na) => {
    self[nb.id] = na.counter;
    total[nb.id] = na.total;
  });
  payload.mode = 'diff';
  payload.a = { self, total, totalCounter: a.totalCounter, totalBytecodes: a.totalBytecodes };
  payload.labelA = labels.a;
  payload.labelB = labels.b;
  return payload;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON that cannot end its `<script>` element or open a comment, whatever the names contain. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding:12px 16px;font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;background:#fafafa}
h1{font-size:16px;margin:0 0 6px}
pre.info{margin:0 0 8px;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#444;white-space:pre-wrap}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:6px 0}
.bar input{font:inherit;padding:3px 6px;width:22em;border:1px solid #bbb;border-radius:3px}
.bar button,.crumb{font:inherit;padding:2px 8px;border:1px solid #bbb;border-radius:3px;background:#fff;cursor:pointer}
#matched{color:#a020a0;font-weight:600}
#crumbs{margin:4px 0 8px;font-size:12px;overflow-wrap:anywhere}
.crumb{padding:0 5px;max-width:40em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
#wrap{width:100%;overflow-x:hidden}
canvas{display:block}
#tip{position:fixed;display:none;max-width:480px;padding:6px 8px;background:#fff;border:1px solid #999;border-radius:3px;
 box-shadow:0 2px 6px rgba(0,0,0,.2);font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;
 overflow-wrap:anywhere;pointer-events:none;z-index:10}
.legend span{display:inline-block;width:12px;height:12px;vertical-align:middle;margin:0 3px 0 8px;border:1px solid #999}
#clipped{color:#a33}
.hint{color:#777;font-size:12px}
`;

/** Swatches of the two palettes of flame-client.ts (warm for the application, cool for the JDK), for the legend. */
const APP_SWATCH = 'hsl(30,80%,60%)';
const JDK_SWATCH = 'hsl(205,55%,67%)';

export interface HtmlPageOptions {
  title: string;
  /** Preformatted lines shown under the title (header block, verdicts). */
  info: string[];
}

export function renderFlameHtml(payload: FlamePayload, page: HtmlPageOptions): string {
  const legend =
    payload.mode === 'diff'
      ? `<div class="legend hint">Widths: ${escapeHtml(payload.labelB ?? 'B')}. Color: change of a frame's own bytecodes vs ${escapeHtml(payload.labelA ?? 'A')}` +
        `<span style="background:rgb(255,50,50)"></span>grew<span style="background:rgb(50,50,255)"></span>shrank<span style="background:#dcdcdc"></span>unchanged</div>\n`
      : `<div class="legend hint">Colour:<span style="background:${APP_SWATCH}"></span>the application's methods` +
        `<span style="background:${JDK_SWATCH}"></span>the JDK's (java.*, javax.*, jdk.*, sun.*, com.sun.*)</div>\n`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="komorium-ts">
<title>${escapeHtml(page.title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
<pre class="info">${escapeHtml(page.info.join('\n'))}</pre>
${legend}<div class="bar">
<input id="search" type="search" placeholder="Search methods (substring, press /)" aria-label="Search methods">
<span id="matched"></span>
<button id="reset" type="button">Reset zoom</button>
<button id="orient" type="button">Flame (root at bottom)</button>
<span class="hint">Click a frame to zoom, Esc to reset. Widths: share of the total.</span>
</div>
<div id="crumbs"></div>
<div id="clipped" style="display:none">Deeper frames are not drawn at this zoom: click a frame to zoom in.</div>
<div id="wrap"><canvas id="flame" role="img" aria-label="Flame graph"></canvas></div>
<div id="tip"></div>
<script id="kdata" type="application/json">${scriptJson(payload)}</script>
<script>${FLAME_CLIENT_JS}</script>
</body>
</html>
`;
}

export function renderHtml(p: Profile, opts: NameOptions = {}): string {
  return renderFlameHtml(flamePayload(p, opts), {
    title: `komorium profile ${p.name}`,
    info: headerLines(p).map((l) => l.trimStart()),
  });
}
