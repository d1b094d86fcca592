/**
 * The profile kinds: every folder of src/kinds with an index module exporting `kind`, found when
 * this module loads, so that adding a kind is adding its folder.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError } from '../errors.js';
import type { ProfileKind } from './kind.js';

const here = dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

async function discover(): Promise<ProfileKind[]> {
  const found: ProfileKind[] = [];
  for (const d of readdirSync(here, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
    const index = join(here, d, `index${ext}`);
    if (!existsSync(index)) continue;
    const mod = (await import(pathToFileURL(index).href)) as { kind?: ProfileKind };
    if (mod.kind) found.push(mod.kind);
  }
  return found;
}

/** Every kind built on the framework, by name. */
export const KINDS: readonly ProfileKind[] = await discover();

export function kindNamed(name: string): ProfileKind | undefined {
  return KINDS.find((k) => k.name === name);
}

/** `--profile a,b` → the kinds, or a UsageError naming the unknown one and the known ones. */
export function parseKinds(list: readonly string[]): ProfileKind[] {
  const names = list.flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const out: ProfileKind[] = [];
  for (const n of names) {
    const k = kindNamed(n);
    if (!k) throw new UsageError(`--profile: unknown profile kind '${n}' (known: komorium, ${KINDS.map((x) => x.name).join(', ')})`);
    if (!out.includes(k)) out.push(k);
  }
  return out;
}
