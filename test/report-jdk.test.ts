/**
 * The JDK in reports: the header says plainly whether JDK bytecodes were counted (`header jdk`,
 * written by the runtime; absent in older profiles, which did not count them), and the flame graph
 * colours JDK frames apart from the application's (flamegraph-browser.test.ts checks the drawing in
 * Chromium).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProfile, readProfile } from '../src/profile/index.js';
import { flamePayload, renderHtml, renderText } from '../src/report/index.js';
import { isJdkClass, jdkInstrumented } from '../src/report/jdk.js';
import { javac, repoRoot, runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { fixture } from './fixtures/profiles/harness.js';
import { readFileSync } from 'node:fs';

const NOT_COUNTED =
  "  jdk          not instrumented: JDK bytecodes are not counted; a call into the JDK counts as its caller's invoke instruction only (komorium-ts run --jdk counts them)";

describe('report header: JDK bytecodes counted or not', () => {
  it('a profile without the jdk header (written before it existed) did not count them', () => {
    const p = readProfile(fixture('simple.kprof'));
    expect(jdkInstrumented(p)).toBe(false);
    expect(renderText(p).split('\n')).toContain(NOT_COUNTED);
    expect(renderHtml(p)).toContain(NOT_COUNTED.trimStart().replace(/'/g, '&#39;'));
  });

  it('says so for `header jdk not instrumented`, and says they are counted for `header jdk instrumented`', () => {
    const text = readFileSync(fixture('jdk-frames.kprof'), 'utf8');
    const counted = parseProfile(text, 'counted.kprof');
    expect(jdkInstrumented(counted)).toBe(true);
    expect(renderText(counted)).toContain("  jdk          instrumented: the JDK's bytecodes are counted too");
    expect(renderText(counted)).not.toContain('not counted');
    const not = parseProfile(text.replace('header\tjdk\tinstrumented', 'header\tjdk\tnot instrumented'), 'not.kprof');
    expect(jdkInstrumented(not)).toBe(false);
    expect(renderText(not).split('\n')).toContain(NOT_COUNTED);
  });

  it("the header's claim holds: with the exact agent, a method that calls String.length is charged its own 3 bytecodes per call, the invoke included", async () => {
    // own(s) is `aload_0; invokevirtual String.length; ireturn`. String.length runs bytecodes of its
    // own (the coder check and the shift), none of which are counted: own's counter is 3 per call.
    const work = tmpDir('komorium-jdk-call-');
    javac(join(repoRoot, 'test', 'fixtures', 'jdk-call', 'JdkCall.java'), join(work, 'classes'), { release: 11 });
    instrument(join(work, 'classes'), join(work, 'instrumented'), ['--checks', 'all']);
    const out = join(work, 'jdk-call.kprof');
    const r = await runJava({ cp: [join(work, 'instrumented')], main: 'JdkCall', jvmArgs: ['-Xverify:all', '-Dkomorium.agent=exact', `-Dkomorium.out=${out}`, '-Dkomorium.quiet'] });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${Array.from({ length: 1000 }, (_, i) => i % 7).reduce((a, b) => a + b, 0)}\n`);
    const p = readProfile(out);
    const own = p.nodes.filter((n) => n.method?.name === 'own');
    expect(own.map((n) => [n.counter, n.total])).toEqual([[3000, 3000]]);
    expect(p.methods.some((m) => isJdkClass(m.className))).toBe(false);
    expect(renderText(p).split('\n')).toContain(NOT_COUNTED);
  }, 60_000);
});

describe('flame graph: JDK frames apart', () => {
  it('tells the page which methods are the JDK\'s, and the legend says what the colours mean', () => {
    const p = readProfile(fixture('jdk-frames.kprof'));
    const payload = flamePayload(p);
    expect(payload.jdk!.map((id) => payload.names[id])).toEqual([
      'java.lang.String.format(String, Object[])',
      'java.lang.Thread.run()',
      'java.util.Collections.sort(List, Comparator)',
      'java.util.Formatter.format(String, Object[])',
      'java.util.TimSort.sort(Object[], int, int, Comparator, Object[], int, int)',
    ]);
    expect(renderHtml(p)).toMatch(/<div class="legend hint">Colour:<span [^>]*><\/span>the application's methods<span [^>]*><\/span>the JDK's \(java\.\*, javax\.\*, jdk\.\*, sun\.\*, com\.sun\.\*\)<\/div>/);
    // A profile without JDK frames carries no list.
    expect(flamePayload(readProfile(fixture('disjoint.kprof'))).jdk).toBeUndefined();
  });

  it('knows the JDK by package', () => {
    for (const c of ['java/lang/String', 'javax/swing/JButton', 'jdk/internal/misc/Unsafe', 'sun/nio/cs/UTF_8', 'com/sun/crypto/provider/AESCrypt']) expect(isJdkClass(c), c).toBe(true);
    for (const c of ['javalike/Foo', 'com/sunny/Bar', 'org/jdk/X', '[uninstrumented]', '<truncated>', 'app/java/Main']) expect(isJdkClass(c), c).toBe(false);
  });
});
