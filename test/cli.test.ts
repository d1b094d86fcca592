/**
 * The command line as a build sees it: help that reads well, exit codes (0 success, 1 a failed diff
 * gate, 2 bad input or usage), plain output through a pipe, and reproducible output bytes.
 * Everything runs the real bin/komorium-ts.js over dist/ (built by `npm test`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/komorium.js';
import { jarDir, javac, repoRoot, tmpDir } from './support/java.js';

const COMMANDS = ['instrument', 'instrument-jdk', 'run', 'report', 'diff', 'merge', 'baseline', 'inspect'];
const ESC = '\x1b';
const profiles = join(repoRoot, 'test', 'fixtures', 'profiles');

/** A jar of `count` small classes and a main that uses them all: enough classes for the progress bar. */
async function manyClassesJar(dir: string, count: number): Promise<string> {
  const src = join(dir, 'src', 'many');
  mkdirSync(src, { recursive: true });
  const calls: string[] = [];
  for (let i = 0; i < count; i++) {
    writeFileSync(
      join(src, `C${i}.java`),
      `package many;\npublic class C${i} {\n  public static int f(int x) {\n    int s = 0;\n    for (int k = 0; k < x; k++) s += k ^ ${i};\n    return s;\n  }\n}\n`,
    );
    calls.push(`    sum += C${i}.f(${i % 50});`);
  }
  writeFileSync(
    join(src, 'Main.java'),
    `package many;\npublic class Main {\n  public static void main(String[] args) {\n    long sum = 0;\n${calls.join('\n')}\n    System.out.println("sum " + sum);\n  }\n}\n`,
  );
  const classes = join(dir, 'classes');
  mkdirSync(classes);
  javac(join(dir, 'src'), classes);
  const jar = join(dir, 'many.jar');
  await jarDir(classes, jar, { mainClass: 'many.Main' });
  return jar;
}

