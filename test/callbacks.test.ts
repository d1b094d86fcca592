/**
 * Issue 4, "calling contexts through uninstrumented code": when the JDK calls back into
 * instrumented code on the same thread (a Comparator in Collections.sort, Comparable in
 * Arrays.sort, a stream lambda), the callback's samples sit under its caller, not at the root.
 * With --no-callbacks they start a fresh stack, as in seed 002 (the control).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { javac, jarDir, repoRoot, runJava, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { readProfile } from '../src/profile/read.js';
import { UNINSTRUMENTED_CLASS, type ContextNode, type Profile } from '../src/profile/model.js';

const dir = join(repoRoot, 'samples', 'callbacks');
let work: string;
let jar: string;

beforeAll(async () => {
  work = tmpDir('komorium-callbacks-');
  javac(readdirSync(dir).filter((f) => f.endsWith('.java')).map((f) => join(dir, f)), join(work, 'classes'), { release: 8 });
  jar = join(work, 'callbacks.jar');
  await jarDir(join(work, 'classes'), jar, { mainClass: 'Main' });
});

async function exactProfile(flags: string[]): Promise<Profile> {
  const out = join(work, `cb${flags.join('')}.jar`);
  instrument(jar, out, flags);
  const path = join(work, `cb${flags.join('')}.kprof`);
  const r = await runJava({ cp: [out], main: 'Main', jvmArgs: ['-Dkomorium.agent=exact', '-Dkomorium.quiet=true', `-Dkomorium.out=${path}`] });
  expect(r.code, r.stderr).toBe(0);
  return readProfile(path);
}

const isCallback = (n: ContextNode) =>
  n.method !== null &&
  ((n.method.className === 'Main$Point' && n.method.name === 'compareTo') ||
    (n.method.className === 'Main$1' && n.method.name === 'compare') ||
    // The first lambda of main is the comparator of words.sort (later ones include a Thread's body,
    // which rightly starts at the root of its own thread).
    (n.method.className === 'Main' && n.method.name === 'lambda$main$0'));

function callbackContexts(p: Profile): ContextNode[] {
  return p.nodes.filter((n) => isCallback(n) && n.counter > 0);
}

describe('callbacks from the JDK keep their caller\'s calling context', () => {
  test('with call-out continuation (the default), every callback context has Main.main as an ancestor', async () => {
    const p = await exactProfile([]);
    const contexts = callbackContexts(p);
    expect(contexts.length).toBeGreaterThanOrEqual(3);
    for (const n of contexts) {
      let a = n.parent;
      while (a && a.method && !(a.method.className === 'Main' && a.method.name === 'main')) a = a.parent;
      expect(a?.method?.name, `${n.method!.className}.${n.method!.name} should sit under Main.main`).toBe('main');
    }
  });

  test('the JDK frames between the caller and a callback appear as one [uninstrumented] node', async () => {
    const p = await exactProfile([]);
    const contexts = callbackContexts(p);
    expect(contexts.length).toBeGreaterThanOrEqual(3);
    for (const n of contexts) {
      // Above a bridge method (Main$1.compare(Object, Object) calling compare(String, String)), if any.
      let between = n.parent!;
      while (between.method?.className === n.method!.className && between.method.name === n.method!.name) between = between.parent!;
      expect(between.method?.className, `${n.method!.className}.${n.method!.name}`).toBe(UNINSTRUMENTED_CLASS);
      expect(between.counter).toBe(0); // it runs no instrumented bytecode of its own
      expect(between.parent?.method?.className).toMatch(/^Main/);
    }
    // A direct call between instrumented methods (main → new Point(…)) has no such node.
    const main = p.nodes.find((n) => n.method?.className === 'Main' && n.method.name === 'main' && n.parent?.method === null)!;
    expect(main.children.some((c) => c.method?.className === 'Main$Point' && c.method.name === '<init>')).toBe(true);
  });

  test('with --no-callbacks (seed 002 as written) the same callbacks start at the root', async () => {
    const p = await exactProfile(['--no-callbacks']);
    const contexts = callbackContexts(p);
    expect(contexts.length).toBeGreaterThanOrEqual(3);
    expect(contexts.some((n) => n.parent?.method === null)).toBe(true);
  });
});
