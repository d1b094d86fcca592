// A small SVG line-plot writer for BENCHMARKS.md (no dependencies), in the spirit of seed 002's
// Figure 15: one line per workload against the granularity on a log x axis, solid for constant
// granularity and dashed for randomized, optional horizontal reference lines.

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f'];

export function colorOf(i) {
  return PALETTE[i % PALETTE.length];
}

function esc(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function niceStep(range, target) {
  const raw = range / target;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

function fmtTick(v) {
  if (v >= 1e6) return `${+(v / 1e6).toFixed(2)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toFixed(2)}k`;
  return `${+v.toFixed(3)}`;
}

/**
 * series: [{ name, color, dash, points: [[x, y], ...] }]; refLines: [{ y, label, color }].
 * x is always logarithmic; yLog makes y logarithmic too. Returns the SVG text.
 */
export function linePlot({ title, xLabel, yLabel, series, refLines = [], yLog = false, yMin, yMax, yFormat = fmtTick, width = 720, height = 420 }) {
  const m = { l: 70, r: 190, t: 36, b: 52 };
  const pw = width - m.l - m.r;
  const ph = height - m.t - m.b;
  const pts = series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && Number.isFinite(y) && (!yLog || y > 0));
  const xs = pts.map((p) => p[0]);
  const ys = [...pts.map((p) => p[1]), ...refLines.map((r) => r.y)];
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  out.push(`<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`);
  if (pts.length === 0) {
    out.push(`<text x="${m.l + pw / 2}" y="${m.t + ph / 2}" text-anchor="middle">no data</text></svg>`);
    return out.join('\n');
  }
  const lx0 = Math.floor(Math.log10(Math.min(...xs)));
  const lx1 = Math.max(lx0 + 1, Math.ceil(Math.log10(Math.max(...xs))));
  const X = (x) => m.l + ((Math.log10(x) - lx0) / Math.max(1e-9, lx1 - lx0)) * pw;
  let y0 = yMin ?? Math.min(...ys);
  let y1 = yMax ?? Math.max(...ys);
  let Y;
  const yTicks = [];
  if (yLog) {
    const a = Math.floor(Math.log10(y0));
    const b = Math.ceil(Math.log10(y1));
    Y = (y) => m.t + ph - ((Math.log10(y) - a) / Math.max(1e-9, b - a)) * ph;
    for (let e = a; e <= b; e++) yTicks.push(10 ** e);
  } else {
    if (y1 - y0 < 1e-9) {
      y0 -= 0.5;
      y1 += 0.5;
    }
    const step = niceStep(y1 - y0, 6);
    y0 = Math.floor(y0 / step) * step;
    y1 = Math.ceil(y1 / step) * step;
    Y = (y) => m.t + ph - ((y - y0) / (y1 - y0)) * ph;
    for (let v = y0; v <= y1 + step / 2; v += step) yTicks.push(+v.toPrecision(12));
  }
  // grid and axes
  for (let e = lx0; e <= lx1; e++) {
    const x = X(10 ** e);
    out.push(`<line x1="${x}" y1="${m.t}" x2="${x}" y2="${m.t + ph}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${m.t + ph + 16}" text-anchor="middle">${fmtTick(10 ** e)}</text>`);
    for (let k = 2; k < 10 && e < lx1; k++) {
      const xm = X(k * 10 ** e);
      out.push(`<line x1="${xm}" y1="${m.t + ph}" x2="${xm}" y2="${m.t + ph - 4}" stroke="#999"/>`);
    }
  }
  for (const v of yTicks) {
    const y = Y(v);
    out.push(`<line x1="${m.l}" y1="${y}" x2="${m.l + pw}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${m.l - 6}" y="${y + 4}" text-anchor="end">${esc(yFormat(v))}</text>`);
  }
  out.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${m.l + pw / 2}" y="${height - 12}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  for (const r of refLines) {
    const y = Y(r.y);
    out.push(`<line x1="${m.l}" y1="${y}" x2="${m.l + pw}" y2="${y}" stroke="${r.color ?? '#000'}" stroke-dasharray="2 3" stroke-width="1.5"/>`);
    out.push(`<text x="${m.l + 4}" y="${y - 4}" fill="${r.color ?? '#000'}">${esc(r.label)}</text>`);
  }
  // series
  series.forEach((s) => {
    const p = s.points.filter(([x, y]) => x > 0 && Number.isFinite(y) && (!yLog || y > 0)).sort((a, b) => a[0] - b[0]);
    if (p.length === 0) return;
    const d = p.map(([x, y], i) => `${i ? 'L' : 'M'}${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="${s.width ?? 2}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    for (const [x, y] of p) out.push(`<circle cx="${X(x).toFixed(1)}" cy="${Y(y).toFixed(1)}" r="2.5" fill="${s.color}"/>`);
  });
  // legend
  series.forEach((s, i) => {
    const y = m.t + 8 + i * 18;
    const x = m.l + pw + 12;
    out.push(`<line x1="${x}" y1="${y}" x2="${x + 26}" y2="${y}" stroke="${s.color}" stroke-width="${s.width ?? 2}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    out.push(`<text x="${x + 32}" y="${y + 4}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
