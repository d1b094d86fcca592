/**
 * Controlling the profile: from the program (komorium.runtime.Control) and from outside the
 * process through the MBean komorium:type=Profiler, as jconsole reaches it (the attach API, a
 * local management agent, calls by name). Phases of a program are recorded or left out, dumped
 * and reset, and the profiles show exactly the phases that were recorded.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { javac, jarDir, javaPath, repoRoot, runJava, runtimeJarPath, tmpDir } from './support/java.js';
import { instrument } from './support/komorium.js';
import { readProfile, type Profile } from '../src/profile/index.js';

const work = tmpDir('komorium-control-');
const fixture = join(repoRoot, 'test', 'fixtures', 'control');

/** The phases a profile recorded, with their bytecodes (exact agent). */
function phases(p: Profile): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of p.nodes) {
    if (n.method && ['warmup', 'measured', 'later', 'ignored'].includes(n.method.name)) out.set(n.method.name, n.total);
  }
  return out;
}

/** A running program and a way to wait for lines of its output. */
class Program {
  private out = '';
  private waiters: { text: string; resolve: () => void }[] = [];
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      this.out += d;
      this.waiters = this.waiters.filter((w) => (this.out.includes(w.text) ? (w.resolve(), false) : true));
    });
  }
  waitFor(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.out.includes(text)) return resolve();
      const timer = setTimeout(() => reject(new Error(`timed out waiting for "${text}"; output so far: ${this.out}`)), 60_000);
      this.waiters.push({ text, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
  async phase(name: string): Promise<void> {
    this.child.stdin.write(`${name}\n`);
    await this.waitFor(`done ${name}\n`);
  }
}

describe('start, stop, reset and dump', () => {
  let jar: string;
  beforeAll(async () => {
    javac(join(fixture, 'ControlDemo.java'), join(work, 'app'), { classpath: [runtimeJarPath] });
    javac(join(fixture, 'JmxClient.java'), join(work, 'client'), { release: 17 });
    await jarDir(join(work, 'app'), join(work, 'app.jar'));
    jar = join(work, 'app-komorium.jar');
    instrument(join(work, 'app.jar'), jar);
  });

  it('from the program: warm-up left out, one window dumped and reset, the rest after stop left out', async () => {
    const window = join(work, 'window.kprof');
    const rest = join(work, 'rest.kprof');
    const r = await runJava({ cp: [jar], main: 'ControlDemo', args: ['api', window], jvmArgs: ['-Dkomorium.agent=exact', '-Dkomorium.start=false', `-Dkomorium.out=${rest}`, '-Dkomorium.quiet'] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`dumped ${window}\n`);
    const w = phases(readProfile(window));
    const after = phases(readProfile(rest));
    expect([...w.keys()]).toEqual(['measured']);
    expect([...after.keys()]).toEqual(['later']);
    // work(n) runs the same blocks n times: later's 40,000 iterations against measured's 30,000.
    expect(after.get('later')! / w.get('measured')!).toBeCloseTo(4 / 3, 3);
    expect(readProfile(window).totalBytecodes).toBe(readProfile(window).totalCounter);
  });

  it('from outside the process, through the MBean as jconsole reaches it', async () => {
    const final = join(work, 'final.kprof');
    const child = spawn(javaPath(), ['-Dkomorium.agent=exact', '-Dkomorium.start=false', '-Dkomorium.jmx=true', `-Dkomorium.out=${final}`, '-Dkomorium.quiet', '-cp', jar, 'ControlDemo', 'stdin'], { cwd: work });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const p = new Program(child);
    const jmx = (...args: string[]) => {
      const r = spawnSync(javaPath(), ['-cp', join(work, 'client'), 'JmxClient', String(child.pid), ...args], { encoding: 'utf8', timeout: 60_000 });
      if (r.status !== 0) throw new Error(`JmxClient ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
      return r.stdout.trim();
    };
    try {
      await p.waitFor('ready\n');
      await p.phase('warmup');
      expect(jmx('get', 'Recording')).toBe('get -> false');
      expect(jmx('start')).toBe('start -> null');
      await p.phase('measured');
      const first = join(work, 'jmx-first.kprof');
      expect(jmx('dumpAndReset', first)).toBe(`dumpAndReset -> ${first}`);
      await p.phase('later');
      const second = join(work, 'jmx-second.kprof');
      expect(jmx('dump', second)).toBe(`dump -> ${second}`);
      expect(jmx('stop')).toBe('stop -> null');
      await p.phase('ignored');
      expect(jmx('get', 'Agent')).toBe('get -> exact');
      child.stdin.end();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(0);
      expect([...phases(readProfile(first)).keys()]).toEqual(['measured']);
      expect([...phases(readProfile(second)).keys()]).toEqual(['later']);
      // A dump without reset keeps what it wrote: the profile at exit has it too.
      expect(phases(readProfile(final))).toEqual(phases(readProfile(second)));
    } finally {
      child.kill();
    }
  });

  it('without -Dkomorium.jmx there is no MBean, and Control refuses the none agent by name', async () => {
    const child = spawn(javaPath(), ['-Dkomorium.quiet', `-Dkomorium.out=${join(work, 'plain.kprof')}`, '-cp', jar, 'ControlDemo', 'stdin'], { cwd: work });
    try {
      const p = new Program(child);
      await p.waitFor('ready\n');
      await p.phase('warmup');
      const r = spawnSync(javaPath(), ['-cp', join(work, 'client'), 'JmxClient', String(child.pid), 'get', 'Recording'], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('javax.management.InstanceNotFoundException: komorium:type=Profiler');
    } finally {
      child.kill();
    }
    const none = await runJava({ cp: [jar], main: 'ControlDemo', args: ['api', join(work, 'never.kprof')], jvmArgs: ['-Dkomorium.agent=none'] });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/IllegalStateException: komorium: the agent is none; start, stop, reset and dump work with the sampling and exact agents/);
    expect(existsSync(join(work, 'never.kprof'))).toBe(false);
  });

  it('a profile path that is a pipe or a device is written to, not replaced by a file', async () => {
    // -Dkomorium.out=/dev/null once renamed a regular file over /dev/null; a FIFO shows the same without touching /dev.
    const fifo = join(work, 'profile.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo]);
    let read = '';
    reader.stdout.on('data', (d) => (read += String(d)));
    const done = new Promise((resolve) => reader.on('close', resolve));
    const r = await runJava({ cp: [jar], main: 'ControlDemo', args: ['api', join(work, 'pipe-window.kprof')], jvmArgs: ['-Dkomorium.agent=exact', `-Dkomorium.out=${fifo}`, '-Dkomorium.quiet'] });
    expect(r.code, r.stderr).toBe(0);
    // Replaced by a file, the FIFO would never see a writer, and cat would wait for ever.
    const closed = await Promise.race([done.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20_000))]);
    reader.kill();
    expect(closed, 'the profile never reached the pipe').toBe(true);
    expect(read.split('\n')[0]).toBe('komorium-profile\t2');
    expect(read).toMatch(/\nend\t\d+\n$/);
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(work).filter((f) => f.startsWith('.profile.fifo'))).toEqual([]);
  });
});
