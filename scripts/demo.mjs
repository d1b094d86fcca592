#!/usr/bin/env node
// The README's main job on a bundled sample: compile samples/hot, then `komorium-ts run` it —
// instrument, run with a plain java, and print its hottest methods and call paths.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sample = join(root, 'samples', 'hot');
const build = join(sample, 'build');
const classes = join(build, 'classes');
const jar = join(build, 'hot.jar');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) {
    console.error(`demo: cannot run ${cmd}: ${r.error.message} (is a JDK installed? try bash scripts/install-deps.sh)`);
    process.exit(2);
  }
  if (r.status !== 0) process.exit(r.status ?? 1);
}

rmSync(build, { recursive: true, force: true });
mkdirSync(classes, { recursive: true });
const sources = readdirSync(sample).filter((f) => f.endsWith('.java')).map((f) => join(sample, f));
run('javac', ['--release', '8', '-d', classes, ...sources]);
run('jar', ['--create', '--file', jar, '--main-class', 'Main', '-C', classes, '.']);
// The banner shows the command exactly as it runs, from the repository root, so it can be pasted.
const rel = (p) => relative(root, p);
const args = ['run', rel(jar), '--top', '10', '--out', rel(join(build, 'hot.kprof'))];
console.log(`\n$ node ${rel(join(root, 'bin', 'komorium-ts.js'))} ${args.join(' ')}\n`);
run(process.execPath, [join(root, 'bin', 'komorium-ts.js'), ...args], { cwd: root });