describe('komorium-ts command line', () => {
  let work: string;
  let jar: string;
  beforeAll(async () => {
    work = tmpDir('komorium-cli-');
    jar = await manyClassesJar(work, 220);
  });
  afterAll(() => {
    if (!process.env.KOMORIUM_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  });

  it('--help lists every command, the workflow and the exit codes', () => {
    const r = cli(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(`komorium-ts ${c} `);
    expect(r.stdout).toContain('java -Dkomorium.out=app.kprof -jar app-komorium.jar');
    expect(r.stdout).toMatch(/Exit codes: 0 success; 1 a gate failed .*; 2 bad input or usage/);
    expect(r.stdout + r.stderr).not.toContain(ESC);
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it.each(COMMANDS)('%s --help shows its usage, options and examples', (command) => {
    const r = cli([command, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^komorium-ts ${command}\\b`));
    expect(r.stdout).toContain('Options:');
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).not.toContain(ESC);
    // Every option says what it does.
    const options = r.stdout.slice(r.stdout.indexOf('Options:'), r.stdout.indexOf('Examples:'));
    for (const m of options.matchAll(/^ {2}(?:-\w, )? *(--[\w-]+)(?:, --[\w-]+)?( +)(\S.*)?$/gm)) {
      expect(m[3] ?? '', `${command} ${m[1]} has no description`).not.toMatch(/^\[/);
    }
  });

  it("--version prints komorium-ts's version, not that of the project it runs in", () => {
    writeFileSync(join(work, 'package.json'), '{"name": "users-project", "version": "9.9.9"}\n');
    const r = cli(['--version'], { cwd: work });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  });

  it('usage errors exit 2 with one message on stderr that names the problem', () => {
    const cases: [string[], RegExp][] = [
      [['instrument', jar, '--bogus'], /^komorium-ts: unknown option --bogus\nRun 'komorium-ts instrument --help' for usage\.\n$/],
      [['report', 'x.kprof', '--formt=json'], /unknown option --formt\b/],
      [['instrumnt', jar], /unknown command 'instrumnt'\. Did you mean instrument\?/],
      [['frobnicate'], new RegExp(`unknown command 'frobnicate' \\(commands: ${COMMANDS.join(', ')}\\)`)],
      [['instrument'], /missing arguments: komorium-ts instrument <inputs\.\.> \[options\]/],
      [['diff', 'a.kprof'], /missing arguments: komorium-ts diff <a> <b>/],
      [['report', 'a.kprof', 'b.kprof'], /unexpected argument b\.kprof/],
      [['report', 'a.kprof', '--format', 'xml'], /format.*"xml"/s],
      [['instrument', jar, '--max-path', '-1'], /--max-path must be a whole number >= 0/],
      [[], /Name a command/],
      [['--', 'instrument', jar], /no command ran for: -- instrument/],
    ];
    for (const [args, message] of cases) {
      const r = cli(args, { cwd: work });
      expect(r.code, `komorium-ts ${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/^\s+at /m); // no stack trace for the user's mistake
      expect(r.stdout).toBe('');
    }
  });

  it('a missing input exits 2 and names the file, for every command that reads one', () => {
    const missing = join(work, 'no-such-file');
    const cases: string[][] = [
      ['instrument', `${missing}.jar`, '-o', join(work, 'out.jar')],
      ['run', `${missing}.jar`],
      ['inspect', `${missing}.jar`],
      ['report', `${missing}.kprof`],
      ['diff', `${missing}.kprof`, join(profiles, 'simple.kprof')],
      ['merge', `${missing}.kprof`, '-o', join(work, 'merged.kprof')],
    ];
    for (const args of cases) {
      const r = cli(args, { cwd: work });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^komorium-ts: .*${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
    expect(existsSync(join(work, 'out.jar'))).toBe(false);
    expect(existsSync(join(work, 'merged.kprof'))).toBe(false);
  });

  it('a failed diff gate exits 1, a passed one 0', () => {
    const simple = join(profiles, 'simple.kprof');
    const failed = cli(['diff', simple, join(profiles, 'grown.kprof'), '--max-growth', '1%']);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(/FAIL .*--max-growth/);
    const passed = cli(['diff', simple, simple, '--fail-under', '99', '--max-growth', '1%']);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout + passed.stderr + failed.stdout + failed.stderr).not.toContain(ESC);
  });

  it('through a pipe there are no escape codes or progress bar; on a terminal the bar shows', () => {
    const piped = cli(['instrument', jar, '-o', join(work, 'piped.jar')], { env: { CI: '', TERM: 'xterm' } });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^instrumented .*many\.jar -> .*piped\.jar\n {2}classes {3}221 /);
    expect(piped.stdout + piped.stderr).not.toContain(ESC);
    expect(piped.stdout + piped.stderr).not.toContain('\r');
    expect(piped.stderr).toBe('');

    // The same command on a pseudo-terminal (util-linux `script`) draws the bar: the pipe test is not vacuous.
    const bin = join(repoRoot, 'bin', 'komorium-ts.js');
    const command = [process.execPath, bin, 'instrument', jar, '-o', join(work, 'tty.jar')].map((a) => `'${a}'`).join(' ');
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
    delete env.CI;
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env, timeout: 120_000 });
    if (tty.error) throw new Error(`cannot run script(1) from util-linux: ${tty.error.message}`);
    expect(tty.status, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/instrumenting \[#+ *\] \d+% \(\d+\/221\)/);
    expect(tty.stdout).toContain(`\r${ESC}[K`);
  });

  it('the same jar and options give the same bytes, whatever the time zone, folder and output name', () => {
    const jars = [jar, '/usr/share/java/commons-lang3.jar'];
    for (const input of jars) {
      expect(existsSync(input), `${input} (scripts/install-deps.sh installs it)`).toBe(true);
      const a = join(work, 'repro-a', 'out.jar');
      const b = join(work, 'repro-b', 'other-name.jar');
      mkdirSync(join(work, 'repro-a'), { recursive: true });
      mkdirSync(join(work, 'repro-b'), { recursive: true });
      const ra = cli(['instrument', input, '-o', a, '-q'], { env: { TZ: 'UTC' } });
      const rb = cli(['instrument', input, '-o', b, '-q'], { env: { TZ: 'Asia/Tokyo' }, cwd: join(work, 'repro-b') });
      expect(ra.code, ra.stderr).toBe(0);
      expect(rb.code, rb.stderr).toBe(0);
      const bytesA = readFileSync(a);
      const bytesB = readFileSync(b);
      expect(bytesA.length).toBeGreaterThan(0);
      expect(bytesB.equals(bytesA), `${input}: instrumenting twice gave different bytes`).toBe(true);
    }
  });

  // The in-process reference takes its options from the CLI's own instrumentMode, flag for flag, so
  // that a changed default (call lines on, say) cannot leave the reference on the old one.
  it.each([
    ['--no-call-lines', false],
    ['--call-lines', true],
  ] as const)('worker threads give the bytes the single-threaded path gives (%s)', async (flag, callLines) => {
    // commons-lang3 has 486 classes: above the 300 from which KOMORIUM_WORKERS starts workers.
    const input = '/usr/share/java/commons-lang3.jar';
    expect(existsSync(input), `${input} (scripts/install-deps.sh installs it)`).toBe(true);
    const name = (x: string) => join(work, `threads-${x}${callLines ? '-lines' : ''}.jar`);
    const outs = { cli: name('a'), rewriteWorkers: name('b'), inProcess: name('c') };
    const ra = cli(['instrument', input, '-o', outs.cli, '-q', '--no-cache', flag], { env: { KOMORIUM_WORKERS: '1' } });
    const rb = cli(['instrument', input, '-o', outs.rewriteWorkers, '-q', '--no-cache', flag], { env: { KOMORIUM_WORKERS: '2' } });
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    // From TypeScript sources no worker can start: everything runs on this thread.
    const { instrumentProgram } = await import('../src/instrument/program.js');
    const { instrumentMode } = await import('../src/cli/commands/instrument.js');
    await instrumentProgram({
      input,
      output: outs.inProcess,
      classpath: [],
      include: [],
      exclude: [],
      skipBroken: false,
      mode: instrumentMode({
        profile: ['komorium'],
        trigger: 'global',
        checks: 'optimized',
        'max-path': 50,
        'leaf-opt': true,
        callbacks: true,
        counter: 'field',
        'call-lines': callLines,
      }),
    });
    const reference = readFileSync(outs.inProcess);
    for (const [how, path] of Object.entries(outs)) expect(readFileSync(path).equals(reference), how).toBe(true);
  });
});
