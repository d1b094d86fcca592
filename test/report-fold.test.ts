/**
 * `report --fold`: frames of matching classes removed from the calling-context tree, their counts
 * charged to the nearest frame kept, in every format. On a hand-written profile with JDK frames
 * (fixtures/profiles/jdk-frames.kprof: String.format and Collections.sort with a comparator called
 * from an application method, a worker thread that starts in Thread.run), where every expected
 * figure is worked out by hand in the comments.
 */
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile as PprofProfile } from 'pprof-format';
import { describe, expect, it } from 'vitest';
import { reportCommand, renderReport, REPORT_FORMATS, type ReportFormat } from '../src/cli/commands/report.js';
import { foldProfile } from '../src/profile/fold.js';
import { parseProfile, readProfile, stackOf, writeProfile, type ContextNode, type Profile } from '../src/profile/index.js';
import { renderCollapsed, renderText } from '../src/report/index.js';
import type { CommandModule } from 'yargs';
import { fixture, runCli } from './fixtures/profiles/harness.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';

const JDK = ['java.**', 'jdk.**', 'sun.**'];
const original = (): Profile => readProfile(fixture('jdk-frames.kprof'));

/** A context by its stack of `Class.method` names, root first. */
function node(p: Profile, path: string): ContextNode {
  const n = p.nodes.find((c) => stackOf(c).map((m) => `${m.className.replaceAll('/', '.')}.${m.name}`).join(';') === path);
  if (n === undefined) throw new Error(`no context ${path}`);
  return n;
}

const selfOf = (n: ContextNode) => (n.self ?? []).map((e) => `${e.thread ?? '?'}:${e.line}=${e.counter}`);
const callsOf = (n: ContextNode) => n.calls?.map((e) => `${e.line}=${e.counter}`);

/** Σ self counter by thread name ('?' unknown), from the self entries (a node without them: unknown). */
function byThread(p: Profile): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of p.nodes) for (const e of n.self ?? [{ thread: null, line: -1, counter: n.counter }]) out.set(e.thread ?? '?', (out.get(e.thread ?? '?') ?? 0) + e.counter);
  return out;
}

