/**
 * The HTML flame graph in a real browser: Debian's chromium (installed by scripts/install-deps.sh)
 * driven by playwright-core, on the report of a real profile (samples/hot, instrumented and run).
 * The page is loaded from file:// with every other request blocked, and must make none. Canvas text
 * is not DOM text, so the checks read what the page drew through `window.komoriumFlame.frames()`
 * and the canvas pixels, and drive it with real mouse and keyboard events.
 *
 * Screenshots go to a temporary folder (kept and printed with KOMORIUM_KEEP_TMP=1, or written to
 * $KOMORIUM_SCREENSHOTS): look at them after changing the page.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flatten, readProfile, type Profile } from '../src/profile/index.js';
import { diffProfiles, renderDiffHtml, renderHtml } from '../src/report/index.js';
import { methodName } from '../src/report/names.js';
import { fixture } from './fixtures/profiles/harness.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';
import { syntheticProfile } from './support/synthetic-profile.js';

const CHROMIUM = process.env.KOMORIUM_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ROW = 17;
const HIGHLIGHT = [214, 59, 214]; // #d63bd6, the search highlight

interface Frame {
  node: number;
  name: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  color: string;
}

interface Loaded {
  page: Page;
  url: string;
  errors: string[];
  requests: string[];
  blocked: string[];
  dialogs: string[];
}

let context: BrowserContext;
let shots: string;
let hot: { kprof: string; html: string; profile: Profile };

/** Opens a file in a new tab, recording page errors, console errors, dialogs and every request. */
async function open(file: string): Promise<Loaded> {
  const page = await context.newPage();
  const url = 'file://' + file;
  const l: Loaded = { page, url, errors: [], requests: [], blocked: [], dialogs: [] };
  page.on('pageerror', (e) => l.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') l.errors.push(m.text());
  });
  page.on('dialog', (d) => {
    l.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => l.requests.push(r.url()));
  // Block everything but file:// (there should be nothing else: any blocked request fails the test).
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://')) return route.continue();
    l.blocked.push(u);
    return route.abort('blockedbyclient');
  });
  await page.goto(url);
  return l;
}

/** Nothing but the page itself was requested, and the page ran without errors. */
function expectSelfContained(l: Loaded): void {
  expect(l.errors).toEqual([]);
  expect(l.dialogs).toEqual([]);
  expect(l.blocked).toEqual([]);
  expect(l.requests).toEqual([l.url]);
}

const frames = (page: Page): Promise<Frame[]> => page.evaluate(() => (window as unknown as { komoriumFlame: { frames(): Frame[] } }).komoriumFlame.frames());
const flameState = (page: Page): Promise<{ zoom: number; flame: boolean; rows: number; matched: number }> =>
  page.evaluate(() => (window as unknown as { komoriumFlame: { state: { zoom: number; flame: boolean; rows: number; matched: number } } }).komoriumFlame.state);

/** Pixels of the canvas in a rectangle given in CSS pixels (the tests run at device scale 1). */
async function pixels(page: Page, x: number, y: number, w: number, h: number): Promise<number[][]> {
  return page.evaluate(
    ([x, y, w, h]) => {
      const c = document.getElementById('flame') as HTMLCanvasElement;
      const d = c.getContext('2d')!.getImageData(Math.round(x!), Math.round(y!), Math.max(1, Math.round(w!)), Math.max(1, Math.round(h!))).data;
      const out: number[][] = [];
      for (let i = 0; i < d.length; i += 4) out.push([d[i]!, d[i + 1]!, d[i + 2]!]);
      return out;
    },
    [x, y, w, h],
  );
}

/** Dark pixels (text) in a frame's label area: proof that its name was painted, not just computed. */
async function textPixels(page: Page, f: Frame): Promise<number> {
  const px = await pixels(page, f.x + 2, f.y + 2, Math.min(f.width - 4, 7 * f.label.length + 4), f.height - 4);
  return px.filter(([r, g, b]) => r! < 90 && g! < 90 && b! < 90).length;
}

async function screenshot(page: Page, name: string): Promise<string> {
  const file = join(shots, name);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(5_000);
  return file;
}

