// Small helpers of `npm run bench`: running a whole process with its wall time and peak memory,
// statistics, files. No dependencies beyond Node's own modules.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export const TIME_BIN = '/usr/bin/time';

/**
 * Runs a command as a whole process under /usr/bin/time (for the peak resident set, %M, and CPU time) and
 * measures its wall time with a monotonic clock around the spawn. Output is collected in memory.
 * Never rejects because of the exit code.
 */
export function runProcess(cmd, args, { cwd, timeFile, env, timeoutMs = 3_600_000 } = {}) {
  const useTime = existsSync(TIME_BIN) && timeFile;
  const argv = useTime ? ['-f', '%e %M %U %S', '-o', timeFile, cmd, ...args] : args;
  const exe = useTime ? TIME_BIN : cmd;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(exe, argv, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      let maxRssKb = null;
      // CPU time (user + system, all threads): steadier than wall time on a shared machine, though
      // not immune to it (caches, frequency), and it counts the JIT's threads.
      let cpuMs = null;
      if (useTime && existsSync(timeFile)) {
        // /usr/bin/time writes "Command exited with non-zero status N" before the format line.
        const lines = readFileSync(timeFile, 'utf8').trim().split('\n');
        const m = /^([\d.]+) (\d+) ([\d.]+) ([\d.]+)$/.exec(lines[lines.length - 1] ?? '');
        if (m) {
          maxRssKb = Number(m[2]);
          cpuMs = (Number(m[3]) + Number(m[4])) * 1000;
        }
        rmSync(timeFile, { force: true });
      }
      resolve({ code, signal, wallMs, maxRssKb, cpuMs, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
}

/** Runs a short command synchronously and returns its stdout (throws on failure). */
export function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

export function median(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** A ratio as the pages print it: `1.23×`, or `–` when there is none. */
export function fmtRatio(x, digits = 2) {
  return x == null ? '–' : `${x.toFixed(digits)}×`;
}

/**
 * The counts of `komorium-ts instrument`'s summary (one run's output, or several runs' outputs
 * joined: each count is summed over its lines).
 */
export function instrumentSummary(text) {
  const sum = (re) => [...text.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
  return {
    classes: sum(/^\s*classes\s+(\d+)/gm),
    methods: sum(/^\s*methods\s+(\d+)/gm),
    leftAsTheyWere: sum(/left as they were:\s+(\d+)/g),
    jitLimit: sum(/JIT limit\s+(\d+) methods crossed HotSpot's \d+-byte HugeMethodLimit/g),
    warnings: (text.match(/^warning:/gm) ?? []).length,
  };
}

export function geomean(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x) && x > 0);
  if (v.length === 0) return null;
  return Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length);
}

export function freshDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Every file under dir (relative paths, sorted) with its bytes. */
export function collectFiles(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(relative(dir, p), readFileSync(p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return new Map([...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/** Writes JSON results whole or not at all: a benchmark stopped while writing leaves the previous file. */
export function saveJson(path, results) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(results, null, 1)}\n`);
  renameSync(tmp, path);
}

export function fileSize(path) {
  return existsSync(path) ? statSync(path).size : null;
}

/** Rotates a list by k (the round-robin start of repetition k). */
export function rotate(list, k) {
  if (list.length === 0) return list;
  const s = k % list.length;
  return [...list.slice(s), ...list.slice(0, s)];
}

export function loadavg() {
  return existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : '';
}

/**
 * Runs `runOne(name, rep)` for every name, `reps` times, in an order rotated each repetition so that
 * a change in the machine's load falls on every configuration alike. Returns each name's results and
 * the medians of their CPU (user + system) and wall times.
 */
export async function runInterleaved(names, reps, runOne, label = '') {
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let rep = 0; rep < reps; rep++) {
    for (const n of rotate(names, rep)) runs[n].push(await runOne(n, rep));
    log(`${label}rep ${rep + 1}/${reps} load ${loadavg()}`);
  }
  const medians = (key) => Object.fromEntries(names.map((n) => [n, median(runs[n].map((r) => r[key]))]));
  return { runs, cpu: medians('cpuMs'), wall: medians('wallMs') };
}

export function fmtMs(ms) {
  return ms == null ? '–' : ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`;
}

export function log(...args) {
  const t = new Date().toISOString().slice(11, 19);
  console.log(`[bench ${t}]`, ...args);
}

/**
 * Copies the build (bin/, dist/ without maps, package.json, the runtime jar) of `repo` into `dir`,
 * so that a long benchmark runs one version even if the work tree is rebuilt meanwhile.
 */
export function snapshotBuild(repo, dir) {
  const runtimeJar = join(repo, 'runtime-java', 'build', 'komorium-runtime.jar');
  for (const p of [join(repo, 'dist', 'cli'), join(repo, 'dist', 'profile', 'index.js'), runtimeJar]) {
    if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` (npm run bench does)`);
  }
  freshDir(dir);
  cpSync(join(repo, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(repo, 'dist'), join(dir, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
  cpSync(join(repo, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'runtime-java', 'build'), { recursive: true });
  cpSync(runtimeJar, join(dir, 'runtime-java', 'build', 'komorium-runtime.jar'));
}

/**
 * The option parser of the bench drivers: starts from `defaults` (the object returned) and walks
 * `argv`. A flag in `flags` sets something by itself (`o => …`); one in `values` takes the next
 * argument (`(o, value) => …`). --help/-h prints `help` and exits 0; an unknown option, or a value
 * missing at the end, throws (the unknown one with `help`). Checks and derived defaults stay with
 * each driver.
 */
export function parseOptions(argv, help, defaults, { flags = {}, values = {} }) {
  const o = defaults;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (Object.hasOwn(flags, a)) flags[a](o);
    else if (Object.hasOwn(values, a)) {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      values[a](o, argv[++i]);
    } else if (a === '--help' || a === '-h') {
      console.log(help);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${help}`);
  }
  return o;
}

/**
 * Runs `komorium-ts instrument JAR -o <a temporary jar> --no-cache -q OPTIONS` inside this process,
 * from REPO's dist, with KOMORIUM_WORKERS set to `workers`: for the scripts that watch what the
 * rewrite does (scripts/bench/class-io.mjs, rewrite.mjs). The output is removed; a failed run throws.
 */
export async function instrumentInProcess(repo, jar, { workers, options = [] }) {
  const out = mkdtempSync(join(tmpdir(), 'komorium-bench-'));
  process.env.KOMORIUM_WORKERS = String(workers);
  try {
    const { main } = await import(join(repo, 'dist/cli/main.js'));
    await main(['instrument', jar, '-o', join(out, 'out.jar'), '--no-cache', '-q', ...options]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  if (process.exitCode) throw new Error(`instrument ${jar} exited with ${process.exitCode}`);
}
