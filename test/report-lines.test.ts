/**
 * Reports of lines and threads: call paths at the lines a stack trace shows, `report --lines`,
 * `--source-path` (counts beside the code), `--threads` (a root per thread name, pools grouped),
 * `--thread` (a filter), the flame graph's tooltip data, and the errors for what a profile lacks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandModule } from 'yargs';
import { reportCommand } from '../src/cli/commands/report.js';
import { parseProfile } from '../src/profile/index.js';
import { flamePayload } from '../src/report/html.js';
import { repoRoot } from './support/java.js';
import { runCli, tempDir } from './fixtures/profiles/harness.js';

const report = (argv: string[]) => runCli(reportCommand as CommandModule<object, never>, ['report', ...argv]);

// main (A.java:11) calls work from line 12; work's samples ran on lines 6 and 7, in three threads.
const PROFILE = [
  'komorium-profile\t2',
  'method\t0\tcom/x/A\tmain\t([Ljava/lang/String;)V\tA.java\t12',
  'method\t1\tcom/x/A\twork\t(I)I\tA.java\t6',
  'section\tkomorium',
  'agent\tsampling',
  'unit\tsamples',
  'granularity\t100',
  'random\t0',
  'seed\t0',
  'totalBytecodes\t10000',
  'threads\t3',
  'truncated\t0',
  'node\t0\t-1\t-1\t0',
  'node\t1\t0\t0\t10',
  'node\t2\t1\t1\t90',
  'thread\t0\tmain',
  'thread\t1\tpool-1-thread-1',
  'thread\t2\tpool-1-thread-2',
  'self\t1\t0\t12\t10',
  'self\t2\t0\t6\t10',
  'self\t2\t1\t7\t50',
  'self\t2\t2\t7\t30',
  'call\t2\t12\t90',
  'end\t22',
  '',
].join('\n');

const dir = tempDir();
const file = join(dir, 'p.kprof');
writeFileSync(file, PROFILE);

describe('lines and threads in reports', () => {
  it('call paths show the line that ran innermost and the line of each call above it', async () => {
    const r = await report([file, '--top', '1']);
    const paths = r.stdout.slice(r.stdout.indexOf('Hottest call paths'));
    expect(paths.split('\n').slice(1, 4)).toEqual(['  #1  90.0%  9,000 bytecodes', '        at com.x.A.work(int) (A.java:7)', '        at com.x.A.main(String[]) (A.java:12)']);
  });

  it('--lines lists the hottest lines', async () => {
    const r = await report([file, '--lines']);
    const section = r.stdout.slice(r.stdout.indexOf('Hottest lines'));
    expect(section.split('\n').slice(0, 5)).toEqual([
      'Hottest lines by self, top 3 of 3:',
      '   self  est. bytecodes  line       method',
      '  80.0%           8,000  A.java:7   com.x.A.work(int)',
      '  10.0%           1,000  A.java:12  com.x.A.main(String[])',
      '  10.0%           1,000  A.java:6   com.x.A.work(int)',
    ]);
  });

  it('--source-path annotates the file found by its package path', async () => {
    const src = join(repoRoot, 'test', 'fixtures', 'lines', 'src');
    const r = await report([file, '--source-path', src]);
    const section = r.stdout.slice(r.stdout.indexOf('-- com/x/A.java'));
    expect(section.split('\n')[0]).toBe(`-- com/x/A.java: 100.0% of the samples (${join(src, 'com', 'x', 'A.java')})`);
    expect(section).toMatch(/\n\s+10\.00%\s+1,000\s+6 {10}int s = 0;\n/);
    expect(section).toMatch(/\n\s+80\.00%\s+8,000\s+7 {10}for \(int i = 0; i < n; i\+\+\) s \+= i;\n/);
    expect(section).toMatch(/\n\s+\.\s+\.\s+8 {10}return s;\n/);
    const missing = await report([file, '--source-path', dir]);
    expect(missing.stdout).toContain(`Not found under ${dir}: com/x/A.java (100.0%)`);
    expect((await report([file, '--source-path', join(dir, 'nope')])).error).toBe(`--source-path ${join(dir, 'nope')}: not a directory`);
  });

  it('--threads puts one root per thread name above the contexts, pools grouped', async () => {
    const r = await report([file, '--threads']);
    const tree = r.stdout.slice(r.stdout.indexOf('Call tree'));
    expect(tree).toMatch(/80\.0%\s+0\.0%\s+├─ thread pool-1-thread-\*\n\s+80\.0%\s+0\.0%\s+│  └─ com\.x\.A\.main/);
    expect(tree).toMatch(/20\.0%\s+0\.0%\s+└─ thread main\n\s+20\.0%\s+10\.0%\s+└─ com\.x\.A\.main/);
  });

  it('--thread keeps the threads a name or pattern matches', async () => {
    const r = await report([file, '--thread', 'pool-1-thread-2', '--format', 'json']);
    const j = JSON.parse(r.stdout);
    expect(j.totals.counter).toBe(30);
    expect(j.totals.bytecodes).toBe(3000);
    expect(j.threads).toBe(1);
    const pool = JSON.parse((await report([file, '--thread', 'pool-*', '--format', 'json'])).stdout);
    expect(pool.totals.counter).toBe(80);
    expect((await report([file, '--thread', 'nobody'])).error).toBe(`${file}: no thread matches --thread nobody (threads: main, pool-1-thread-*)`);
  });

  it('a profile without thread names says so', async () => {
    const plain = join(dir, 'plain.kprof');
    writeFileSync(plain, PROFILE.replace(/^(thread|self|call)\t.*\n/gm, '').replace('end\t22', 'end\t14'));
    expect((await report([plain, '--threads'])).error).toMatch(/the profile records no thread names/);
    expect((await report([plain, '--lines'])).stdout).toContain('The profile records no source lines');
  });

  it('the flame graph carries each context\'s lines for its tooltip', () => {
    const p = parseProfile(PROFILE, 'p.kprof');
    const payload = flamePayload(p);
    expect(payload.lines).toEqual(['', 'self by line: 12 (100.0%)', 'called from line 12\nself by line: 7 (88.9%), 6 (11.1%)']);
  });
});
