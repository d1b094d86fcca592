/**
 * The exports, each read back by the tool people use it with: `go tool pprof` (Debian's golang-go)
 * for pprof, `callgrind_annotate` (Debian's valgrind) for callgrind, and speedscope's published
 * file-format schema (npm speedscope, validated with ajv) for speedscope. Their numbers are checked
 * against `report --format json` of the same profile, a real one: samples/hot with --call-lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { javac, jarDir, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';
import { npmInputDir } from './support/npm-inputs.js';

const work = tmpDir('komorium-exports-');

interface JsonMethod {
  name: string;
  self: number;
  total: number;
  selfBytecodes: number;
  totalBytecodes: number;
}

function run(cmd: string, args: string[], hint: string): string {
  const env = { ...process.env, HOME: work, GOCACHE: join(work, 'gocache'), GOPATH: join(work, 'gopath') };
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, cwd: work, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`cannot run ${cmd} (${hint}, installed by scripts/install-deps.sh): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

function report(profile: string, args: string[]): string {
  const r = cli(['report', profile, ...args]);
  if (r.code !== 0) throw new Error(`report ${args.join(' ')} failed (exit ${r.code}): ${r.stderr}`);
  return r.stdout;
}

async function profileOf(sample: string, main: string, args: string[], instrumentArgs: string[]): Promise<string> {
  const classes = join(work, sample, 'classes');
  mkdirSync(classes, { recursive: true });
  javac(join(repoRoot, 'samples', sample, 'Main.java'), classes);
  const jar = join(work, sample, 'app.jar');
  await jarDir(classes, jar, { mainClass: main });
  const instrumented = join(work, sample, 'app-komorium.jar');
  instrument(jar, instrumented, instrumentArgs);
  const out = join(work, sample, 'app.kprof');
  const r = await runJava({ cp: [instrumented], main, args, jvmArgs: [`-Dkomorium.out=${out}`, '-Dkomorium.quiet', '-Dkomorium.granularity=1000', '-Dkomorium.random=100'] });
  expect(r.code, r.stderr).toBe(0);
  return out;
}

/** `report --format json`'s methods by display name. */
function methodsOf(profile: string): { methods: Map<string, JsonMethod>; counter: number; bytecodes: number } {
  const j = JSON.parse(report(profile, ['--format', 'json']));
  return { methods: new Map((j.methods as JsonMethod[]).map((m) => [m.name, m])), counter: j.totals.counter, bytecodes: j.totals.bytecodes };
}