describe('foldProfile', () => {
  const before = original();
  const folded = foldProfile(before, JDK);

  it('charges the JDK frames to the nearest application frame, keeping a root chain\'s outermost frame', () => {
    expect(renderCollapsed(folded)).toBe(
      [
        'app.Main.main(String[]) 60', // 10 own + String.format called from main (50)
        'app.Main.main(String[]);app.Main.work() 395', // 20 + String.format→Formatter (30+300) + Collections.sort→TimSort (5+40)
        'app.Main.main(String[]);app.Main.work();app.Main$Cmp.compare(Object,Object) 35', // the callback, now called by work
        'java.lang.Thread.run() 6', // the worker starts in the JDK: 2 own + Formatter.format (4)
        'java.lang.Thread.run();app.Worker.run() 120', // 100 + String.format→Formatter (7+13)
        '',
      ].join('\n'),
    );
    expect(folded.totalCounter).toBe(before.totalCounter);
    expect(folded.totalCounter).toBe(616);
    expect(folded.totalBytecodes).toBe(before.totalBytecodes);
  });

  it('keeps each thread\'s total, and moves folded lines to the line that called into the JDK when the profile knows it', () => {
    expect(byThread(folded)).toEqual(byThread(before));
    expect(Object.fromEntries(byThread(folded))).toEqual({ main: 490, 'worker-1': 69, 'worker-2': 53, '?': 4 });
    // String.format was called from line 12 only (call line 12 = its whole total, 330): its 330 go to line 12.
    // Collections.sort was called from lines 13 and 14: which of its 45 came from which is unknown, so line -1.
    expect(selfOf(node(folded, 'app.Main.main;app.Main.work'))).toEqual(['main:-1=45', 'main:11=20', 'main:12=330']);
    expect(selfOf(node(folded, 'app.Main.main'))).toEqual(['main:4=10', 'main:6=50']);
    // A kept frame's own JDK lines stay; Formatter.format under it had no breakdown: unknown thread and line.
    expect(selfOf(node(folded, 'java.lang.Thread.run'))).toEqual(['?:-1=4', 'worker-1:831=2']);
    expect(selfOf(node(folded, 'java.lang.Thread.run;app.Worker.run'))).toEqual(['worker-1:6=60', 'worker-1:8=7', 'worker-2:6=40', 'worker-2:8=13']);
    for (const n of folded.nodes) if (n.self) expect(n.self.reduce((s, e) => s + e.counter, 0), `self of node ${n.id}`).toBe(n.counter);
  });

  it('gives a frame moved up the line its new parent called into the JDK from, or none when unknown', () => {
    // compare was called by TimSort (line 215 of TimSort): that is not a line of work, and sort came from two lines.
    expect(callsOf(node(folded, 'app.Main.main;app.Main.work;app.Main$Cmp.compare'))).toBeUndefined();
    expect(callsOf(node(folded, 'app.Main.main;app.Main.work'))).toEqual(['5=430']);
    expect(callsOf(node(folded, 'java.lang.Thread.run;app.Worker.run'))).toEqual(['835=120']);
    // Folding only TimSort: compare moves under Collections.sort, which called TimSort from line 181 alone.
    const partial = foldProfile(before, ['java.util.TimSort']);
    expect(callsOf(node(partial, 'app.Main.main;app.Main.work;java.util.Collections.sort;app.Main$Cmp.compare'))).toEqual(['181=35']);
    expect(selfOf(node(partial, 'app.Main.main;app.Main.work;java.util.Collections.sort'))).toEqual(['main:180=5', 'main:181=40']);
  });

  it('folds a profile without lines or threads (version 1, sampling) the same way', () => {
    const simple = readProfile(fixture('simple.kprof'));
    const f = foldProfile(simple, ['java.lang.String']);
    // String.hashCode (5 under Util.sum, 20 under Parser.parse) goes to its callers.
    expect(renderCollapsed(f)).toBe(
      [
        'com.foo.Main.main(String[]) 2',
        'com.foo.Main.main(String[]);com.foo.Parser.<init>() 3',
        'com.foo.Main.main(String[]);com.foo.Parser.parse(int,String) 30',
        'com.foo.Main.main(String[]);com.foo.Parser.parse(int,String);com.foo.Util.sum(int[]) 55',
        'com.foo.Main.main(String[]);com.foo.Util.sum(int[]) 10',
        '',
      ].join('\n'),
    );
    expect(f.nodes.every((n) => n.self === undefined && n.calls === undefined)).toBe(true);
    expect(parseProfile(writeProfile(f)).totalCounter).toBe(100);
  });

  it('writes a profile the reader accepts (it checks that self lines sum to counters and call lines to at most the total)', () => {
    const again = parseProfile(writeProfile(folded), 'folded.kprof');
    expect(renderCollapsed(again)).toBe(renderCollapsed(folded));
    expect(again.nodes.map(selfOf)).toEqual(folded.nodes.map(selfOf));
  });

  it('leaves the tree alone when nothing matches, and folds a kept frame\'s callees into it whatever their package', () => {
    expect(renderCollapsed(foldProfile(before, ['org.nothing.**']))).toBe(renderCollapsed(before));
    // Folding the application instead: the JDK frames stay, charged with work's bytecodes where work is gone.
    const app = foldProfile(before, ['app.Main', 'app.Main$*']);
    expect(renderCollapsed(app)).toBe(
      [
        'app.Main.main(String[]) 30', // kept as a root chain's outermost frame: 10 + work's own 20
        'app.Main.main(String[]);java.lang.String.format(String,Object[]) 80', // 30 under work + 50 under main, merged
        'app.Main.main(String[]);java.lang.String.format(String,Object[]);java.util.Formatter.format(String,Object[]) 300',
        'app.Main.main(String[]);java.util.Collections.sort(List,Comparator) 5',
        'app.Main.main(String[]);java.util.Collections.sort(List,Comparator);java.util.TimSort.sort(Object[],int,int,Comparator,Object[],int,int) 75', // compare's 35 folded into TimSort
        'java.lang.Thread.run() 2',
        'java.lang.Thread.run();app.Worker.run() 100',
        'java.lang.Thread.run();app.Worker.run();java.lang.String.format(String,Object[]) 7',
        'java.lang.Thread.run();app.Worker.run();java.lang.String.format(String,Object[]);java.util.Formatter.format(String,Object[]) 13',
        'java.lang.Thread.run();java.util.Formatter.format(String,Object[]) 4',
        '',
      ].join('\n'),
    );
  });
});

