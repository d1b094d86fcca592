/**
 * The exports, each read back by the tool people use it with: `go tool pprof` (Debian's golang-go)
 * for pprof, `callgrind_annotate` (Debian's valgrind) for callgrind, and speedscope's published
 * file-format schema (npm speedscope, validated with ajv) for speedscope. Their numbers are checked
 * against `report --format json` of the same profile, a real one: samples/hot (call lines on, the default).
 * The pprof of a call graph (cbs and call-edges of one run of samples/hot) is checked against the
 * text report's edge tables.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

const KOMORIUM_RUN = ['-Dkomorium.granularity=1000', '-Dkomorium.random=100'];

/** samples/`sample` instrumented with `instrumentArgs` and run with `jvmArgs`, in its own folder `dir`: the profile. */
async function profileOf(sample: string, main: string, args: string[], instrumentArgs: string[], jvmArgs = KOMORIUM_RUN, dir = sample): Promise<string> {
  const classes = join(work, dir, 'classes');
  mkdirSync(classes, { recursive: true });
  javac(join(repoRoot, 'samples', sample, 'Main.java'), classes);
  const jar = join(work, dir, 'app.jar');
  await jarDir(classes, jar, { mainClass: main });
  const instrumented = join(work, dir, 'app-komorium.jar');
  instrument(jar, instrumented, instrumentArgs);
  const out = join(work, dir, 'app.kprof');
  const r = await runJava({ cp: [instrumented], main, args, jvmArgs: [`-Dkomorium.out=${out}`, '-Dkomorium.quiet', ...jvmArgs] });
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
    hot = await profileOf('hot', 'Main', ['300000'], []);
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

/** A hand-written profile file: its `end` line counts the lines after the header, as the format asks. */
function handWritten(name: string, lines: string[]): string {
  const data = lines.filter((l) => !l.startsWith('header\t') && !l.startsWith('komorium-profile\t')).length;
  const file = join(work, name);
  writeFileSync(file, [...lines, `end\t${data}`].join('\n') + '\n');
  return file;
}

/** The rows of one section's edge table in `report --top N`: the count, the call site and the method that ran. */
function reportEdges(text: string, kind: string): { count: number; site: string; callee: string }[] {
  const start = text.search(new RegExp(`^${kind}: `, 'm'));
  expect(start, `report has a ${kind} section`).toBeGreaterThanOrEqual(0);
  const section = text.slice(start).split(/\n(?=\S+: )/)[0]!;
  return [...section.matchAll(/^\s+[\d.]+%\s+([\d,]+)\s+(.+?)\s+→\s+(.+)$/gm)].map((m) => ({ count: Number(m[1]!.replace(/,/g, '')), site: m[2]!, callee: m[3]!.trim() }));
}

/** `go tool pprof -top`'s rows: flat count by name. */
function topRows(text: string): { name: string; flat: number }[] {
  return text
    .split('\n')
    .map((l) => /^\s*(\d+)\s+[\d.e+-]+%\s+[\d.e+-]+%\s+\d+\s+[\d.e+-]+%\s+(.+)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ name: m[2]!.trim(), flat: Number(m[1]) }));
}

