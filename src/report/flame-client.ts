/**
 * The script inlined into every HTML report (kept as text: it runs in the browser, not in Node).
 *
 * It draws on one canvas rather than one DOM element per frame: a profile with tens of thousands of
 * contexts would otherwise create as many elements and make zoom and hover sluggish. The data is a
 * preorder array (parent, method, self, total), so a subtree is a contiguous index range and a frame
 * too thin to see is skipped together with everything under it: a redraw costs only what is visible.
 * Names reach the page only through canvas fillText and textContent, never as HTML.
 *
 * The page exposes `window.komoriumFlame` (zoom, search, nodeAt, describe, frames, state) for tests
 * and for users who want to script it from the console; `frames()` lists what the last render drew
 * (each frame's rectangle in CSS pixels of the canvas, color and label), since canvas text is not
 * in the DOM.
 */
export const FLAME_CLIENT_JS = String.raw`(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('kdata').textContent);
  var N = D.parent.length, P = D.parent, M = D.method, SELF = D.self, TOT = D.total;
  var DIFF = D.mode === 'diff';
  var JDK = new Uint8Array(D.names.length);
  (D.jdk || []).forEach(function (m) { JDK[m] = 1; });
  var ROW = 17, MINW = 0.4, FONT = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
  var depth = new Int32Array(N), end = new Int32Array(N), x = new Float64Array(N), cursor = new Float64Array(N);
  var maxDepth = 0;
  (function layout() {
    // Children sit side by side from their parent's left edge; the parent's self time is the gap at its right.
    var st = [];
    for (var i = 0; i < N; i++) {
      var p = P[i];
      if (p >= 0) { depth[i] = depth[p] + 1; x[i] = cursor[p]; cursor[p] += TOT[i]; }
      cursor[i] = x[i];
      if (depth[i] > maxDepth) maxDepth = depth[i];
      while (st.length && depth[st[st.length - 1]] >= depth[i]) end[st.pop()] = i;
      st.push(i);
    }
    while (st.length) end[st.pop()] = N;
  })();

  function name(i) { return M[i] < 0 ? 'all' : D.names[M[i]]; }
  // Labels for frames too narrow for the whole name, longest first: without the package, then
  // without the parameters, then the method alone; the last one is cut with an ellipsis if need be.
  var shortCache = {};
  function labels(i) {
    var nm = name(i), m = M[i];
    if (m < 0 || nm.charAt(0) === '<') return [nm];
    var out = shortCache[m];
    if (out) return out;
    var p = nm.indexOf('('), head = p < 0 ? nm : nm.slice(0, p), params = p < 0 ? '' : nm.slice(p);
    var dot = head.lastIndexOf('.'), method = head.slice(dot + 1), cls = dot < 0 ? '' : head.slice(0, dot);
    var simple = cls.slice(cls.lastIndexOf('.') + 1), elided = params === '' || params === '()' ? params : '(\u2026)';
    out = [nm];
    [simple + '.' + method + params, simple + '.' + method + elided, method + elided, method].forEach(function (c) {
      if (c !== out[out.length - 1] && c.charAt(0) !== '.') out.push(c);
    });
    return (shortCache[m] = out);
  }
  function fitLabel(i, fit) {
    var c = labels(i);
    for (var k = 0; k < c.length; k++) if (c[k].length <= fit) return c[k];
    var last = c[c.length - 1];
    return last.slice(0, fit - 1) + '\u2026';
  }
  var lower = D.names.map(function (s) { return s.toLowerCase(); });

  function fmtInt(v) {
    var r = Math.round(v), s = String(Math.abs(r)), out = '';
    for (var k = 0; k < s.length; k++) { if (k > 0 && (s.length - k) % 3 === 0) out += ','; out += s[k]; }
    return (r < 0 ? '-' : '') + out;
  }
  function signed(v) { return (Math.round(v) > 0 ? '+' : '') + fmtInt(v); }
  function pct(c, tot) { return tot > 0 ? (100 * c / tot).toFixed(2) + '%' : '0.00%'; }
  function est(c, tc, tb) { return tc > 0 ? c / tc * tb : 0; }
  var A = D.a;
  var dSelf = null, maxAbs = 0;
  if (DIFF) {
    // Color by the change of the frame's own bytecodes: it points at where the work moved, not at every caller on the way.
    dSelf = new Float64Array(N);
    for (var i = 0; i < N; i++) {
      dSelf[i] = est(SELF[i], D.totalCounter, D.totalBytecodes) - est(A.self[i], A.totalCounter, A.totalBytecodes);
      if (Math.abs(dSelf[i]) > maxAbs) maxAbs = Math.abs(dSelf[i]);
    }
  }

  function hash(s) {
    var h = 2166136261;
    for (var k = 0; k < s.length; k++) { h ^= s.charCodeAt(k); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  var colorCache = {};
  function color(i) {
    if (state.matchM && M[i] >= 0 && state.matchM[M[i]]) return '#d63bd6';
    if (DIFF) {
      if (maxAbs === 0 || dSelf[i] === 0) return '#dcdcdc';
      var t = Math.sqrt(Math.abs(dSelf[i]) / maxAbs), c = Math.round(225 - 175 * t);
      return dSelf[i] > 0 ? 'rgb(255,' + c + ',' + c + ')' : 'rgb(' + c + ',' + c + ',255)';
    }
    if (M[i] < 0) return '#e0a040';
    var nm = D.names[M[i]];
    if (nm.charAt(0) === '<') return '#b0b0b0';
    var col = colorCache[nm];
    if (col === undefined) {
      // Hues derived from the name: the same method keeps its color across zooms and reports. Warm
      // for the application, cool for the JDK, so that where the application ends is plain to see.
      var h = hash(nm);
      col = colorCache[nm] = JDK[M[i]]
        ? 'hsl(' + (190 + h % 30) + ',' + (45 + (h >>> 8) % 20) + '%,' + (62 + (h >>> 16) % 10) + '%)'
        : 'hsl(' + (5 + h % 50) + ',' + (70 + (h >>> 8) % 25) + '%,' + (55 + (h >>> 16) % 12) + '%)';
    }
    return col;
  }

  var state = { zoom: 0, flame: false, query: '', matchM: null, matched: 0, rows: 0, clipped: false };
  var canvas = document.getElementById('flame'), ctx = canvas.getContext('2d');
  var tip = document.getElementById('tip'), crumbs = document.getElementById('crumbs');
  var hits = [], charW = 6.6;

  function render() {
    var W = Math.max(200, canvas.parentNode.clientWidth || 1000);
    var dpr = window.devicePixelRatio || 1;
    var z = state.zoom, scale = W / (TOT[z] || 1);
    // Browsers refuse canvases taller than about 32k device pixels.
    var rowsCap = Math.max(1, Math.floor(30000 / (ROW * dpr)));
    var rx = [], rw = [], ri = [];
    for (var a = P[z]; a >= 0; a = P[a]) { ri.push(a); rx.push(0); rw.push(W); }
    var deepest = depth[z];
    state.clipped = false;
    for (var i = z; i < end[z];) {
      var w = TOT[i] * scale;
      if (w < MINW) { i = end[i]; continue; }
      if (depth[i] >= rowsCap) { state.clipped = true; i = end[i]; continue; }
      ri.push(i); rx.push((x[i] - x[z]) * scale); rw.push(w);
      if (depth[i] > deepest) deepest = depth[i];
      i++;
    }
    var rows = Math.min(deepest + 1, rowsCap), H = rows * ROW;
    state.rows = rows;
    canvas.style.width = W + 'px';
    canvas.style.height = H + 'px';
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    var m = ctx.measureText('MMMMMMMMMM');
    if (m && m.width > 0) charW = m.width / 10;
    hits = [];
    var rl = [];
    for (var r = 0; r < rows; r++) hits.push([]);
    for (var k = 0; k < ri.length; k++) {
      var n = ri[k], d = depth[n], y = state.flame ? (rows - 1 - d) * ROW : d * ROW;
      ctx.globalAlpha = n !== z && k < depth[z] ? 0.55 : 1;
      ctx.fillStyle = color(n);
      ctx.fillRect(rx[k], y, Math.max(rw[k] - 0.5, 0.5), ROW - 1);
      hits[d].push(k);
      var fit = Math.floor((rw[k] - 6) / charW), label = '';
      if (fit >= 3) {
        label = fitLabel(n, fit);
        ctx.fillStyle = '#000';
        ctx.fillText(label, rx[k] + 3, y + ROW / 2);
      }
      rl.push(label);
    }
    ctx.globalAlpha = 1;
    render.rx = rx; render.rw = rw; render.ri = ri; render.rl = rl;
    document.getElementById('clipped').style.display = state.clipped ? '' : 'none';
    updateCrumbs();
  }

  function nodeAt(px, py) {
    var r = Math.floor(py / ROW);
    if (state.flame) r = state.rows - 1 - r;
    if (r < 0 || r >= hits.length) return -1;
    var row = hits[r], lo = 0, hi = row.length - 1, rx = render.rx, rw = render.rw;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1, k = row[mid];
      if (px < rx[k]) hi = mid - 1;
      else if (px >= rx[k] + rw[k]) lo = mid + 1;
      else return render.ri[k];
    }
    return -1;
  }

  /** What the last render drew, in canvas CSS pixels: for tests and scripts (canvas text is not DOM text). */
  function frames() {
    var out = [], rows = state.rows;
    for (var k = 0; k < render.ri.length; k++) {
      var n = render.ri[k], d = depth[n];
      out.push({ node: n, name: name(n), label: render.rl[k], x: render.rx[k], y: state.flame ? (rows - 1 - d) * ROW : d * ROW,
        width: render.rw[k], height: ROW - 1, color: color(n) });
    }
    return out;
  }

  function zoom(i) {
    state.zoom = i >= 0 && i < N ? i : 0;
    render();
  }

  function updateCrumbs() {
    while (crumbs.firstChild) crumbs.removeChild(crumbs.firstChild);
    var chain = [];
    for (var a = state.zoom; a >= 0; a = P[a]) chain.unshift(a);
    chain.forEach(function (n, k) {
      if (k > 0) crumbs.appendChild(document.createTextNode(' \u203a '));
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'crumb';
      b.textContent = name(n);
      b.title = name(n);
      b.addEventListener('click', function () { zoom(n); });
      crumbs.appendChild(b);
    });
  }

  function search(q) {
    state.query = String(q || '').trim().toLowerCase();
    var out = document.getElementById('matched');
    if (state.query === '') {
      state.matchM = null; state.matched = 0; out.textContent = '';
    } else {
      var mm = new Uint8Array(lower.length);
      for (var k = 0; k < lower.length; k++) if (lower[k].indexOf(state.query) >= 0) mm[k] = 1;
      // A match inside a match is already counted by its outer frame (recursion, or a callee that also matches).
      var sum = 0;
      for (var i = 0; i < N;) { if (M[i] >= 0 && mm[M[i]]) { sum += TOT[i]; i = end[i]; } else i++; }
      state.matchM = mm;
      state.matched = TOT[0] > 0 ? sum / TOT[0] : 0;
      out.textContent = 'Matched: ' + (100 * state.matched).toFixed(2) + '% of all';
    }
    render();
    return state.matched;
  }

  /** "B (/some/dir/b.kprof)" → "B (b.kprof)". */
  function baseLabel(label) { return String(label).replace(/\((?:[^()]*[\\/])?([^()\\/]*)\)$/, '($1)'); }

  function describe(i) {
    var lines = [name(i)];
    if (M[i] >= 0 && D.sources[M[i]]) lines.push(D.sources[M[i]]);
    if (D.lines && D.lines[i]) lines.push(D.lines[i]);
    var tb = D.totalBytecodes, tc = D.totalCounter, unit = D.unit === 'samples' ? ' samples' : ' counted';
    if (!DIFF) {
      lines.push('total: ' + pct(TOT[i], tc) + ' \u00b7 ' + fmtInt(est(TOT[i], tc, tb)) + ' bytecodes (' + fmtInt(TOT[i]) + unit + ')');
      lines.push('self:  ' + pct(SELF[i], tc) + ' \u00b7 ' + fmtInt(est(SELF[i], tc, tb)) + ' bytecodes (' + fmtInt(SELF[i]) + unit + ')');
    } else {
      // One figure per line, aligned (the tooltip is monospace), so that nothing wraps mid-figure;
      // the legend above names the files in full, the tooltip only by their base names.
      var bT = est(TOT[i], tc, tb), bS = est(SELF[i], tc, tb), aT = est(A.total[i], A.totalCounter, A.totalBytecodes), aS = est(A.self[i], A.totalCounter, A.totalBytecodes);
      var la = baseLabel(D.labelA), lb = baseLabel(D.labelB), w = Math.max(la.length, lb.length, 6) + 2;
      var pad = function (s) { while (s.length < w) s += ' '; return s; };
      lines.push(pad(lb) + 'total ' + pct(TOT[i], tc) + ' \u00b7 ' + fmtInt(bT) + ' bytecodes');
      lines.push(pad('') + 'self  ' + pct(SELF[i], tc) + ' \u00b7 ' + fmtInt(bS) + ' bytecodes');
      if (A.total[i] === 0 && i > 0) lines.push(pad(la) + 'not in this profile');
      else {
        lines.push(pad(la) + 'total ' + pct(A.total[i], A.totalCounter) + ' \u00b7 ' + fmtInt(aT) + ' bytecodes');
        lines.push(pad('') + 'self  ' + pct(A.self[i], A.totalCounter) + ' \u00b7 ' + fmtInt(aS) + ' bytecodes');
      }
      lines.push(pad('change') + 'self  ' + signed(bS - aS) + ' bytecodes' + (aS > 0 ? ' (' + (bS >= aS ? '+' : '') + (100 * (bS - aS) / aS).toFixed(1) + '%)' : ''));
      lines.push(pad('') + 'total ' + signed(bT - aT) + ' bytecodes');
    }
    return lines.join('\n');
  }

  canvas.addEventListener('mousemove', function (e) {
    var rect = canvas.getBoundingClientRect();
    var i = nodeAt(e.clientX - rect.left, e.clientY - rect.top);
    if (i < 0) { tip.style.display = 'none'; canvas.style.cursor = ''; return; }
    canvas.style.cursor = 'pointer';
    tip.textContent = describe(i);
    tip.style.display = 'block';
    var vw = window.innerWidth || 1000, vh = window.innerHeight || 800, th = tip.offsetHeight || 0;
    tip.style.left = Math.min(e.clientX + 14, Math.max(0, vw - 480)) + 'px';
    // Below the pointer, or above it when it would leave the window.
    tip.style.top = (e.clientY + 16 + th > vh && e.clientY - 8 - th >= 0 ? e.clientY - 8 - th : e.clientY + 16) + 'px';
  });
  canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  canvas.addEventListener('click', function (e) {
    var rect = canvas.getBoundingClientRect();
    var i = nodeAt(e.clientX - rect.left, e.clientY - rect.top);
    if (i >= 0) zoom(i);
  });
  document.getElementById('reset').addEventListener('click', function () { zoom(0); });
  document.getElementById('orient').addEventListener('click', function () {
    state.flame = !state.flame;
    this.textContent = state.flame ? 'Icicle (root on top)' : 'Flame (root at bottom)';
    render();
  });
  var box = document.getElementById('search');
  box.addEventListener('input', function () { search(box.value); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { box.value = ''; search(''); zoom(0); }
    else if (e.key === '/' && document.activeElement !== box) { e.preventDefault(); box.focus(); }
  });
  var pending = 0;
  window.addEventListener('resize', function () {
    if (pending) return;
    pending = 1;
    (window.requestAnimationFrame || setTimeout)(function () { pending = 0; render(); });
  });

  window.komoriumFlame = { zoom: zoom, search: search, nodeAt: nodeAt, describe: describe, frames: frames, render: render, state: state, nodeCount: N };
  render();
})();
`;