describe('report --fold', () => {
  const gone = /Formatter|TimSort|String\.format|Collections\.sort|java\/util|java\.util/;

  it('draws the folded tree in every format, with the same total', () => {
    for (const format of REPORT_FORMATS.filter((f): f is Exclude<ReportFormat, 'dot'> => f !== 'dot')) {
      const out = renderReport(original(), { format, fold: JDK });
      const text = typeof out === 'string' ? out : gunzipSync(out).toString('latin1');
      expect(text, format).not.toMatch(gone);
      expect(text, format).toContain('Worker');
      let total: number;
      switch (format) {
        case 'text':
          expect(out).toContain('folded       java.**,jdk.**,sun.**: these classes\' frames are removed, their counts charged to the nearest caller kept');
          expect(out).toMatch(/ {2}64\.1% +395 +69\.8% +app\.Main\.work\(\)/);
          total = Number(/counted +(\d+) bytecodes/.exec(out as string)![1]);
          break;
        case 'collapsed':
          total = (out as string).trim().split('\n').reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
          break;
        case 'json': {
          const j = JSON.parse(out as string) as { totals: { counter: number }; tree: { self: number }[]; headers: Record<string, string> };
          expect(j.headers.folded).toBe('java.**,jdk.**,sun.**');
          expect(j.tree.reduce((s, n) => s + n.self, 0)).toBe(j.totals.counter);
          total = j.totals.counter;
          break;
        }
        case 'html': {
          const data = JSON.parse(/<script id="kdata" type="application\/json">([\s\S]*?)<\/script>/.exec(out as string)![1]!) as { self: number[]; total: number[] };
          expect(data.self.reduce((s, c) => s + c, 0)).toBe(data.total[0]);
          total = data.total[0]!;
          break;
        }
        case 'pprof': {
          const pp = PprofProfile.decode(gunzipSync(out as Uint8Array));
          total = pp.sample.reduce((s, x) => s + Number(x.value[0]), 0);
          break;
        }
        case 'callgrind':
          total = Number(/^totals: (\d+)$/m.exec(out as string)![1]);
          break;
        case 'speedscope': {
          const s = JSON.parse(out as string) as { profiles: { weights: number[] }[] };
          total = s.profiles.flatMap((x) => x.weights).reduce((a, b) => a + b, 0);
          break;
        }
      }
      expect(total, format).toBe(616);
    }
  });

  it('folds before --threads split: a thread that starts in the JDK keeps its outermost frame under its root', () => {
    const out = renderReport(original(), { format: 'collapsed', fold: JDK, threads: true }) as string;
    expect(out).toContain('thread_worker-*;java.lang.Thread.run();app.Worker.run() 120\n');
    expect(out).toContain('thread_worker-*;java.lang.Thread.run() 2\n');
    expect(out).toContain('thread_main;app.Main.main(String[]);app.Main.work() 395\n');
    expect(out).not.toMatch(gone);
  });

  it('takes comma-separated or repeated patterns, and refuses an empty one or a format it cannot fold', async () => {
    const one = await runCli(reportCommand as unknown as CommandModule<object, never>, ['report', fixture('jdk-frames.kprof'), '-f', 'collapsed', '--fold', 'java.**,jdk.**']);
    const two = await runCli(reportCommand as unknown as CommandModule<object, never>, ['report', fixture('jdk-frames.kprof'), '-f', 'collapsed', '--fold', 'java.**', '--fold', 'jdk.**']);
    expect(one.error).toBeUndefined();
    expect(one.stdout).toBe(two.stdout);
    expect(one.stdout).toContain('app.Main.main(String[]);app.Main.work() 395');
    const empty = await runCli(reportCommand as unknown as CommandModule<object, never>, ['report', fixture('jdk-frames.kprof'), '--fold', 'java.**,']);
    expect(empty.error).toMatch(/--fold 'java\.\*\*,': give class patterns separated by commas/);
    expect(empty.stdout).toBe('');
  });

  it('the unfolded report of the same profile still shows the JDK frames', () => {
    expect(renderText(original())).toMatch(/java\.util\.Formatter\.format/);
  });
});

