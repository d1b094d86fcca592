import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandModule } from 'yargs';
import { mergeCommand } from '../src/cli/commands/merge.js';
import { reportCommand } from '../src/cli/commands/report.js';
import { readProfile, type MethodEntry } from '../src/profile/index.js';
import { collapsedFrame, javaParams, methodMatcher, methodName, renderCollapsed, renderJson, renderText, type JsonReport } from '../src/report/index.js';
import { fixture, runCli, tempDir } from './fixtures/profiles/harness.js';

const method = (className: string, name: string, descriptor: string): MethodEntry => ({ id: 0, className, name, descriptor, source: '', line: -1, key: '' });

describe('Java-like names', () => {
  it('converts descriptors', () => {
    expect(methodName(method('com/foo/Bar', 'baz', '(ILjava/lang/String;)V'))).toBe('com.foo.Bar.baz(int, String)');
    expect(methodName(method('com/foo/Bar', 'baz', '([I[[Ljava/util/List;JZ)[B'))).toBe('com.foo.Bar.baz(int[], List[][], long, boolean)');
    expect(methodName(method('com/foo/Bar', 'baz', '(Ljava/util/List;)V'), { qualifiedParams: true })).toBe('com.foo.Bar.baz(java.util.List)');
    expect(methodName(method('com/foo/Bar$Inner', '<init>', '(Lcom/foo/Bar;)V'))).toBe('com.foo.Bar$Inner.<init>(Bar)');
    // java.lang's subpackages keep their package: only java.lang.* itself is implicit in Java source.
    expect(javaParams('(Ljava/lang/reflect/Method;Ljava/lang/Object;)V')).toEqual(['Method', 'Object']);
    expect(javaParams('(Ljava/lang/reflect/Method;)V', true)).toEqual(['java.lang.reflect.Method']);
    expect(methodName(method('com/foo/Bar', 'baz', '(ILjava/lang/String;)V'), { rawDescriptors: true })).toBe('com/foo/Bar.baz(ILjava/lang/String;)V');
    // A malformed descriptor is shown as it is rather than guessed at.
    expect(methodName(method('A', 'b', '(Lfoo)V'))).toBe('A.b(Lfoo)V');
    expect(methodName(method('<truncated>', '<truncated>', '()V'))).toBe('<truncated stack>');
  });

  it('matches --method patterns against every spelling', () => {
    const m = method('com/foo/Parser', 'parse', '(ILjava/lang/String;)Ljava/util/List;');
    for (const p of ['com.foo.Parser.*', '*.parse', 'com.foo.Parser.parse', 'com.foo.Parser.parse(int, String)', 'com/foo/Parser.parse(ILjava/lang/String;)*', '*Parser*']) {
      expect(methodMatcher(p)(m), p).toBe(true);
    }
    for (const p of ['parse', 'com.foo.Parser', '*.parseAll', 'com.foo.P.parse']) expect(methodMatcher(p)(m), p).toBe(false);
  });
});

