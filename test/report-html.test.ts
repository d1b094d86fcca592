import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readProfile } from '../src/profile/index.js';
import { diffProfiles, escapeHtml, renderDiffHtml, renderHtml, scriptJson } from '../src/report/index.js';
import { fixture } from './fixtures/profiles/harness.js';
import { syntheticProfile } from './support/synthetic-profile.js';

/** The JSON payload and the client script of a generated page. */
function parts(html: string): { data: string; script: string } {
  const data = /<script id="kdata" type="application\/json">([\s\S]*?)<\/script>/.exec(html)![1]!;
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  return { data, script };
}

interface FakeElement {
  id: string;
  textContent: string;
  title?: string;
  value?: string;
  style: Record<string, string>;
  children: FakeElement[];
  firstChild?: FakeElement;
  parentNode?: { clientWidth: number };
  listeners: Record<string, (e: unknown) => void>;
  [k: string]: unknown;
}

interface Page {
  api: {
    zoom(i: number): void;
    search(q: string): number;
    nodeAt(x: number, y: number): number;
    describe(i: number): string;
    render(): void;
    state: { zoom: number; flame: boolean; rows: number; matched: number };
    nodeCount: number;
  };
  el(id: string): FakeElement;
  /** Rectangles and labels drawn by the last render. */
  drawn: { rects: { x: number; y: number; w: number; color: string }[]; texts: string[] };
  dispatch(id: string, type: string, event?: Record<string, unknown>): void;
}

/**
 * Runs the page's script against a minimal DOM and canvas: enough to check layout, zoom, search,
 * hover and click without a browser (flamegraph-browser.test.ts runs the page in Chromium).
 */
function load(html: string, width = 1000): Page {
  const { data, script } = parts(html);
  const drawn: Page['drawn'] = { rects: [], texts: [] };
  const els: Record<string, FakeElement> = {};
  const make = (id: string): FakeElement => ({
    id,
    textContent: id === 'kdata' ? data : '',
    style: {},
    children: [],
    listeners: {},
    addEventListener(this: FakeElement, type: string, f: (e: unknown) => void) {
      this.listeners[type] = f;
    },
    appendChild(this: FakeElement, c: FakeElement) {
      this.children.push(c);
      this.firstChild = this.children[0];
    },
    removeChild(this: FakeElement) {
      this.children.shift();
      this.firstChild = this.children[0];
    },
    getBoundingClientRect: () => ({ left: 0, top: 0 }),
    getContext: () => {
      const ctx = {
        fillStyle: '',
        setTransform() {
          drawn.rects = [];
          drawn.texts = [];
        },
        fillRect(x: number, y: number, w: number) {
          drawn.rects.push({ x, y, w, color: ctx.fillStyle });
        },
        fillText(s: string) {
          drawn.texts.push(s);
        },
        measureText: (s: string) => ({ width: s.length * 6.6 }),
      };
      return ctx;
    },
  });
  const document = {
    getElementById: (id: string) => (els[id] ??= make(id)),
    createElement: () => make(''),
    createTextNode: (t: string) => ({ textContent: t }),
    addEventListener() {},
    activeElement: null,
  };
  document.getElementById('flame').parentNode = { clientWidth: width };
  const window: Record<string, unknown> = { devicePixelRatio: 1, addEventListener() {}, innerWidth: width };
  vm.runInNewContext(script, { document, window, setTimeout });
  return {
    api: window.komoriumFlame as Page['api'],
    el: (id) => document.getElementById(id),
    drawn,
    dispatch: (id, type, event = {}) => document.getElementById(id).listeners[type]!.call(document.getElementById(id), event),
  };
}

const ROW = 17;

