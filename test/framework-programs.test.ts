/**
 * Issue 19, "Correctness": programs no one here wrote (rhino, jflex, ecj, Clojure, Groovy) and the
 * samples, instrumented with call-edges and field-access under each layout, print byte-identical
 * stdout and stderr and write byte-identical files. The interval is small and odd, so that the
 * sampled code (twins, partial copies, guarded probes) runs thousands of times in each program,
 * entered at every kind of loop head.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { debianClasspathFor, debianJar, jdkSrcZip, jflexJavaFlex, type DebianJarName } from './support/corpus.js';
import { npmInput, npmInputFile } from './support/npm-inputs.js';
import { jarDir, javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { parsedSections } from '../src/kinds/documents.js';
import { readDocument } from '../src/profile/read.js';
import { execFileSync } from 'node:child_process';

const LAYOUTS = ['full-dup', 'partial-dup', 'no-dup', 'exhaustive'] as const;
const INTERVAL = 7;

interface Program {
  name: string;
  /** The jar that is instrumented. */
  jar: () => string;
  /** Jars it needs that are not instrumented. */
  lib: () => string[];
  main: string;
  /** Arguments; `out` is a fresh folder for the files the program writes, its path masked in the output. */
  args: (out: string) => string[];
  jvmArgs?: string[];
}

function debian(name: DebianJarName): Pick<Program, 'jar' | 'lib'> {
  return { jar: () => debianJar(name), lib: () => debianClasspathFor(name).filter((p) => p !== debianJar(name)) };
}

/** 20 java.util sources of the running JDK, unpacked once: ecj's diagnostics on them are its output. */
let utilSources: string[] | undefined;
function javaUtilSources(): string[] {
  if (utilSources) return utilSources;
  const dir = tmpDir('komorium-fw-ecj-src-');
  execFileSync('unzip', ['-q', '-o', jdkSrcZip(), 'java.base/java/util/*.java', '-x', 'java.base/java/util/*/*', '-d', dir]);
  const util = join(dir, 'java.base', 'java', 'util');
  utilSources = readdirSync(util).filter((f) => f.endsWith('.java')).sort().slice(0, 20).map((f) => join(util, f));
  return utilSources;
}

const PROGRAMS: Program[] = [
  { name: 'jflex', ...debian('jflex'), main: 'jflex.Main', args: (out) => ['--nobak', '-d', out, jflexJavaFlex()] },
  {
    name: 'rhino',
    ...debian('rhino'),
    main: 'org.mozilla.javascript.tools.shell.Main',
    args: () => ['-opt', '-1', join(repoRoot, 'test', 'fixtures', 'rhino-parse.js'), npmInput('esprima'), npmInputFile('lodash', 'core.js')],
  },
  {
    name: 'ecj',
    ...debian('ecj'),
    main: 'org.eclipse.jdt.internal.compiler.batch.Main',
    args: (out) => ['-8', '-proc:none', '-d', out, '-warn:+deprecation', ...javaUtilSources()],
    jvmArgs: ['-XX:-DontCompileHugeMethods'],
  },
  { name: 'clojure', ...debian('clojure'), main: 'clojure.main', args: () => [join(repoRoot, 'test', 'fixtures', 'clojure-program.clj')] },
  { name: 'groovy', ...debian('groovy'), main: 'groovy.ui.GroovyMain', args: () => [join(repoRoot, 'test', 'fixtures', 'groovy_program.groovy')] },
];

interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

/** Every file under `dir`, by relative path, as base64 (byte-exact comparison with readable names). */
function filesUnder(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix + e.name;
    if (e.isDirectory()) Object.assign(out, filesUnder(join(dir, e.name), `${rel}/`));
    else out[rel] = readFileSync(join(dir, e.name)).toString('base64');
  }
  return out;
}

async function runProgram(p: Program, cp: string[], work: string, tag: string, props: string[] = []): Promise<Output> {
  const out = join(work, `files-${tag}`);
  mkdirSync(out);
  const r = await runJava({ cp, main: p.main, args: p.args(out), jvmArgs: [...(p.jvmArgs ?? []), ...props], timeoutMs: 900_000 });
  const mask = (s: string) => s.replaceAll(out, '<out>');
  return { code: r.code, stdout: mask(r.stdout), stderr: mask(r.stderr), files: filesUnder(out) };
}