describe('pprof of a call graph, read back by go tool pprof', () => {
  // One run, two graphs: call-edges counts every call, cbs samples them on its counting trigger (the same graph on every run).
  const CBS = ['-Dkomorium.cbs.trigger=checks', '-Dkomorium.cbs.period=100', '-Dkomorium.cbs.stride=7', '-Dkomorium.cbs.samples=4'];
  const LIMIT = 300000;
  let graph: string;
  beforeAll(async () => {
    graph = await profileOf('hot', 'Main', [String(LIMIT)], ['-q', '--profile', 'cbs,call-edges', '--layout', 'exhaustive'], CBS, 'hot-graph');
  });

  it('-top lists the callees by the calls into them, -traces and -dot the caller → callee edges, as report counts them', () => {
    const file = join(work, 'graph.pb.gz');
    report(graph, ['-o', file]);
    const text = report(graph, ['--top', '1000']);
    const pprof = (args: string[]) => run('go', ['tool', 'pprof', ...args, file], 'Debian package golang-go');
    // Each section is a value column: calls (call-edges, every call counted), sampled_calls (cbs); calls, the first, is the default.
    expect(pprof(['-top'])).toMatch(/^Type: calls$/m);
    for (const [kind, column] of [['call-edges', 'calls'], ['cbs', 'sampled_calls']] as const) {
      const edges = reportEdges(text, kind);
      expect(edges.length, kind).toBeGreaterThan(5);
      const into = new Map<string, number>();
      for (const e of edges) into.set(e.callee, (into.get(e.callee) ?? 0) + e.count);
      const total = edges.reduce((n, e) => n + e.count, 0);

      // -top: every callee with the calls into it (flat), the heaviest first; methods that only call have flat 0.
      const top = pprof(['-top', '-nodecount=1000', '-nodefraction=0', `-sample_index=${column}`]);
      expect(top, kind).toMatch(new RegExp(`^Type: ${column}$`, 'm'));
      expect(top, kind).toContain(`Showing nodes accounting for ${total}, 100% of ${total} total`);
      const rows = topRows(top.slice(top.indexOf('flat%')));
      expect(new Map(rows.filter((r) => r.flat > 0).map((r) => [r.name, r.flat])), kind).toEqual(into);
      const heaviest = [...into].sort((a, b) => b[1] - a[1])[0]!;
      expect([rows[0]!.name, rows[0]!.flat], kind).toEqual(heaviest);

      // -traces: the edge countPrimes → isPrime with report's count, the caller at the line of the call (-lines).
      const edge = edges.find((e) => e.site.startsWith('Main.countPrimes(') && e.callee === 'Main.isPrime(int)')!;
      expect(edge, kind).toBeDefined();
      if (kind === 'call-edges') expect(edge.count).toBe(LIMIT); // isPrime(n) for every n below the limit
      const callLine = /Main\.java:(\d+)/.exec(edge.site)![1];
      const traces = pprof(['-traces', '-lines', `-sample_index=${column}`]);
      expect(traces, kind).toMatch(new RegExp(`\\n\\s+${edge.count}\\s+Main\\.isPrime\\(int\\) Main\\.java:\\d+\\n\\s+Main\\.countPrimes\\(int\\) Main\\.java:${callLine}\\n-`));
      // -dot: the same edge with its count, as -web draws it.
      expect(pprof(['-dot', `-sample_index=${column}`]), kind).toContain(`tooltip="Main.countPrimes(int) -> Main.isPrime(int) (${edge.count})"`);
    }
  });

  it("a file with Komorium's samples and a call graph: each in its own columns, zero in the other's; one without either is refused", () => {
    const both = handWritten('both.kprof', [
      'komorium-profile\t2',
      'header\tjvm\thand-written',
      'method\t0\tcom/foo/Main\tmain\t([Ljava/lang/String;)V\tMain.java\t5',
      'method\t1\tcom/foo/Main\twork\t()V\tMain.java\t10',
      'site\t0\t0\t3\t6\tinvokestatic\tcom/foo/Main\twork\t()V',
      ...['section\tkomorium', 'agent\tsampling', 'unit\tsamples', 'granularity\t10000', 'random\t0', 'seed\t42', 'totalBytecodes\t100000', 'threads\t1', 'truncated\t0'],
      ...['node\t0\t-1\t-1\t0', 'node\t1\t0\t0\t2', 'node\t2\t1\t1\t8'],
      ...['section\tcall-edges', 'layout\texhaustive', 'interval\t1', 'random\t0', 'seed\t0', 'samples\t0', 'edge\t0\t1\t7'],
    ]);
    const file = join(work, 'both.pb.gz');
    report(both, ['-o', file]);
    const top = (column: string) => topRows(run('go', ['tool', 'pprof', '-top', '-nodefraction=0', `-sample_index=${column}`, file], 'golang-go'));
    // Komorium's default stays bytecodes.
    expect(run('go', ['tool', 'pprof', '-top', file], 'golang-go')).toMatch(/^Type: bytecodes$/m);
    expect(top('samples')).toEqual([{ name: 'com.foo.Main.work()', flat: 8 }, { name: 'com.foo.Main.main(String[])', flat: 2 }]);
    expect(top('calls')).toEqual([{ name: 'com.foo.Main.work()', flat: 7 }, { name: 'com.foo.Main.main(String[])', flat: 0 }]);

    const fields = handWritten('fields.kprof', [
      'komorium-profile\t2',
      'header\tjvm\thand-written',
      'method\t0\tcom/foo/Main\tmain\t([Ljava/lang/String;)V\tMain.java\t5',
      'site\t0\t0\t3\t6\tgetstatic\tcom/foo/Main\tx\tI',
      ...['section\tfield-access', 'layout\texhaustive', 'interval\t1', 'random\t0', 'seed\t0', 'samples\t0', 'access\t0\t7'],
    ]);
    expect(cli(['report', fields, '--top', '1']).code).toBe(0);
    const out = join(work, 'fields.pb.gz');
    const r = cli(['report', fields, '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/fields\.kprof: --format pprof exports Komorium's samples or a call graph \(a call-edges, call-pairs or cbs section\), and this profile holds field-access/);
    expect(existsSync(out)).toBe(false);
  });
});