describe('HTML flame graph', () => {
  const simple = readProfile(fixture('simple.kprof'));
  const html = renderHtml(simple);

  it('is one self-contained, deterministic file', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    // Nothing to fetch: no URLs, no external scripts, styles, fonts or images.
    expect(html).not.toMatch(/https?:|\/\/[a-z]|src=|href=|@import|url\(/i);
    expect(html).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/); // the header's date stays out
    expect(renderHtml(readProfile(fixture('simple.kprof')))).toBe(html);
    // The data is in the page.
    const data = JSON.parse(parts(html).data);
    expect(data.names).toContain('com.foo.Util.sum(int[])');
    expect(data.total).toEqual([100, 100, 3, 85, 55, 5, 20, 10]);
    expect(html).toContain('1,000,000 (estimated)');
  });

  it('keeps hostile names as data', () => {
    const page = renderHtml(readProfile(fixture('hostile.kprof')));
    // The only script elements are the two the page defines, and nothing closes them early.
    expect(page.match(/<script/g)).toHaveLength(2);
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    expect(page).not.toContain('<img');
    expect(page).toContain('\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e');
    const names: string[] = JSON.parse(parts(page).data).names;
    expect(names).toContain('com.evil.X.</script><img src=x onerror=alert(1)>(String)');
    expect(names).toContain('com.evil.X.lone\ud800()');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(scriptJson('</script><!--\u2028')).toBe('"\\u003c/script\\u003e\\u003c!--\\u2028"');
    // The hostile page runs, and shows the name via text only.
    const p = load(page);
    expect(p.api.describe(1)).toContain('</script><img src=x onerror=alert(1)>');
  });

  it('lays out widths by total and zooms on click', () => {
    const p = load(html, 1000);
    expect(p.api.nodeCount).toBe(8);
    expect(p.drawn.rects).toHaveLength(8);
    // Icicle: the root on the first row, full width. main's children in method order (as in flamegraph.pl):
    // <init> 3% at 0..30, parse 85% at 30..880, sum 10% at 880..980, then main's own 2%.
    expect(p.api.nodeAt(500, 5)).toBe(0);
    expect(p.api.nodeAt(10, 2 * ROW + 5)).toBe(2);
    expect(p.api.nodeAt(40, 2 * ROW + 5)).toBe(3);
    expect(p.api.nodeAt(900, 2 * ROW + 5)).toBe(7);
    expect(p.api.nodeAt(990, 2 * ROW + 5)).toBe(-1);
    expect(p.drawn.texts).toContain('com.foo.Parser.parse(int, String)');
    // Click parse: it fills the width, its ancestors stay as full-width rows above it.
    p.dispatch('flame', 'click', { clientX: 40, clientY: 2 * ROW + 5 });
    expect(p.api.state.zoom).toBe(3);
    expect(p.api.nodeAt(999, 2 * ROW + 5)).toBe(3);
    expect(p.api.nodeAt(700, 3 * ROW + 5)).toBe(6); // hashCode 20/85 right of sum 55/85
    const crumbs = (): FakeElement[] => p.el('crumbs').children.filter((c) => c.listeners !== undefined);
    expect(p.el('crumbs').children.map((c) => c.textContent).join('')).toBe('all › com.foo.Main.main(String[]) › com.foo.Parser.parse(int, String)');
    expect(crumbs().map((c) => c.textContent)).toEqual(['all', 'com.foo.Main.main(String[])', 'com.foo.Parser.parse(int, String)']);
    // Breadcrumb and reset go back.
    crumbs()[1]!.listeners.click!({});
    expect(p.api.state.zoom).toBe(1);
    p.dispatch('reset', 'click');
    expect(p.api.state.zoom).toBe(0);
    // Flame orientation puts the root on the bottom row.
    p.dispatch('orient', 'click');
    expect(p.api.nodeAt(500, (p.api.state.rows - 1) * ROW + 5)).toBe(0);
  });

  it('shortens the names of narrow frames: the package goes first, then the parameters, then the class', () => {
    // At 200 px: parse (85%) has room for 24 characters, sum under it (55%) for 15, hashCode for 4.
    expect(load(html, 200).drawn.texts).toEqual(['all', 'com.foo.Main.main(String[])', 'Parser.parse(…)', 'Util.sum(int[])', 'hash…']);
    expect(load(html, 1000).drawn.texts).toContain('com.foo.Parser.parse(int, String)');
  });

  it('searches, highlights and reports the matched percentage', () => {
    const p = load(html);
    p.el('search').value = 'hashcode';
    p.dispatch('search', 'input');
    expect(p.api.state.matched).toBeCloseTo(0.25, 12);
    expect(p.el('matched').textContent).toBe('Matched: 25.00% of all');
    expect(p.drawn.rects.filter((r) => r.color === '#d63bd6')).toHaveLength(2);
    // A match under a match counts once: sum (65%) contains a hashCode (5%).
    expect(p.api.search('com.foo.util.sum')).toBeCloseTo(0.65, 12);
    expect(p.api.search('com.foo')).toBeCloseTo(1, 12);
    expect(p.api.search('')).toBe(0);
    expect(p.el('matched').textContent).toBe('');
  });

  it('shows name, source, shares and estimated bytecodes on hover', () => {
    const p = load(html);
    p.dispatch('flame', 'mousemove', { clientX: 40, clientY: 3 * ROW + 5 });
    expect(p.el('tip').style.display).toBe('block');
    expect(p.el('tip').textContent).toBe(
      'com.foo.Util.sum(int[])\nUtil.java:3\ntotal: 55.00% · 550,000 bytecodes (55 samples)\nself:  50.00% · 500,000 bytecodes (50 samples)',
    );
    p.dispatch('flame', 'mousemove', { clientX: 990, clientY: 2 * ROW + 5 });
    expect(p.el('tip').style.display).toBe('none');
  });

  it('stays fast and lean for tens of thousands of contexts', () => {
    const big = syntheticProfile(50_000);
    expect(big.nodes.length).toBeGreaterThan(45_000);
    let t = performance.now();
    const page = renderHtml(big);
    const generateMs = performance.now() - t;
    t = performance.now();
    const p = load(page, 1600);
    const loadMs = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < 10; i++) p.api.render();
    const renderMs = (performance.now() - t) / 10;
    // Frames thinner than a pixel are skipped with their subtrees, so far fewer rectangles than contexts.
    expect(p.drawn.rects.length).toBeLessThan(big.nodes.length / 2);
    expect(page.length).toBeLessThan(150 * big.nodes.length);
    // Generous bounds (CI machines vary); measured ~0.1 s, ~0.13 s and ~8 ms on a laptop.
    expect(generateMs).toBeLessThan(3000);
    expect(loadMs).toBeLessThan(3000);
    expect(renderMs).toBeLessThan(200);
  });
});

