/**
 * Runs the real komorium-ts command (bin/komorium-ts.js over dist/, built by `npm test`), so the
 * tests exercise what users run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './java.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): CliResult {
  const bin = join(repoRoot, 'bin', 'komorium-ts.js');
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  }
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 600_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `komorium-ts instrument in -o out …`; fails the test with the command's output when it fails. */
export function instrument(input: string, output: string, extra: string[] = []): CliResult {
  const r = cli(['instrument', input, '-o', output, ...extra]);
  if (r.code !== 0) throw new Error(`komorium-ts instrument ${input} failed (exit ${r.code}):\n${r.stderr}\n${r.stdout}`);
  return r;
}