/** The framework sections of a profile, with how many sites (call sites, field sites) each recorded. */
function sectionSizes(profile: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const s of parsedSections(readDocument(profile))) sizes[s.kind.name] = s.kind.section.sites(s.data).length;
  return sizes;
}

describe.each(PROGRAMS)('$name instrumented with call-edges,field-access under each layout', (p) => {
  const work = tmpDir(`komorium-fw-${p.name}-`);
  let plain: Output;
  beforeAll(async () => {
    plain = await runProgram(p, [p.jar(), ...p.lib()], work, 'plain');
    expect(plain.stdout.length + Object.keys(plain.files).length, `${p.name} printed and wrote nothing`).toBeGreaterThan(0);
  }, 900_000);

  test.each(LAYOUTS)('%s: same exit code, stdout, stderr and files; the profile has both sections', async (layout) => {
    const out = join(work, `${layout}.jar`);
    instrument(p.jar(), out, ['-q', '--profile', 'call-edges,field-access', '--layout', layout, ...(p.lib().length ? ['--classpath', ...p.lib()] : [])]);
    const profile = join(work, `${layout}.kprof`);
    const run = await runProgram(p, [out, ...p.lib()], work, layout, [
      '-Dkomorium.quiet=true',
      `-Dkomorium.interval=${INTERVAL}`,
      `-Dkomorium.out=${profile}`,
    ]);
    expect(run.code).toBe(plain.code);
    expect(run.stdout).toBe(plain.stdout);
    expect(run.stderr).toBe(plain.stderr);
    expect(Object.keys(run.files)).toEqual(Object.keys(plain.files));
    expect(run.files).toEqual(plain.files);
    const sizes = sectionSizes(profile);
    expect(sizes['call-edges'], JSON.stringify(sizes)).toBeGreaterThan(50);
    expect(sizes['field-access'], JSON.stringify(sizes)).toBeGreaterThan(20);
  }, 900_000);
});

describe('the samples instrumented with call-edges,field-access under each layout', () => {
  const dirs = readdirSync(join(repoRoot, 'samples')).filter(
    (d) => existsSync(join(repoRoot, 'samples', d, 'Main.java')) && existsSync(join(repoRoot, 'samples', d, 'expected-output.txt')),
  );
  const work = tmpDir('komorium-fw-samples-');
  const jars: Record<string, string> = {};
  beforeAll(async () => {
    for (const d of dirs) {
      const src = join(repoRoot, 'samples', d);
      const classes = join(work, d, 'classes');
      javac(readdirSync(src).filter((f) => f.endsWith('.java')).map((f) => join(src, f)), classes, { release: 8 });
      jars[d] = join(work, d, `${d}.jar`);
      await jarDir(classes, jars[d]!, { mainClass: 'Main' });
    }
  }, 300_000);

  test.each(LAYOUTS)('%s: every sample prints its expected-output.txt', async (layout) => {
    expect(dirs.length).toBeGreaterThanOrEqual(9);
    // One program per sample: each jar is instrumented (and carries the runtime) on its own.
    for (const d of dirs) {
      const out = join(work, d, `${layout}.jar`);
      instrument(jars[d]!, out, ['-q', '--profile', 'call-edges,field-access', '--layout', layout]);
      const r = await runJava({
        cp: [out],
        main: 'Main',
        jvmArgs: ['-Dkomorium.quiet=true', `-Dkomorium.interval=${INTERVAL}`, `-Dkomorium.out=${join(work, d, `${layout}.kprof`)}`],
        timeoutMs: 300_000,
      });
      expect(r.code, `${d}: ${r.stderr}`).toBe(0);
      expect(r.stdout, d).toBe(readFileSync(join(repoRoot, 'samples', d, 'expected-output.txt'), 'utf8'));
      expect(r.stderr, d).toBe('');
      expect(sectionSizes(join(work, d, `${layout}.kprof`))['call-edges'], d).toBeGreaterThan(0);
    }
  }, 900_000);
});
