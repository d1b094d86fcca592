/**
 * The pure-Java runtime travels inside every instrumented jar (issue: `java -jar out.jar` works
 * with nothing else). It is built by `npm run build` and shipped prebuilt in the npm package.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KomoriumError } from '../errors.js';
import { readInput, type Entry } from '../jar/index.js';

export function runtimeJarPath(): string {
  // dist/instrument/runtime-jar.js and src/instrument/runtime-jar.ts are both two levels below the package root.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(root, 'runtime-java', 'build', 'komorium-runtime.jar');
}

let cached: Entry[] | null = null;

export async function runtimeEntries(): Promise<Entry[]> {
  if (cached) return cached;
  const path = runtimeJarPath();
  if (!existsSync(path)) {
    throw new KomoriumError(`the komorium runtime is missing at ${path}: run \`npm run build\` (it needs a JDK's javac)`);
  }
  const jar = await readInput(path);
  cached = jar.entries.filter((e) => e.name.startsWith('komorium/') || (e.name.startsWith('META-INF/services/') && !e.name.endsWith('/')));
  return cached;
}

/**
 * Adds the runtime under `folder` to an archive's entries, except those it holds already. A service
 * registration the program has too (META-INF/services/<interface>) gets the runtime's providers
 * appended to its own lines.
 */
export async function addRuntime(entries: Entry[], folder = ''): Promise<void> {
  const index = new Map(entries.map((e, i) => [e.name, i]));
  for (const runtime of await runtimeEntries()) {
    const r = { ...runtime, name: folder + runtime.name };
    const i = index.get(r.name);
    if (i === undefined) entries.push(r);
    else if (runtime.name.startsWith('META-INF/services/')) {
      const theirs = new TextDecoder().decode(entries[i]!.data);
      const ours = new TextDecoder().decode(r.data);
      if (!theirs.split(/\r?\n/).includes(ours.trim())) {
        entries[i] = { ...entries[i]!, data: new TextEncoder().encode(`${theirs}${theirs === '' || theirs.endsWith('\n') ? '' : '\n'}${ours}`) };
      }
    }
  }
}
