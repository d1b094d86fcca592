/** Writing report files and parsing percentage options, shared by the report, diff and merge commands. */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { writeError } from '../jar/fs-errors.js';

/**
 * Writes `text` to `path` atomically (temp file + rename), so a CI job never picks up half a
 * profile or report; to stdout when `path` is undefined or `-`. The folder must exist, as for
 * every command's output: a mistyped path is an error, not a new folder.
 */
export function writeOutput(path: string | undefined, text: string | Uint8Array): void {
  if (path === undefined || path === '-') {
    process.stdout.write(text);
    return;
  }
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw writeError(path, e);
  }
}

/** `90`, `90%`, `2.5 %` → the number of percent; UsageError naming the option otherwise. */
export function parsePercent(value: unknown, option: string, { min = 0, max = Infinity } = {}): number {
  const s = String(value).trim();
  const m = /^(-?\d+(?:\.\d+)?|-?\.\d+)\s*%?$/.exec(s);
  const v = m ? Number(m[1]) : NaN;
  if (!Number.isFinite(v) || v < min || v > max) {
    throw new UsageError(`${option} expects a percentage${Number.isFinite(max) ? ` between ${min} and ${max}` : ` of at least ${min}`} such as 5 or 5%, got "${s}"`);
  }
  return v;
}

export function parseCount(value: unknown, option: string, min: number): number {
  const v = Number(value);
  if (!Number.isInteger(v) || v < min) throw new UsageError(`${option} expects a whole number of at least ${min}, got "${String(value)}"`);
  return v;
}
