// npm packages used as test INPUTS (JavaScript programs that the corpus' JS engine, Rhino, runs, and
// speedscope's published file-format schema),
// kept outside node_modules in .cache/npm-inputs/<name>/ by `bash scripts/install-deps.sh`.
// Versions are pinned there and here; a missing or different version is a LOUD error.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR, CorpusMissingError, INSTALL_HINT } from './corpus.js';

const NPM_INPUTS = {
  esprima: { version: '4.0.1', main: 'dist/esprima.js' },
  lodash: { version: '4.17.21', main: 'lodash.js' },
  // Not a program: its dist/release/file-format-schema.json checks the speedscope export.
  speedscope: { version: '1.25.0', main: 'package.json' },
} as const;

export type NpmInputName = keyof typeof NPM_INPUTS;
export const NPM_INPUT_NAMES = Object.keys(NPM_INPUTS) as NpmInputName[];
export const NPM_INPUTS_DIR = join(CACHE_DIR, 'npm-inputs');

/** The pinned version of an npm test input. */
export function npmInputVersion(name: NpmInputName): string {
  return NPM_INPUTS[name].version;
}

/** The unpacked package folder, e.g. .cache/npm-inputs/esprima. */
export function npmInputDir(name: NpmInputName): string {
  const spec = NPM_INPUTS[name];
  if (!spec) throw new Error(`unknown npm test input '${name}' (known: ${NPM_INPUT_NAMES.join(', ')})`);
  const dir = join(NPM_INPUTS_DIR, name);
  const marker = join(dir, '.komorium-version');
  const have = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : null;
  if (have !== spec.version) {
    throw new CorpusMissingError(
      `missing npm test input ${name}@${spec.version} in ${dir}${have ? ` (found ${have})` : ''}: ${INSTALL_HINT}`,
    );
  }
  return dir;
}

/** The package's single-file build: esprima → dist/esprima.js (UMD), lodash → lodash.js. */
export function npmInput(name: NpmInputName): string {
  const p = join(npmInputDir(name), NPM_INPUTS[name].main);
  if (!existsSync(p)) throw new CorpusMissingError(`missing ${p}: ${INSTALL_HINT}`);
  return p;
}

/**
 * Another file of the package, e.g. lodash's core.js (116 KB): esprima parses it in a fifth of the
 * time lodash.js takes under Rhino's interpreter, which keeps the exact-profile runs of the tests short.
 */
export function npmInputFile(name: NpmInputName, file: string): string {
  const p = join(npmInputDir(name), file);
  if (!existsSync(p)) throw new CorpusMissingError(`missing ${p}: ${INSTALL_HINT}`);
  return p;
}
