/**
 * What a new user runs into in the first hour (issue 24): program arguments through `run`, a
 * profile that this run did not write, output piped into `head`, and `inspect -m` of a method that
 * is not there or that instrumentation turned into a wrapper. Each runs the real CLI and a real JVM.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, instrument } from './support/komorium.js';
import { jarDir, javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { readProfile } from '../src/profile/read.js';

const ECHO = `package echo;
public class Echo {
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("halt")) Runtime.getRuntime().halt(0); // no shutdown hooks: as if killed
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 2000; i++) sb.append(i % 7);
    System.out.println("args=" + java.util.Arrays.toString(args) + " " + sb.length());
    if (args.length > 0 && args[0].equals("fail")) System.exit(3);
  }
}
`;

/** Runs the CLI with a reader that has already gone, as `| head -1` is once it has its line. */
function cliIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'komorium-ts.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a new user', () => {
  let work: string;
  let jar: string;
  beforeAll(async () => {
    work = tmpDir('komorium-new-user-');
    mkdirSync(join(work, 'src', 'echo'), { recursive: true });
    writeFileSync(join(work, 'src', 'echo', 'Echo.java'), ECHO);
    mkdirSync(join(work, 'classes'));
    javac(join(work, 'src'), join(work, 'classes'));
    jar = join(work, 'echo.jar');
    await jarDir(join(work, 'classes'), jar, { mainClass: 'echo.Echo' });
  });

  it('run passes every argument after -- to the program, dashes included', () => {
    const r = cli(['run', jar, '-o', join(work, 'args.kprof'), '--', 'x', '-y', '--z=1']);
    expect(r.stderr).not.toMatch(/unknown option/);
    expect(r.stdout).toContain('args=[x, -y, --z=1] 2000');
    expect(r.code).toBe(0);
    const plain = cli(['run', jar, '-o', join(work, 'args.kprof'), 'a', 'b']);
    expect(plain.stdout).toContain('args=[a, b] 2000');
    const dash = cli(['run', jar, 'x', '-y']);
    expect(dash.code).toBe(2);
    expect(dash.stderr).toContain('unknown option -y');
    expect(dash.stderr).toContain('after --');
  });

  it('run says when this run wrote no profile, and leaves the old one as it was (exit 2)', () => {
    const out = join(work, 'stale.kprof');
    const first = cli(['run', jar, '-o', out]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`profile written to ${out}`);
    const before = readFileSync(out);
    const mtime = statSync(out).mtimeMs;

    const noAgent = cli(['run', jar, '-o', out, '--agent', 'com.nope.Agent']);
    expect(noAgent.stdout).toContain('args=[]');
    expect(noAgent.stderr).not.toContain('profile written');
    expect(noAgent.stderr).toContain('no profile was written');
    expect(noAgent.stderr).toContain(`${out} is from an earlier run`);
    expect(noAgent.stdout).not.toContain('komorium profile');
    expect(noAgent.code).toBe(2);

    const killed = cli(['run', jar, '-o', out, '--', 'halt']);
    expect(killed.stderr).toContain('no profile was written');
    expect(killed.code).toBe(2);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(statSync(out).mtimeMs).toBe(mtime);

    const missing = join(work, 'never.kprof');
    const none = cli(['run', jar, '-o', missing, '--agent', 'com.nope.Agent']);
    expect(none.stderr).toContain('no profile was written');
    expect(none.code).toBe(2);
  });

  it('run keeps the program exit code when a profile was written', () => {
    const r = cli(['run', jar, '-o', join(work, 'fail.kprof'), '--', 'fail']);
    expect(r.stderr).toContain('profile written to');
    expect(r.code).toBe(3);
  });

  it('run --agent none says it writes no profile, and --help lists it', () => {
    const r = cli(['run', jar, '-o', join(work, 'none.kprof'), '--agent', 'none', '--', 'fail']);
    expect(r.stdout).toContain('args=[fail]');
    expect(r.stderr).toContain('--agent none counts bytecodes but writes no profile');
    expect(r.stderr).not.toContain('profile written');
    expect(r.code).toBe(3);
    expect(cli(['run', '--help']).stdout).toMatch(/sampling, exact, none \(/);
  });

  it('a closed pipe ends report and inspect quietly, exit 0', async () => {
    const profile = join(repoRoot, 'test', 'fixtures', 'profiles', 'exact.kprof');
    for (const args of [
      ['report', profile, '--format', 'collapsed'],
      ['report', profile],
      ['inspect', '/usr/share/java/commons-lang3.jar'],
      ['inspect', jar, 'echo.Echo'],
    ]) {
      const r = await cliIntoClosedPipe(args);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(0);
    }
  });

  it('inspect -m of a method that is not there exits 2 and names class and method', () => {
    const r = cli(['inspect', jar, 'echo.Echo', '-m', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('class echo.Echo has no method nosuch');
    expect(r.stderr).toContain('main');
    expect(r.stdout).toBe('');
    expect(cli(['inspect', jar, 'echo.Echo', '-m', 'main([I)V']).code).toBe(2);
  });

  it('inspect -m on an instrumented jar shows the wrapper and says where the instrumented body is', () => {
    const out = join(work, 'echo-komorium.jar');
    instrument(jar, out, ['-q']);
    const r = cli(['inspect', out, 'echo.Echo', '-m', 'main']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('main is the wrapper that keeps its signature; its instrumented body is main$komorium(');
    expect(r.stdout).toMatch(/public static main\(\[Ljava\/lang\/String;\)V/);
    expect(r.stdout).toMatch(/public static synthetic main\$komorium\(\[Ljava\/lang\/String;Lkomorium\/runtime\/TC;\[II\)V/);
    expect(r.stdout).toMatch(/invokevirtual +java\/lang\/StringBuilder.append/);
    const byDesc = cli(['inspect', out, 'echo.Echo', '-m', 'main([Ljava/lang/String;)V']);
    expect(byDesc.stdout).toContain('main$komorium(');
  });

  it('samples at a randomized granularity by default, and two runs give the same profile', async () => {
    const out = join(work, 'echo-default.jar');
    instrument(jar, out, ['-q']);
    const data: string[] = [];
    for (const n of [1, 2]) {
      const path = join(work, `default-${n}.kprof`);
      const r = await runJava({ cp: [out], main: 'echo.Echo', jvmArgs: ['-Dkomorium.quiet', '-Dkomorium.granularity=1000', `-Dkomorium.out=${path}`] });
      expect(r.code, r.stderr).toBe(0);
      const p = readProfile(path);
      expect(p.random).toBe(100);
      data.push(readFileSync(path, 'utf8').replace(/^header.*\n/gm, ''));
    }
    expect(data[1]).toBe(data[0]);
    cli(['run', jar, '-o', join(work, 'run-default.kprof')]);
    expect(readProfile(join(work, 'run-default.kprof')).random).toBe(100);
  });

  it('an output in a missing folder is refused the same way by every command, and nothing is created', () => {
    const missing = join(work, 'no', 'such');
    const profile = join(repoRoot, 'test', 'fixtures', 'profiles', 'exact.kprof');
    for (const args of [
      ['instrument', jar, '-o', join(missing, 'x.jar')],
      ['run', jar, '-o', join(missing, 'x.kprof')],
      ['report', profile, '-o', join(missing, 'x.txt')],
      ['diff', profile, profile, '-o', join(missing, 'x.txt')],
      ['merge', profile, '-o', join(missing, 'x.kprof')],
    ]) {
      const r = cli(args);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr, args[0]).toContain(`the folder ${missing} does not exist`);
      expect(r.stdout, args[0]).not.toContain('args=');
    }
    expect(existsSync(join(work, 'no'))).toBe(false);
  });

  it('report and diff write the format an output name asks for, or refuse it', () => {
    const profile = join(repoRoot, 'test', 'fixtures', 'profiles', 'exact.kprof');
    for (const [args, message] of [
      [['report', profile, '-o', join(work, 'flame.svg')], /does not write an SVG/],
      [['report', profile, '--format', 'text', '-o', join(work, 'p.pb.gz')], /names a pprof file, but --format text/],
      [['report', profile, '--format', 'text', '-o', join(work, 'r.json')], /names a json file, but --format text/],
      [['diff', profile, profile, '-o', join(work, 'd.folded')], /which this command does not write/],
    ] as const) {
      const r = cli([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(args[args.indexOf('-o') + 1]!)).toBe(false);
    }
    expect(cli(['report', profile, '-o', join(work, 'p.folded')]).code).toBe(0);
    expect(readFileSync(join(work, 'p.folded'), 'utf8')).toMatch(/^\S.*;.* \d+$/m);
  });

  it('merge warns when it is given the same profile twice', () => {
    const profile = join(repoRoot, 'test', 'fixtures', 'profiles', 'exact.kprof');
    copyFileSync(profile, join(work, 'copy.kprof'));
    const r = cli(['merge', profile, join(work, 'copy.kprof'), '-o', join(work, 'merged.kprof')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${join(work, 'copy.kprof')} is the same profile as ${profile} (the same run): its counts are added twice`);
    const distinct = ['half1.kprof', 'half2.kprof'].map((f) => join(repoRoot, 'test', 'fixtures', 'profiles', f));
    expect(cli(['merge', ...distinct, '-o', join(work, 'halves.kprof')]).stderr).toBe('');
  });

  it('diff says what overlap means where it prints it', () => {
    const profiles = ['half1.kprof', 'half2.kprof'].map((f) => join(repoRoot, 'test', 'fixtures', 'profiles', f));
    const r = cli(['diff', ...profiles]);
    expect(r.stdout).toMatch(/^Overlap: calling contexts [\d.]+%, methods [\d.]+% \(how much of the two runs agrees: .*the smaller of its shares/m);
    expect(r.stdout + cli(['diff', '--help']).stdout).not.toMatch(/§7\.1/);
  });

  it('the demo prints the command it really runs', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'demo.mjs')], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const banner = /^\$ (node bin\/komorium-ts\.js run .*)$/m.exec(r.stdout)![1]!;
    expect(banner).toBe('node bin/komorium-ts.js run samples/hot/build/hot.jar --top 10 --out samples/hot/build/hot.kprof');
    expect(r.stderr).toContain(`profile written to ${join(repoRoot, 'samples', 'hot', 'build', 'hot.kprof')}`);
    const again = spawnSync(process.execPath, banner.split(' ').slice(1), { cwd: repoRoot, encoding: 'utf8' });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('Hottest methods');
  });
});