describe('differential flame graph', () => {
  const d = diffProfiles(readProfile(fixture('simple.kprof')), readProfile(fixture('grown.kprof')), { failUnder: 90 });
  const html = renderDiffHtml(d);

  it('draws B colored by growth and shows both profiles on hover', () => {
    expect(html).toContain('Verdict: FAIL: overlap 77.14% &lt; 90% (--fail-under)');
    expect(html).toContain('Grew most: java.lang.String.hashCode()');
    expect(renderDiffHtml(diffProfiles(readProfile(fixture('simple.kprof')), readProfile(fixture('grown.kprof')), { failUnder: 90 }))).toBe(html);
    const p = load(html);
    // hashCode under parse grew most: the reddest frame; untouched frames are grey.
    const hashInParse = 6;
    const colorOf = (i: number): string => p.drawn.rects[i]!.color;
    expect(colorOf(hashInParse)).toBe('rgb(255,50,50)');
    // <init>: a smaller share (3% → 2.1%) of a longer run, but the same 30,000 bytecodes: unchanged.
    expect(colorOf(2)).toBe('#dcdcdc');
    // One figure per line, aligned; the files by their base names (the legend has the paths).
    expect(p.api.describe(hashInParse).split('\n')).toEqual([
      'java.lang.String.hashCode()',
      'B (grown.kprof)   total 42.86% · 600,000 bytecodes',
      '                  self  42.86% · 600,000 bytecodes',
      'A (simple.kprof)  total 20.00% · 200,000 bytecodes',
      '                  self  20.00% · 200,000 bytecodes',
      'change            self  +400,000 bytecodes (+200.0%)',
      '                  total +400,000 bytecodes',
    ]);
  });

  it('marks contexts that only B has', () => {
    const a = readProfile(fixture('simple.kprof'));
    const b = readProfile(fixture('disjoint.kprof'));
    const p = load(renderDiffHtml(diffProfiles(a, b)));
    expect(p.api.describe(1)).toContain('not in this profile');
  });
});