const pct = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(2)}%`;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: the flame graph is tested in a real browser. ` +
        'Run `bash scripts/install-deps.sh` (it installs Debian\'s chromium), or set KOMORIUM_CHROMIUM to a Chromium binary.',
    );
  }
  shots = process.env.KOMORIUM_SCREENSHOTS || tmpDir('komorium-flame-shots-');
  mkdirSync(shots, { recursive: true });
  if (process.env.KOMORIUM_KEEP_TMP || process.env.KOMORIUM_SCREENSHOTS) console.log(`flame graph screenshots: ${shots}`);

  // A real profile: samples/hot, instrumented and run, then `komorium-ts report -o hot.html`.
  const work = tmpDir();
  const classes = join(work, 'classes');
  mkdirSync(classes);
  javac(join(repoRoot, 'samples', 'hot', 'Main.java'), classes);
  instrument(classes, join(work, 'instrumented'));
  const kprof = join(work, 'hot.kprof');
  const run = await runJava({ cp: [join(work, 'instrumented')], main: 'Main', args: ['200000'], jvmArgs: [`-Dkomorium.out=${kprof}`, '-Dkomorium.granularity=1000', '-Dkomorium.quiet'] });
  expect(run.code, run.stderr).toBe(0);
  const html = join(work, 'hot.html');
  const r = cli(['report', kprof, '-o', html]);
  expect(r.code, r.stderr).toBe(0);
  hot = { kprof, html, profile: readProfile(kprof) };

  context = await chromium.launchPersistentContext(tmpDir('komorium-chromium-profile-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 700 },
    deviceScaleFactor: 1,
    offline: true,
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
});