describe('report --fold on a real run', () => {
  // The same code path as folding the JDK: a program whose library (package lib) is instrumented with
  // it, then folded. work() pads numbers with lib.Text (line 12) and sorts with lib.Sorter (line 16),
  // whose insert() calls back app.Main$ByValue.compare.
  it('charges the library to the lines of work() that called it, and moves the callback under work()', async () => {
    const work = tmpDir('komorium-fold-');
    javac(join(repoRoot, 'test', 'fixtures', 'fold'), join(work, 'classes'));
    instrument(join(work, 'classes'), join(work, 'instrumented'), ['--checks', 'all']);
    const kprof = join(work, 'fold.kprof');
    const r = await runJava({ cp: [join(work, 'instrumented')], main: 'app.Main', args: ['300'], jvmArgs: ['-Xverify:all', '-Dkomorium.agent=exact', `-Dkomorium.out=${kprof}`, '-Dkomorium.quiet'] });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('2699\n');

    const before = readProfile(kprof);
    const w = node(before, 'app.Main.main;app.Main.work');
    const pad = node(before, 'app.Main.main;app.Main.work;lib.Text.pad');
    const sort = node(before, 'app.Main.main;app.Main.work;lib.Sorter.sort');
    const compare = node(before, 'app.Main.main;app.Main.work;lib.Sorter.sort;lib.Sorter.insert;app.Main$ByValue.compare');
    expect(callsOf(pad)).toEqual([`12=${pad.total}`]);
    expect(callsOf(sort)).toEqual([`16=${sort.total}`]);
    expect(compare.children).toEqual([]);

    const after = parseProfile(writeProfile(foldProfile(before, ['lib.**'])), 'folded.kprof');
    expect(after.totalCounter).toBe(before.totalCounter);
    expect(after.methods.some((m) => m.className.startsWith('lib/'))).toBe(false);
    const fw = node(after, 'app.Main.main;app.Main.work');
    expect(fw.counter).toBe(w.counter + pad.total + sort.total - compare.total);
    expect(fw.total).toBe(w.total);
    const line = (n: ContextNode, l: number) => n.self!.filter((e) => e.line === l).reduce((s, e) => s + e.counter, 0);
    expect(line(fw, 12)).toBe(line(w, 12) + pad.total);
    expect(line(fw, 16)).toBe(line(w, 16) + sort.total - compare.total);
    for (const l of [10, 11, 14, 15]) expect(line(fw, l), `line ${l}`).toBe(line(w, l));
    expect(fw.self!.some((e) => e.line === -1)).toBe(false);
    const fc = node(after, 'app.Main.main;app.Main.work;app.Main$ByValue.compare');
    expect([fc.counter, fc.total]).toEqual([compare.counter, compare.total]);
    expect(callsOf(fc)).toEqual([`16=${compare.total}`]);

    // The CLI, as a user runs it: the hottest line is the sort's call, then the call of the padding.
    const text = cli(['report', kprof, '--fold', 'lib.**', '--lines']);
    expect(text.code, text.stderr).toBe(0);
    const hot = text.stdout.slice(text.stdout.indexOf('Hottest lines')).split('\n');
    expect(hot[2]).toMatch(/ Main\.java:16 +app\.Main\.work\(int\)$/);
    expect(hot[4]).toMatch(/ Main\.java:12 +app\.Main\.work\(int\)$/);
    expect(text.stdout).toContain("folded       lib.**: these classes' frames are removed");
  }, 60_000);
});
