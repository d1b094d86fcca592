/** File-system failures as KomoriumErrors whose message names the path and says what to do. */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { KomoriumError } from '../errors.js';

function code(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** Maps an errno error from writing `path` to a KomoriumError; other errors (bugs) pass through. */
export function writeError(path: string, e: unknown): Error {
  if (e instanceof KomoriumError) return e;
  switch (code(e)) {
    case 'ENOENT':
      // Some folders exist but create nothing (/proc, /sys): say which it is.
      return existsSync(dirname(path))
        ? new KomoriumError(`cannot write ${path}: no file can be created in ${dirname(path)}`)
        : new KomoriumError(`cannot write ${path}: the folder ${dirname(path)} does not exist`);
    case 'EACCES':
    case 'EPERM':
      return new KomoriumError(`cannot write ${path}: permission denied`);
    case 'ENOSPC':
      return new KomoriumError(`cannot write ${path}: no space left on the device (disk full)`);
    case 'EDQUOT':
      return new KomoriumError(`cannot write ${path}: disk quota exceeded`);
    case 'EROFS':
      return new KomoriumError(`cannot write ${path}: the file system is read-only`);
    case 'EISDIR':
    case 'ENOTEMPTY':
      return new KomoriumError(`cannot write ${path}: a folder of that name is in the way`);
    case 'EEXIST':
      return new KomoriumError(`cannot write ${path}: a file or folder of that name is in the way`);
    case 'ENOTDIR':
      return new KomoriumError(`cannot write ${path}: part of the path is a file, not a folder`);
    case 'ENAMETOOLONG':
      return new KomoriumError(`cannot write ${path}: the path is too long`);
    case 'EMFILE':
    case 'ENFILE':
      return new KomoriumError(`cannot write ${path}: too many open files`);
    case 'EIO':
      return new KomoriumError(`cannot write ${path}: input/output error`);
    default:
      return e instanceof Error ? e : new Error(String(e));
  }
}

/** Maps an errno error from reading `path` to a KomoriumError; other errors pass through. */
export function readError(path: string, e: unknown): Error {
  if (e instanceof KomoriumError) return e;
  switch (code(e)) {
    case 'ENOENT':
      return new KomoriumError(`${path}: no such file or folder`);
    case 'EACCES':
    case 'EPERM':
      return new KomoriumError(`${path}: permission denied`);
    case 'ENOTDIR':
      return new KomoriumError(`${path}: part of the path is a file, not a folder`);
    case 'EISDIR':
      return new KomoriumError(`${path}: is a folder`);
    case 'EIO':
      return new KomoriumError(`${path}: input/output error`);
    case 'ELOOP':
      return new KomoriumError(`${path}: too many levels of symbolic links`);
    default:
      return e instanceof Error ? e : new Error(String(e));
  }
}