describe('text report', () => {
  const text = renderText(readProfile(fixture('simple.kprof')));

  it('has a header block', () => {
    expect(text).toContain('agent        sampling');
    expect(text).toContain('granularity  10,000 + random [0, 100) bytecodes per sample, seed 42');
    expect(text).toContain('bytecodes    1,000,000 (estimated), 1 thread');
    expect(text).toContain('samples      100');
  });

  it('lists the hottest method by self first, with Java-like names, source and estimated bytecodes', () => {
    const section = text.slice(text.indexOf('Hottest methods by self'));
    const rows = section.split('\n').slice(2, 7);
    expect(rows[0]).toMatch(/^\s+60\.0%\s+600,000\s+65\.0%\s+com\.foo\.Util\.sum\(int\[\]\) \(Util\.java:3\)$/);
    expect(rows[1]).toContain('java.lang.String.hashCode()');
    expect(rows[2]).toContain('com.foo.Parser.parse(int, String) (Parser.java:14)');
    expect(text.slice(text.indexOf('Hottest methods by total')).split('\n')[2]).toMatch(/100\.0%\s+1,000,000\s+2\.0%\s+com\.foo\.Main\.main\(String\[\]\)/);
  });

  it('shows the hottest call paths innermost first', () => {
    const section = text.slice(text.indexOf('Hottest call paths'));
    // This profile records no lines: a frame names its file only, not the method's first line,
    // which a stack trace would read as the line that ran.
    expect(section.split('\n').slice(1, 5)).toEqual([
      '  #1  50.0%  500,000 bytecodes',
      '        at com.foo.Util.sum(int[]) (Util.java)',
      '        at com.foo.Parser.parse(int, String) (Parser.java)',
      '        at com.foo.Main.main(String[]) (Main.java)',
    ]);
  });

  it('prints the call tree with --threshold and --depth', () => {
    expect(text).toContain('   55.0%  50.0%     │  ├─ com.foo.Util.sum(int[]) (Util.java)');
    const pruned = renderText(readProfile(fixture('simple.kprof')), { threshold: 6 });
    const tree = pruned.slice(pruned.indexOf('Call tree'));
    expect(tree).not.toContain('Parser.<init>');
    expect(tree).toContain('… 1 more context, 3.0% together');
    expect(tree).toContain('└─ … 1 more context, 5.0% together'); // hashCode under sum
    const shallow = renderText(readProfile(fixture('simple.kprof')), { depth: 1 });
    expect(shallow.slice(shallow.indexOf('Call tree'))).toContain('└─ … 3 more contexts, 98.0% together');
  });

  it('--top limits the lists; --raw-descriptors shows class-file names', () => {
    const t = renderText(readProfile(fixture('simple.kprof')), { top: 1, rawDescriptors: true });
    expect(t).toContain('top 1 of 5');
    expect(t).toContain('com/foo/Util.sum([I)J (Util.java:3)');
    expect(t).not.toContain('#2 ');
  });

  it('handles an empty profile and the exact agent', () => {
    expect(renderText(readProfile(fixture('empty.kprof')))).toContain('The profile holds no samples');
    expect(renderText(readProfile(fixture('exact.kprof')))).toContain('counted      1,000 bytecodes (exact)');
  });
});

describe('collapsed stacks', () => {
  it('writes root-first folded lines', () => {
    const lines = renderCollapsed(readProfile(fixture('simple.kprof'))).trimEnd().split('\n');
    expect(lines).toEqual([
      'com.foo.Main.main(String[]) 2',
      'com.foo.Main.main(String[]);com.foo.Parser.<init>() 3',
      'com.foo.Main.main(String[]);com.foo.Parser.parse(int,String) 10',
      'com.foo.Main.main(String[]);com.foo.Parser.parse(int,String);com.foo.Util.sum(int[]) 50',
      'com.foo.Main.main(String[]);com.foo.Parser.parse(int,String);com.foo.Util.sum(int[]);java.lang.String.hashCode() 5',
      'com.foo.Main.main(String[]);com.foo.Parser.parse(int,String);java.lang.String.hashCode() 20',
      'com.foo.Main.main(String[]);com.foo.Util.sum(int[]) 10',
    ]);
  });

  it('can count estimated bytecodes', () => {
    const lines = renderCollapsed(readProfile(fixture('simple.kprof')), { value: 'bytecodes' }).trimEnd().split('\n');
    expect(lines[0]).toBe('com.foo.Main.main(String[]) 20000');
    expect(lines.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)).toBe(1_000_000);
  });

  it('keeps every line parseable by flamegraph.pl and speedscope, whatever the names', () => {
    for (const raw of [false, true]) {
      const out = renderCollapsed(readProfile(fixture('hostile.kprof')), { rawDescriptors: raw });
      const lines = out.trimEnd().split('\n');
      expect(lines).toHaveLength(5);
      for (const l of lines) {
        // No separator inside a frame, a single space before the count, no line break in a name.
        expect(l).toMatch(/^[^;\s]+(;[^;\s]+)* \d+$/);
      }
    }
    expect(collapsedFrame('com/foo/Bar.baz(ILjava/lang/String;)V')).toBe('com/foo/Bar.baz(ILjava/lang/String:)V');
  });
});

