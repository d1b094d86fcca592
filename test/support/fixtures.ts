/**
 * The Java fixtures of test/fixtures/java: each folder is a small deterministic program
 * (`<folder>.Main`) with its exact standard output in expected.txt beside it.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './java.js';

const FIXTURES = join(repoRoot, 'test', 'fixtures', 'java');

export interface Fixture {
  name: string;
  minRelease: number;
  sources: string[];
  pluginSources: string[];
  expected: string;
}

export function javaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...javaFiles(p));
    else if (e.name.endsWith('.java')) out.push(p);
  }
  return out.sort();
}

export function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const name of readdirSync(FIXTURES).sort()) {
    const dir = join(FIXTURES, name);
    if (!statSync(dir).isDirectory() || !existsSync(join(dir, 'Main.java'))) continue;
    const min = /^\/\/ fixture: min-release (\d+)$/m.exec(readFileSync(join(dir, 'Main.java'), 'utf8'));
    const all = javaFiles(dir);
    const isPlugin = (f: string) => relative(dir, f).split(/[\\/]/)[0] === 'plugin';
    out.push({
      name,
      minRelease: min ? Number(min[1]) : 8,
      sources: all.filter((f) => !isPlugin(f)),
      pluginSources: all.filter(isPlugin),
      expected: readFileSync(join(dir, 'expected.txt'), 'utf8'),
    });
  }
  return out;
}