describe('HTML flame graph in Chromium', () => {
  it("shows the hottest frame's name, zooms on click, highlights search matches, hovers with percentages", async () => {
    const l = await open(hot.html);
    const { page } = l;
    const p = hot.profile;
    const canvasBox = (await page.locator('#flame').boundingBox())!;
    expect(canvasBox.width).toBeGreaterThan(1000);

    // The hottest method by self (isPrime): its frame is drawn with its whole name, in pixels too.
    const hottest = flatten(p).sort((a, b) => b.self - a.self)[0]!;
    const hottestName = methodName(hottest.method);
    expect(hottestName).toBe('Main.isPrime(int)');
    let drawn = await frames(page);
    expect(drawn.length).toBe(p.nodes.length);
    const hotFrame = drawn.filter((f) => f.name === hottestName).sort((a, b) => b.width - a.width)[0]!;
    expect(hotFrame.label).toBe(hottestName);
    expect(hotFrame.width / canvasBox.width).toBeGreaterThan(0.5);
    expect(await textPixels(page, hotFrame)).toBeGreaterThan(30);
    // Every frame wide enough for a few characters says something, and narrow ones say it shorter.
    for (const f of drawn) if (f.width > 40) expect(f.label, f.name).not.toBe('');
    await screenshot(page, '1-hot.png');

    // Hover: name, source, the line of the call (call lines are on by default), lines, total and self
    // as percentages and estimated bytecodes.
    const hotNode = p.nodes[hotFrame.node]!;
    await page.mouse.move(canvasBox.x + hotFrame.x + hotFrame.width / 2, canvasBox.y + hotFrame.y + ROW / 2);
    await expect.poll(() => page.locator('#tip').isVisible()).toBe(true);
    const tip = (await page.locator('#tip').textContent())!.split('\n');
    expect(tip[0]).toBe(hottestName);
    expect(tip[1]).toMatch(/^Main\.java:\d+$/);
    // countPrimes calls isPrime from line 28 only.
    expect(tip[2]).toBe('called from line 28');
    // The lines its own samples ran on: the loop of trial division first.
    expect(tip[3]).toMatch(/^self by line: 17 \(\d+\.\d%\)/);
    expect(tip[4]).toMatch(new RegExp(`^total: ${pct(hotNode.total, p.totalCounter).replace('.', '\\.')} · [\\d,]+ bytecodes \\([\\d,]+ samples\\)$`));
    expect(tip[5]).toMatch(new RegExp(`^self: +${pct(hotNode.counter, p.totalCounter).replace('.', '\\.')} · [\\d,]+ bytecodes`));
    await screenshot(page, '2-hover.png');

    // Click a narrow frame: it zooms, filling the width, and its callees get room for their names.
    const sortWords = drawn.find((f) => f.name === 'Main.sortWords(int)')!;
    expect(sortWords.width / canvasBox.width).toBeLessThan(0.2);
    await page.mouse.click(canvasBox.x + sortWords.x + sortWords.width / 2, canvasBox.y + sortWords.y + ROW / 2);
    expect((await flameState(page)).zoom).toBe(sortWords.node);
    drawn = await frames(page);
    const zoomed = drawn.find((f) => f.node === sortWords.node)!;
    expect(zoomed.x).toBe(0);
    expect(zoomed.width).toBeCloseTo(canvasBox.width, 0);
    expect(zoomed.label).toBe('Main.sortWords(int)');
    const callees = drawn.filter((f) => p.nodes[f.node]!.parent?.id === sortWords.node);
    // The comparator lambda is called back by the JDK's sort, below an [uninstrumented] node.
    expect(callees.map((f) => f.label).sort()).toEqual(['Main.word(int)', '[uninstrumented]']);
    const between = callees.find((f) => f.label === '[uninstrumented]')!;
    expect(drawn.filter((f) => p.nodes[f.node]!.parent?.id === between.node).map((f) => f.label)).toEqual(['Main.lambda$sortWords$0(String, String)']);
    for (const f of callees) expect(await textPixels(page, f)).toBeGreaterThan(30);
    // Other subtrees are gone; the ancestors stay as full-width rows above.
    expect(drawn.some((f) => f.name === hottestName)).toBe(false);
    expect(drawn.filter((f) => f.y < zoomed.y).every((f) => f.x === 0 && f.width === zoomed.width)).toBe(true);
    expect(await page.locator('#crumbs').textContent()).toBe('all › Main.main(String[]) › Main.sortWords(int)');
    await screenshot(page, '3-zoomed.png');

    // Esc resets; the breadcrumb's "all" button too.
    await page.keyboard.press('Escape');
    expect((await flameState(page)).zoom).toBe(0);

    // Search: the matched share is reported and every matching frame turns magenta.
    await page.locator('#search').fill('isprime');
    const isPrimeTotal = flatten(p).find((f) => f.method === hottest.method)!.total;
    await expect.poll(() => page.locator('#matched').textContent()).toBe(`Matched: ${pct(isPrimeTotal, p.totalCounter)} of all`);
    drawn = await frames(page);
    expect(drawn.filter((f) => f.color === '#d63bd6').map((f) => f.name)).toEqual(drawn.filter((f) => f.name === hottestName).map((f) => f.name));
    const hl = drawn.find((f) => f.name === hottestName)!;
    const [center] = await pixels(page, hl.x + hl.width - 3, hl.y + ROW / 2, 1, 1);
    expect(center).toEqual(HIGHLIGHT);
    const [other] = await pixels(page, 2, 1, 1, 1); // the root frame is not highlighted
    expect(other).not.toEqual(HIGHLIGHT);
    await screenshot(page, '4-search.png');

    // Flame orientation: the root moves to the bottom row.
    await page.keyboard.press('Escape');
    await page.locator('#orient').click();
    const state = await flameState(page);
    expect(state.flame).toBe(true);
    expect((await frames(page)).find((f) => f.node === 0)!.y).toBe((state.rows - 1) * ROW);

    expectSelfContained(l);
    await page.close();
  });

  it("colours the JDK's frames apart from the application's, and the legend says which is which", async () => {
    const p = readProfile(fixture('jdk-frames.kprof'));
    const file = join(tmpDir(), 'jdk.html');
    writeFileSync(file, renderHtml(p));
    const l = await open(file);
    const drawn = (await frames(l.page)).filter((f) => f.node > 0);
    expect(drawn.length).toBe(p.nodes.length - 1);
    const hue = (f: Frame) => Number(/^hsl\((\d+),/.exec(f.color)![1]);
    for (const f of drawn) {
      const jdk = /^java\./.test(f.name);
      // Cool hues (190-219) for the JDK, warm ones (5-54) for the application.
      if (jdk) expect(hue(f), f.name).toBeGreaterThanOrEqual(190);
      else expect(hue(f), f.name).toBeLessThan(55);
      // And on the canvas: blue over red for the JDK, red over blue for the application.
      const [[r, , b]] = (await pixels(l.page, f.x + f.width - 3, f.y + ROW / 2, 1, 1)) as [[number, number, number]];
      if (jdk) expect(b, f.name).toBeGreaterThan(r);
      else expect(r, f.name).toBeGreaterThan(b);
    }
    expect(drawn.filter((f) => /^java\./.test(f.name)).length).toBe(9);
    expect(await l.page.locator('.legend').textContent()).toBe("Colour:the application's methodsthe JDK's (java.*, javax.*, jdk.*, sun.*, com.sun.*)");
    expect(await l.page.locator('pre.info').textContent()).toContain("jdk          instrumented: the JDK's bytecodes are counted too");
    await screenshot(l.page, '6-jdk.png');
    expectSelfContained(l);
    await l.page.close();
  });

  it('keeps hostile names as data', async () => {
    const file = join(tmpDir(), 'hostile.html');
    writeFileSync(file, renderHtml(readProfile(fixture('hostile.kprof'))));
    const l = await open(file);
    expect(await l.page.evaluate(() => [document.images.length, document.scripts.length])).toEqual([0, 2]);
    expect((await frames(l.page)).map((f) => f.name)).toContain('com.evil.X.</script><img src=x onerror=alert(1)>(String)');
    expectSelfContained(l);
    await l.page.close();
  });

  it('stays responsive with 50,000 calling contexts', async () => {
    const file = join(tmpDir(), 'big.html');
    writeFileSync(file, renderHtml(syntheticProfile(50_000)));
    const l = await open(file);
    const { page } = l;
    expect(await page.evaluate(() => (window as unknown as { komoriumFlame: { nodeCount: number } }).komoriumFlame.nodeCount)).toBeGreaterThan(45_000);
    const ms = await page.evaluate(() => {
      const api = (window as unknown as { komoriumFlame: { render(): void } }).komoriumFlame;
      const t = performance.now();
      for (let i = 0; i < 10; i++) api.render();
      return (performance.now() - t) / 10;
    });
    expect(ms).toBeLessThan(200); // ~10 ms here
    const box = (await page.locator('#flame').boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + 2 * ROW + 5);
    await expect.poll(() => page.locator('#tip').isVisible()).toBe(true);
    expect(await page.locator('#tip').textContent()).toMatch(/total: .*bytecodes/);
    await page.mouse.click(box.x + 20, box.y + 2 * ROW + 5);
    expect((await flameState(page)).zoom).toBeGreaterThan(0);
    await page.locator('#search').fill('class12');
    expect(await page.locator('#matched').textContent()).toMatch(/^Matched: \d+\.\d\d% of all$/);
    await page.keyboard.press('Escape');
    expect((await flameState(page)).zoom).toBe(0);
    expectSelfContained(l);
    await page.close();
  });

  it('draws the differential flame graph: grown frames red, unchanged grey', async () => {
    const file = join(tmpDir(), 'diff.html');
    writeFileSync(file, renderDiffHtml(diffProfiles(readProfile(fixture('simple.kprof')), readProfile(fixture('grown.kprof')))));
    const l = await open(file);
    const drawn = await frames(l.page);
    const hash = drawn.filter((f) => f.name === 'java.lang.String.hashCode()').sort((a, b) => b.width - a.width)[0]!;
    expect(hash.color).toBe('rgb(255,50,50)');
    const [px] = await pixels(l.page, hash.x + hash.width - 3, hash.y + ROW / 2, 1, 1);
    expect(px).toEqual([255, 50, 50]);
    expect(readFileSync(file, 'utf8')).toContain('Grew most: java.lang.String.hashCode()');
    await screenshot(l.page, '5-diff.png');
    expectSelfContained(l);
    await l.page.close();
  });
});
