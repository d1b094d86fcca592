/**
 * The samples are deterministic and their expected-output.txt is right: each compiles without
 * lint warnings and prints exactly its expected output, twice (uninstrumented; the instrumented
 * runs are the transform's tests).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { javac, repoRoot, runJava, runtimeJar, tmpDir } from './support/java.js';

const SAMPLES = join(repoRoot, 'samples');
const MAINS: Record<string, string[]> = { fig4: ['Main', 'Foo'] };
const folders = readdirSync(SAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(SAMPLES, e.name, 'expected-output.txt')) && !existsSync(join(SAMPLES, e.name, 'pom.xml')))
  .map((e) => e.name)
  .sort();

describe('samples', () => {
  it('are all there', () => {
    expect(folders).toEqual(['callbacks', 'custom-agent', 'exceptions', 'fig4', 'hot', 'natives', 'recursion', 'reflection', 'regression', 'threads']);
  });

  for (const name of folders) {
    it(`${name} prints its expected-output.txt, deterministically`, async () => {
      const dir = join(SAMPLES, name);
      const classes = tmpDir();
      const sources = readdirSync(dir).filter((f) => f.endsWith('.java')).map((f) => join(dir, f));
      javac(sources, classes, { args: ['-Xlint:all', '-Werror'] });
      const expected = readFileSync(join(dir, 'expected-output.txt'), 'utf8');
      for (const main of [...(MAINS[name] ?? ['Main']), 'Main']) {
        const r = await runJava({ cp: [classes], main, timeoutMs: 60_000 });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(expected);
      }
    });
  }

  it('custom-agent/agent compiles against the runtime jar without warnings', () => {
    const dir = join(SAMPLES, 'custom-agent', 'agent');
    const sources = readdirSync(dir).filter((f) => f.endsWith('.java')).map((f) => join(dir, f));
    javac(sources, tmpDir(), { classpath: [runtimeJar()], args: ['-Xlint:all', '-Werror'] });
  });
});
