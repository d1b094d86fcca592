/**
 * The npm package as a user gets it: `npm pack` (whose prepack script builds dist/ and the Java
 * runtime from a clean state), `npm install <tarball>` into an empty project, then
 * `npx komorium-ts instrument`, `java -jar` and `npx komorium-ts report` there.
 *
 * The pack runs in a copy of the sources, so that prepack's clean build never touches the dist/
 * the other test files are using. Installing needs the registry (or npm's cache) for the
 * package's dependencies only.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jarDir, javac, javaPath, repoRoot, tmpDir } from './support/java.js';

const SAMPLE = join(repoRoot, 'samples', 'hot');

function run(cmd: string, args: string[], opts: SpawnSyncOptions & { cwd: string }): string {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  const out = String(r.stdout);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status} after ${Date.now() - t0} ms:\n${out}\n${String(r.stderr)}`);
  return out;
}

/** Without the repository's node_modules/.bin (npm test puts it on the PATH) or npm's own settings for it. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => !p.startsWith(repoRoot))
    .join(':');
  return env;
}

describe('npm package', () => {
  const work = tmpDir('komorium-npm-');
  afterAll(() => {
    if (!process.env.KOMORIUM_KEEP_TMP) rmSync(work, { recursive: true, force: true });
  });

  it('packs with a clean build, installs into an empty project and runs instrument, java and report', async () => {
    const env = userEnv();

    // 1. A copy of what the build reads; node_modules is shared (tsc, jszip for the runtime jar).
    const source = join(work, 'source');
    mkdirSync(source);
    for (const p of ['package.json', 'package-lock.json', 'README.md', 'komorium.gradle', 'tsconfig.json', 'bin', 'src', 'scripts/build-runtime.mjs', 'runtime-java/src']) {
      if (existsSync(join(repoRoot, p))) cpSync(join(repoRoot, p), join(source, p), { recursive: true });
    }
    symlinkSync(join(repoRoot, 'node_modules'), join(source, 'node_modules'), 'dir');

    // 2. npm pack: prepack removes dist/, compiles it and builds the runtime jar with javac.
    const packDir = join(work, 'pack');
    mkdirSync(packDir);
    const packOutput = run('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: source, env });
    expect(packOutput).toMatch(/^build-runtime: wrote runtime-java\/build\/komorium-runtime\.jar/m);
    // The JSON follows the prepack script's output.
    const packed = JSON.parse(packOutput.slice(packOutput.search(/^\[/m))) as {
      filename: string;
      files: { path: string }[];
    }[];
    const tarball = join(packDir, packed[0]!.filename);
    const files = packed[0]!.files.map((f) => f.path).sort();
    expect(files).toContain('bin/komorium-ts.js');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('runtime-java/build/komorium-runtime.jar');
    expect(files).toContain('package.json');
    expect(files, 'the Gradle script plugin').toContain('komorium.gradle');
    // Nothing but the built sources, the launcher, the runtime jar and the docs: no tests, maps, Java sources or samples.
    const stray = files.filter(
      (f) => !/^(bin\/komorium-ts\.js|dist\/.+\.js|runtime-java\/build\/komorium-runtime\.jar|komorium\.gradle|package\.json|README\.md|LICENSE)$/.test(f),
    );
    expect(stray).toEqual([]);
    for (const f of files.filter((f) => f.startsWith('dist/'))) {
      expect(existsSync(join(repoRoot, 'src', f.slice('dist/'.length).replace(/\.js$/, '.ts'))), `${f} has no source in src/`).toBe(true);
    }

    // 3. An empty project installs the tarball (dependencies from npm's cache or the registry).
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'komorium-npm-test-app', version: '1.0.0', private: true }, null, 2) + '\n');
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: app, env });
    const installed = join(app, 'node_modules', 'komorium-ts');
    expect(lstatSync(installed).isSymbolicLink(), 'installed as a copy, not a link to the repository').toBe(false);
    expect(existsSync(join(installed, 'runtime-java', 'build', 'komorium-runtime.jar'))).toBe(true);
    expect(existsSync(join(installed, 'src')), 'no TypeScript sources in the package').toBe(false);

    // 4. The sample program, as the user's build would have made it.
    const classes = join(work, 'classes');
    mkdirSync(classes);
    javac(join(SAMPLE, 'Main.java'), classes);
    await jarDir(classes, join(app, 'sample.jar'), { mainClass: 'Main' });
    const expected = readFileSync(join(SAMPLE, 'expected-output.txt'), 'utf8');

    // 5. npx komorium-ts instrument: the local install (npx would refuse to fetch one without --yes).
    const instrumented = run('npx', ['komorium-ts', 'instrument', 'sample.jar', '-o', 'out.jar'], { cwd: app, env });
    expect(instrumented).toMatch(/^instrumented sample\.jar -> out\.jar\n/);
    expect(instrumented).not.toContain('\x1b');

    // 6. java -jar: the program's output is unchanged and the profile is written.
    const ran = run(javaPath(), ['-Dkomorium.out=p.kprof', '-jar', 'out.jar'], { cwd: app, env });
    expect(ran).toBe(expected);
    expect(readFileSync(join(app, 'p.kprof'), 'utf8').split('\n')[0]).toBe('komorium-profile\t2');

    // 7. npx komorium-ts report names the sample's hottest method first.
    const report = run('npx', ['komorium-ts', 'report', 'p.kprof'], { cwd: app, env });
    const hottest = /Hottest methods by self[^\n]*\n[^\n]*\n([^\n]*)/.exec(report);
    expect(hottest?.[1], report).toMatch(/^\s+\d+\.\d%\s+[\d,]+\s+\d+\.\d%\s+Main\.isPrime\(int\) \(Main\.java:\d+\)$/);

    // 8. --help, --version and a usage error through the installed launcher.
    const help = run('npx', ['komorium-ts', '--help'], { cwd: app, env });
    expect(help).toContain('komorium-ts instrument <inputs..>');
    const version = run('npx', ['komorium-ts', '--version'], { cwd: app, env });
    expect(version.trim()).toBe(JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).version);
    const missing = spawnSync('npx', ['komorium-ts', 'instrument', 'missing.jar'], { cwd: app, env, encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^komorium-ts: .*missing\.jar/m);
  });
});
