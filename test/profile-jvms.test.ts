/**
 * Issue 5, "Same profile on different JVM configurations": a deterministic program profiled under
 * -Xint, the default JIT and C1 only (-XX:TieredStopAtLevel=1), and on a second JDK, gives 100%
 * overlap and identical data: the profile bytes below the header (which names the JVM, options and
 * date) are the same. Samples are triggered by executed bytecodes, never by time, and only the
 * program is instrumented, so neither the JIT nor the JDK's own code can change what is counted.
 * For the exact agent and for the sampling agent with a constant and with a randomized granularity.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readProfile } from '../src/profile/index.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { cli, instrument } from './support/komorium.js';

/** The second JDK of this machine image; the test says loudly when it is missing. */
const SECOND_JDK = process.env.KOMORIUM_SECOND_JDK || '/usr/lib/jvm/temurin-25-jdk-amd64';

const CONFIGS: { name: string; jvmArgs: string[]; jdk?: string }[] = [
  { name: 'default JIT', jvmArgs: [] },
  { name: '-Xint', jvmArgs: ['-Xint'] },
  { name: 'C1 only', jvmArgs: ['-XX:TieredStopAtLevel=1'] },
];
const AGENTS: { name: string; props: string[] }[] = [
  { name: 'exact', props: ['-Dkomorium.agent=exact'] },
  { name: 'sampling g=1000', props: ['-Dkomorium.granularity=1000'] },
  { name: 'sampling g=1000 R=500 seed=7', props: ['-Dkomorium.granularity=1000', '-Dkomorium.random=500', '-Dkomorium.seed=7'] },
];
// Smaller inputs than the samples' defaults: -Xint with the exact agent runs ~10 M bytecodes a second.
const PROGRAMS: { sample: string; args: string[] }[] = [
  { sample: 'hot', args: ['50000'] },
  { sample: 'recursion', args: [] },
];

/** The data of a profile: everything but the header lines, which are never compared. */
const data = (file: string): string =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('header\t'))
    .join('\n');

const secondJdk = existsSync(join(SECOND_JDK, 'bin', 'java')) ? SECOND_JDK : undefined;
if (secondJdk) CONFIGS.push({ name: `second JDK (${SECOND_JDK})`, jvmArgs: [], jdk: secondJdk });
else console.warn(`profile-jvms: NO SECOND JDK at ${SECOND_JDK}: the cross-version check is not run (set KOMORIUM_SECOND_JDK)`);

describe('the same profile on every JVM configuration', () => {
  it('a second JDK is there to compare with', () => {
    // Not a skip: a machine without it runs the rest, and this test fails saying what is missing.
    expect(secondJdk, `no second JDK at ${SECOND_JDK} (Temurin 25 on this machine image; set KOMORIUM_SECOND_JDK to another JDK home)`).toBeDefined();
    const v = readFileSync(join(secondJdk!, 'release'), 'utf8');
    expect(v).toMatch(/JAVA_VERSION="(?!17\b)\d+/);
  });

  for (const { sample, args } of PROGRAMS) {
    describe(`samples/${sample}`, () => {
      const work = tmpDir();
      const inst = join(work, 'instrumented');
      let expected = '';
      beforeAll(() => {
        const classes = join(work, 'classes');
        mkdirSync(classes);
        javac(join(repoRoot, 'samples', sample, 'Main.java'), classes);
        instrument(classes, inst);
      });

      for (const agent of AGENTS) {
        it(`${agent.name}: identical data and 100% overlap under ${CONFIGS.map((c) => c.name).join(', ')}`, async () => {
          const files: string[] = [];
          for (const [i, config] of CONFIGS.entries()) {
            const out = join(work, `${agent.name.replace(/\W+/g, '_')}-${i}.kprof`);
            const r = await runJava({
              cp: [inst],
              main: 'Main',
              args,
              jdk: config.jdk,
              jvmArgs: [...config.jvmArgs, ...agent.props, `-Dkomorium.out=${out}`, '-Dkomorium.quiet'],
            });
            expect(r.code, `${config.name}: ${r.stderr}`).toBe(0);
            expect(r.stderr, config.name).toBe('');
            if (expected === '') expected = r.stdout;
            expect(r.stdout, config.name).toBe(expected);
            files.push(out);
          }
          // The headers differ (JVM, options, pid, date): the JVMs really were different.
          const jvms = files.map((f) => readProfile(f).headers.find((h) => h.key === 'jvm')?.value);
          if (secondJdk) expect(new Set(jvms).size).toBe(2);
          const p = readProfile(files[0]!);
          expect(p.totalBytecodes).toBeGreaterThan(1_000_000);
          expect(p.nodes.length).toBeGreaterThan(5);
          for (const [i, f] of files.entries()) {
            expect(data(f), `${CONFIGS[i]!.name} vs ${CONFIGS[0]!.name}`).toBe(data(files[0]!));
            const d = cli(['diff', files[0]!, f, '--fail-under', '100', '--max-growth', '0']);
            expect(d.code, d.stdout + d.stderr).toBe(0);
            expect(d.stdout).toContain('Overlap: calling contexts 100.00%, methods 100.00%');
          }
        });
      }
    });
  }
});
