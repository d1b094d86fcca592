/**
 * `komorium-ts merge DIR`: a folder stands for the .kprof files in it, which is how a build merges
 * the profiles its forked JVMs wrote under process ids (`-Dkomorium.out=DIR/jvm-%p.kprof`) without
 * a shell to expand a glob. An empty folder is bad input: exit 2, naming it, nothing written.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tmpDir } from './support/java.js';
import { cli } from './support/komorium.js';

const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'profiles', name);

describe('merge of a folder', () => {
  const work = tmpDir('komorium-merge-folder-');

  it('merges the .kprof files in it, and only those, as if each were named', () => {
    const dir = join(work, 'jvms');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    copyFileSync(fixture('half1.kprof'), join(dir, 'jvm-101.kprof'));
    copyFileSync(fixture('half2.kprof'), join(dir, 'jvm-7.kprof'));
    // Neither is a profile of this folder: a file of another kind, and one a folder further down.
    writeFileSync(join(dir, 'notes.txt'), 'not a profile\n');
    copyFileSync(fixture('exact.kprof'), join(dir, 'nested', 'other-agent.kprof'));
    const out = join(work, 'merged.kprof');
    const r = cli(['merge', dir, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`merged 2 profiles into ${out}: 100 samples, 1,000,000 bytecodes, 7 calling contexts\n`);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(fixture('whole.kprof'), 'utf8'));
  });

  it('a folder without profiles exits 2 and names it', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const out = join(work, 'none.kprof');
    const r = cli(['merge', empty, '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`komorium-ts: ${empty}: no .kprof profile in this folder\n`);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });
});