describe('JSON report', () => {
  it('holds methods, tree and totals', () => {
    const j = JSON.parse(renderJson(readProfile(fixture('simple.kprof')))) as JsonReport;
    expect(j.format).toBe('komorium-report');
    expect(j.totals).toEqual({ bytecodes: 1_000_000, counter: 100 });
    expect(j.seed).toBe('42');
    expect(j.headers.os).toBe('Linux amd64');
    const sum = j.methods.find((m) => m.method === 'sum')!;
    expect(sum).toMatchObject({ name: 'com.foo.Util.sum(int[])', class: 'com/foo/Util', descriptor: '([I)J', source: 'Util.java:3', self: 60, total: 65, selfShare: 0.6, selfBytecodes: 600_000, totalBytecodes: 650_000 });
    expect(j.tree).toHaveLength(8);
    expect(j.tree[0]).toEqual({ id: 0, parent: -1, method: -1, depth: 0, self: 0, total: 100, selfBytecodes: 0, totalBytecodes: 1_000_000 });
    expect(j.tree[4]).toMatchObject({ parent: 3, method: sum.id, self: 50, total: 55 });
  });
});

describe('report and merge commands', () => {
  it('report prints text by default and picks the format from -o', async () => {
    const r = await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('simple.kprof'), '--top', '3']);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain('Hottest methods by self');
    const dir = tempDir();
    for (const [file, check] of [
      ['flame.html', (s: string) => s.startsWith('<!DOCTYPE html>')],
      ['r.json', (s: string) => JSON.parse(s).format === 'komorium-report'],
      ['r.folded', (s: string) => s.startsWith('com.foo.Main.main(String[]) 2\n')],
    ] as const) {
      const out = join(dir, file);
      const res = await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('simple.kprof'), '-o', out]);
      expect(res.error).toBeUndefined();
      expect(check(readFileSync(out, 'utf8')), file).toBe(true);
    }
    const c = await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('simple.kprof'), '--format', 'collapsed', '--value', 'bytecodes']);
    expect(c.stdout.split('\n')[0]).toBe('com.foo.Main.main(String[]) 20000');
  });

  it('report turns bad input into KomoriumErrors', async () => {
    expect((await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('truncated.kprof')])).error).toMatch(/truncated\.kprof:24:/);
    expect((await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('simple.kprof'), '--threshold', 'lots'])).error).toBe(
      '--threshold expects a percentage between 0 and 100 such as 5 or 5%, got "lots"',
    );
    expect((await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('simple.kprof'), '--top', '0'])).error).toMatch(/--top expects a whole number/);
    expect((await runCli(reportCommand as CommandModule<object, never>, ['report', fixture('simple.kprof'), '--format', 'svg'])).error).toMatch(/Invalid values/);
  });

  it('merge writes the merged profile', async () => {
    const out = join(tempDir(), 'whole.kprof');
    const r = await runCli(mergeCommand as CommandModule<object, never>, ['merge', fixture('half1.kprof'), fixture('half2.kprof'), '-o', out]);
    expect(r.error).toBeUndefined();
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(fixture('whole.kprof'), 'utf8'));
    expect(r.stdout).toBe(`merged 2 profiles into ${out}: 100 samples, 1,000,000 bytecodes, 7 calling contexts\n`);
    const bad = await runCli(mergeCommand as CommandModule<object, never>, ['merge', fixture('simple.kprof'), fixture('exact.kprof'), '-o', out]);
    expect(bad.error).toMatch(/only profiles of the same agent can be merged/);
    expect((await runCli(mergeCommand as CommandModule<object, never>, ['merge', fixture('simple.kprof')])).error).toMatch(/Missing required argument: output/);
  });
});
