/**
 * Issue 3 "Same behaviour": every sample program in samples/ prints the same instrumented as not,
 * under verification, with the sampling and the exact agent; and the custom agent of
 * samples/custom-agent runs beside it.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { javac, jarDir, repoRoot, runJava, runtimeJar, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { readProfile } from '../src/profile/read.js';

const samplesDir = join(repoRoot, 'samples');
const samples = readdirSync(samplesDir).filter(
  (d) => existsSync(join(samplesDir, d, 'Main.java')) && existsSync(join(samplesDir, d, 'expected-output.txt')),
);

describe.each(samples)('samples/%s', (name) => {
  const dir = join(samplesDir, name);
  const work = tmpDir(`komorium-sample-${name}-`);
  const jar = join(work, `${name}.jar`);
  const out = join(work, `${name}-komorium.jar`);
  const expected = readFileSync(join(dir, 'expected-output.txt'), 'utf8');

  beforeAll(async () => {
    const sources = readdirSync(dir).filter((f) => f.endsWith('.java')).map((f) => join(dir, f));
    javac(sources, join(work, 'classes'), { release: 8 });
    await jarDir(join(work, 'classes'), jar, { mainClass: 'Main' });
    instrument(jar, out);
  });

  test('uninstrumented output is expected-output.txt', async () => {
    const r = await runJava({ cp: [jar], main: 'Main' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
  });

  test.each(['sampling', 'exact'])('instrumented, %s agent: same output, a profile of the program\'s methods', async (agent) => {
    const profile = join(work, `${agent}.kprof`);
    const r = await runJava({
      cp: [out],
      main: 'Main',
      jvmArgs: [`-Dkomorium.agent=${agent}`, '-Dkomorium.granularity=1000', `-Dkomorium.out=${profile}`, '-Dkomorium.quiet=true'],
      timeoutMs: 300_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected);
    expect(r.stderr).not.toMatch(/VerifyError|komorium: .*(failed|error)/i);
    const p = readProfile(profile);
    expect(p.totalBytecodes).toBeGreaterThan(0);
    // Thread bodies start their own stacks, so main itself need not be sampled; the program's classes must be.
    expect(p.methods.some((m) => /^Main(\$|$)/.test(m.className))).toBe(true);
    if (agent === 'exact') expect(p.methods.some((m) => m.className === 'Main' && m.name === 'main')).toBe(true);
  });
});

test('samples/custom-agent: a user-written agent runs on the instrumented program', async () => {
  const dir = join(samplesDir, 'custom-agent');
  const work = tmpDir('komorium-custom-agent-');
  javac([join(dir, 'Main.java')], join(work, 'classes'), { release: 8 });
  instrument(join(work, 'classes'), join(work, 'instrumented'));
  javac([join(dir, 'agent', 'HotMethodsAgent.java')], join(work, 'agent'), { release: 8, classpath: [runtimeJar()] });
  const r = await runJava({
    cp: [join(work, 'instrumented'), join(work, 'agent')],
    main: 'Main',
    jvmArgs: ['-Dkomorium.agent=HotMethodsAgent'],
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(readFileSync(join(dir, 'expected-output.txt'), 'utf8'));
  expect(r.stderr).toMatch(/Main\./);
});
