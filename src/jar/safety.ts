/** Refusing output paths that would overwrite or write into the input. */
import { realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** The real path `path` has or would have: symbolic links in its existing part resolved. */
function realOrProspective(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : resolve(realOrProspective(parent), basename(abs));
  }
}

function isInside(child: string, folder: string): boolean {
  return child.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Throws UsageError when writing `output` could destroy or alter `input`: the same file (also
 * through links), output inside an input folder, or the input inside an output folder. For the
 * input's own output (`own`), also an output of the wrong kind: a folder where a jar goes, or a
 * file where a class folder goes (a class folder is written as a jar only to a name ending in .jar).
 */
export function assertSafeOutput(input: string, output: string, own = true): void {
  const inStat = statOrNull(input);
  if (inStat === null) throw new UsageError(`input ${input} does not exist`);
  const realIn = realpathSync(resolve(input));
  const realOut = realOrProspective(output);
  const outStat = statOrNull(output);
  const same = realIn === realOut || (outStat !== null && outStat.dev === inStat.dev && outStat.ino === inStat.ino);
  if (same) throw new UsageError(`output ${output} is the input ${input}: give a different output path`);
  if (inStat.isDirectory() && isInside(realOut, realIn)) {
    throw new UsageError(`output ${output} is inside the input folder ${input}: give a path outside it`);
  }
  if (outStat?.isDirectory() && isInside(realIn, realOut)) {
    throw new UsageError(`input ${input} is inside the output folder ${output}: give a path outside it`);
  }
  if (!own) return;
  if (inStat.isFile() && outStat?.isDirectory()) {
    throw new UsageError(`output ${output} is a folder, but the input is a jar: give the path of the output jar`);
  }
  if (inStat.isDirectory() && outStat !== null && !outStat.isDirectory() && !JAR_NAME.test(output)) {
    throw new UsageError(`output ${output} is a file, but the input is a class folder: give a folder path, or a name ending in .jar`);
  }
}

/** The output names a class folder is written to as a jar. */
export const JAR_NAME = /\.(jar|zip|war)$/i;