describe('exports read back by their consumers', () => {
  let hot: string;
  let threads: string;
  beforeAll(async () => {
    hot = await profileOf('hot', 'Main', ['300000'], ['--call-lines']);
    threads = await profileOf('threads', 'Main', [], []);
  });

  it('pprof: go tool pprof -top gives report\'s self and total per method, -traces its call paths and threads', () => {
    const file = join(work, 'hot.pb.gz');
    report(hot, ['-o', file]);
    const { methods, counter } = methodsOf(hot);
    // -sample_index=samples: the integer sample counts, which the report has exactly.
    const top = run('go', ['tool', 'pprof', '-top', '-nodecount=100', '-sample_index=samples', file], 'Debian package golang-go');
    expect(top).toContain(`Showing nodes accounting for ${counter}, 100% of ${counter} total`);
    const rows = top
      .split('\n')
      .map((l) => /^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({ flat: Number(m[1]), cum: Number(m[2]), name: m[3]!.trim() }));
    expect(rows.length).toBe(methods.size);
    for (const r of rows) {
      const m = methods.get(r.name);
      expect(m, r.name).toBeDefined();
      expect([r.name, r.flat, r.cum]).toEqual([r.name, m!.self, m!.total]);
    }
    // Sorted the same way: the hottest method by self first.
    const bySelf = [...methods.values()].sort((a, b) => b.self - a.self);
    expect(rows[0]!.name).toBe(bySelf[0]!.name);
    expect(rows[0]!.name).toBe('Main.isPrime(int)');

    // The default sample type is bytecodes: the report's estimate, to rounding per stack.
    const bytecodes = run('go', ['tool', 'pprof', '-top', file], 'golang-go');
    expect(bytecodes).toMatch(/^Type: bytecodes$/m);
    const isPrime = /^\s*(\d+)\s.*Main\.isPrime\(int\)$/m.exec(bytecodes)!;
    expect(Math.abs(Number(isPrime[1]) - methods.get('Main.isPrime(int)')!.selfBytecodes)).toBeLessThan(20);

    // -traces: each stack innermost first, with the thread label; -lines: the line that ran.
    const traces = run('go', ['tool', 'pprof', '-traces', '-sample_index=samples', file], 'golang-go');
    expect(traces).toMatch(/thread:\s+main\n\s+\d+\s+Main\.isPrime\(int\)\n\s+Main\.countPrimes\(int\)\n\s+Main\.main\(String\[\]\)\n/);
    const lines = run('go', ['tool', 'pprof', '-top', '-lines', '-sample_index=samples', file], 'golang-go');
    const hottestLine = /^\s*\d+\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.+)$/m.exec(lines.slice(lines.indexOf('flat%')))![1]!;
    const reportLines = report(hot, ['--lines', '--top', '1']);
    const first = /Hottest lines by self[^\n]*\n[^\n]*\n\s+[\d.]+%\s+[\d,]+\s+(\S+)\s+(.+)\n/.exec(reportLines)!;
    expect(hottestLine).toBe(`${first[2]} ${first[1]}`);
  });

  it('callgrind: callgrind_annotate shows report\'s self and inclusive samples, and annotates the source', () => {
    const file = join(work, 'callgrind.out.hot');
    report(hot, ['-o', file]);
    const { methods, counter, bytecodes } = methodsOf(hot);
    // [uninstrumented], the frames between a call-out and its callback, has no source file: `???`.
    const parse = (text: string) =>
      new Map(
        text
          .split('\n')
          .map((l) => /^\s*([\d,]+) \(\s*[\d.]+%\)\s+([\d,]+) \(\s*[\d.]+%\)\s+(?:Main\.java|\?\?\?):(.+)$/.exec(l))
          .filter((m) => m !== null)
          .map((m) => [m[3]!, { bytecodes: Number(m[1]!.replace(/,/g, '')), samples: Number(m[2]!.replace(/,/g, '')) }]),
      );
    const self = run('callgrind_annotate', ['--threshold=100', file], 'Debian package valgrind');
    const totals = /^\s*([\d,]+) \(100\.0%\)\s+([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS$/m.exec(self)!;
    expect(Number(totals[2]!.replace(/,/g, ''))).toBe(counter);
    expect(Math.abs(Number(totals[1]!.replace(/,/g, '')) - bytecodes)).toBeLessThan(50);
    const selfRows = parse(self);
    const withSelf = [...methods.values()].filter((m) => m.self > 0);
    expect(selfRows.size).toBe(withSelf.length);
    // callgrind names carry no blanks: `lambda$sortWords$0(String,String)`.
    for (const m of withSelf) expect([m.name, selfRows.get(m.name.replace(/, /g, ','))?.samples]).toEqual([m.name, m.self]);

    const inclusive = parse(run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], 'valgrind'));
    for (const m of methods.values()) expect([m.name, inclusive.get(m.name.replace(/, /g, ','))?.samples]).toEqual([m.name, m.total]);

    const annotated = run('callgrind_annotate', ['--auto=yes', `--include=${join(repoRoot, 'samples', 'hot')}`, file], 'valgrind');
    // The loop of isPrime, line 17, with its samples beside it.
    const isPrimeLine = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+([\d,]+) \(\s*[\d.]+%\)\s+for \(int d = 3; d \* d <= n; d \+= 2\) \{$/m.exec(annotated);
    expect(isPrimeLine, annotated.slice(0, 3000)).not.toBeNull();
    const fromReport = /^\s*([\d.]+)%\s+[\d,]+\s+Main\.java:17\s/m.exec(report(hot, ['--lines']))!;
    expect((100 * Number(isPrimeLine![2]!.replace(/,/g, ''))) / counter).toBeCloseTo(Number(fromReport[1]), 1);
  });

  it('speedscope: valid against speedscope\'s schema, one profile per thread group, weights summing to the samples', () => {
    const schema = JSON.parse(readFileSync(join(npmInputDir('speedscope'), 'dist', 'release', 'file-format-schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    // The schema does reject what speedscope would not open.
    expect(validate({ $schema: 'https://www.speedscope.app/file-format-schema.json', shared: { frames: [{}] }, profiles: [] })).toBe(false);
    for (const [profile, name] of [[hot, 'hot'], [threads, 'threads']] as const) {
      const file = join(work, `${name}.speedscope.json`);
      report(profile, ['-o', file]);
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
      const { counter } = methodsOf(profile);
      const weights = (doc.profiles as { weights: number[] }[]).flatMap((p) => p.weights);
      expect(weights.reduce((a, b) => a + b, 0)).toBe(counter);
    }
    const doc = JSON.parse(readFileSync(join(work, 'threads.speedscope.json'), 'utf8'));
    const names = (doc.profiles as { name: string }[]).map((p) => p.name);
    // Busiest first: the four collatz workers (worker-1, worker-50001, …), then the pool's three threads, grouped by pattern.
    expect(names[0]).toBe('worker-* (samples)');
    expect(names).toContain('pool-1-thread-* (samples)');
    const frames = doc.shared.frames as { name: string; file?: string; line?: number }[];
    expect(frames).toContainEqual({ name: 'Main.collatzSteps(long)', file: 'Main.java', line: 18 });
    // Every sample's frames exist.
    for (const p of doc.profiles as { samples: number[][] }[]) for (const s of p.samples) for (const f of s) expect(frames[f]).toBeDefined();
  });
});
