/**
 * The content-hash cache of `instrument` (issue 23): instrumenting the same jars with the same
 * options, the same --classpath jars, the same JDK and the same komorium-ts build again copies the
 * outputs of the first run instead of rewriting every class. The key hashes all of these; an entry
 * also lists the files the run read besides them (manifest Class-Path jars) with their hashes, and
 * every file of an entry carries its SHA-256, checked before use: a corrupt or truncated entry is
 * removed and rebuilt, never used.
 *
 * Location: $XDG_CACHE_HOME/komorium-ts/instrument, else ~/.cache/komorium-ts/instrument.
 * `--no-cache`, or KOMORIUM_TS_CACHE=0 in the environment, turns it off. The newest MAX_ENTRIES
 * entries are kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atomicWrite } from '../jar/index.js';
import { findJavaHome } from '../hierarchy/jdk.js';
import type { InstrumentRequest, InstrumentSummary } from './program.js';
import { experimentsSet } from '../experiments.js';

/** Bumped when the entry layout changes. */
const FORMAT = 1;
export const MAX_ENTRIES = 32;

export function cacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'komorium-ts', 'instrument');
}

export function cacheDisabledByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.KOMORIUM_TS_CACHE === '0' || env.KOMORIUM_TS_CACHE === 'off';
}

interface FileRecord {
  path: string;
  size: number;
  sha256: string;
}

interface EntryMeta {
  format: number;
  key: string;
  /** Files the run read besides the key's (manifest Class-Path jars): changed → not a hit. */
  deps: FileRecord[];
  /** The outputs, stored as out0, out1, … in the entry folder. */
  outputs: FileRecord[];
  summary: InstrumentSummary;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

let toolHash: string | null = null;
/** This build of komorium-ts: its compiled code and its runtime jar, hashed. */
export function toolIdentity(): string {
  if (toolHash !== null) return toolHash;
  const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.js')) h.update(p.slice(dist.length)).update(readFileSync(p));
    }
  };
  walk(dist);
  const runtime = join(dist, '..', 'runtime-java', 'build', 'komorium-runtime.jar');
  if (existsSync(runtime)) h.update(readFileSync(runtime));
  toolHash = h.digest('hex');
  return toolHash;
}

/** The JDK whose classes complete the class hierarchy: its release file and its class image's size and date. */
function jdkIdentity(): string {
  const home = findJavaHome();
  if (home === null) return 'none';
  const parts = [home];
  for (const f of ['release', 'lib/modules', 'jre/lib/rt.jar']) {
    const p = join(home, f);
    if (!existsSync(p)) continue;
    const st = statSync(p);
    parts.push(f === 'release' ? readFileSync(p, 'utf8') : `${f} ${st.size} ${st.mtimeMs}`);
  }
  return parts.join('\n');
}

/**
 * The key of a request, or null when it cannot be cached (a folder among the inputs, outputs or
 * --classpath: only whole files are hashed).
 */
export function cacheKey(req: InstrumentRequest): string | null {
  const pairs = [{ input: req.input, output: req.output }, ...(req.more ?? [])];
  if (!pairs.every((p) => isFile(p.input)) || !req.classpath.every(isFile)) return null;
  if (pairs.some((p) => existsSync(p.output) && !isFile(p.output))) return null;
  const describe = {
    format: FORMAT,
    tool: toolIdentity(),
    jdk: jdkIdentity(),
    // Paths as given and where from: the summary names them, and outputs' manifests point at each other.
    cwd: process.cwd(),
    pairs: pairs.map((p) => ({ ...p, sha256: sha256(readFileSync(p.input)) })),
    outputFolder: req.outputFolder ?? null,
    classpath: req.classpath.map((c) => ({ path: c, sha256: sha256(readFileSync(c)) })),
    include: req.include,
    exclude: req.exclude,
    skipBroken: req.skipBroken,
    mode: req.mode,
    experiments: experimentsSet(),
  };
  return sha256(JSON.stringify(describe));
}

export type Lookup = { hit: InstrumentSummary } | { miss: string };

/** The summary of a valid entry for `key`, its outputs written; else why not (a corrupt entry is removed). */
export async function lookup(root: string, key: string, req: InstrumentRequest): Promise<Lookup> {
  const dir = join(root, key);
  let text: string;
  try {
    text = await readFile(join(dir, 'entry.json'), 'utf8');
  } catch {
    return { miss: 'no entry' };
  }
  const bad = async (why: string): Promise<Lookup> => {
    await rm(dir, { recursive: true, force: true });
    return { miss: `corrupt entry removed (${why})` };
  };
  let meta: EntryMeta;
  try {
    const parsed = JSON.parse(text) as { meta: EntryMeta; sha256: string };
    if (sha256(JSON.stringify(parsed.meta)) !== parsed.sha256) return await bad('entry.json does not match its hash');
    meta = parsed.meta;
  } catch {
    return await bad('entry.json does not parse');
  }
  if (meta.format !== FORMAT || meta.key !== key) return await bad('another format or key');
  for (const d of meta.deps) {
    if (!isFile(d.path) || sha256(readFileSync(d.path)) !== d.sha256) return { miss: `${d.path} changed` };
  }
  const pairs = [{ input: req.input, output: req.output }, ...(req.more ?? [])];
  if (meta.outputs.length !== pairs.length) return await bad('wrong number of outputs');
  const bytes: Uint8Array[] = [];
  for (let i = 0; i < meta.outputs.length; i++) {
    let b: Uint8Array;
    try {
      b = await readFile(join(dir, `out${i}`));
    } catch {
      return await bad(`out${i} is missing`);
    }
    if (b.length !== meta.outputs[i]!.size || sha256(b) !== meta.outputs[i]!.sha256) return await bad(`out${i} does not match its hash`);
    bytes.push(b);
  }
  for (let i = 0; i < pairs.length; i++) {
    if (req.outputFolder !== undefined) await mkdir(dirname(resolve(pairs[i]!.output)), { recursive: true });
    await atomicWrite(pairs[i]!.output, bytes[i]!);
  }
  const now = new Date();
  await utimes(join(dir, 'entry.json'), now, now).catch(() => undefined);
  return { hit: meta.summary };
}

/** Stores the outputs of a run that just wrote them; `deps`: files it read beyond the key's. */
export async function store(root: string, key: string, req: InstrumentRequest, summary: InstrumentSummary, deps: string[]): Promise<void> {
  const pairs = [{ input: req.input, output: req.output }, ...(req.more ?? [])];
  if (!pairs.every((p) => isFile(p.output)) || !deps.every(isFile)) return;
  await mkdir(root, { recursive: true });
  const tmp = join(root, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(tmp);
  try {
    const outputs: FileRecord[] = [];
    for (let i = 0; i < pairs.length; i++) {
      const b = await readFile(pairs[i]!.output);
      await writeFile(join(tmp, `out${i}`), b);
      outputs.push({ path: pairs[i]!.output, size: b.length, sha256: sha256(b) });
    }
    const depRecords = deps.map((p) => {
      const b = readFileSync(p);
      return { path: p, size: b.length, sha256: sha256(b) };
    });
    const meta: EntryMeta = { format: FORMAT, key, deps: depRecords, outputs, summary };
    await writeFile(join(tmp, 'entry.json'), JSON.stringify({ meta, sha256: sha256(JSON.stringify(meta)) }));
    const dir = join(root, key);
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await evict(root);
}

/** Keeps the MAX_ENTRIES most recently used entries. */
async function evict(root: string): Promise<void> {
  const names = (await readdir(root)).filter((n) => /^[0-9a-f]{64}$/.test(n));
  if (names.length <= MAX_ENTRIES) return;
  const dated = await Promise.all(
    names.map(async (n) => ({ n, t: await stat(join(root, n, 'entry.json')).then((s) => s.mtimeMs, () => 0) })),
  );
  dated.sort((a, b) => b.t - a.t);
  for (const { n } of dated.slice(MAX_ENTRIES)) await rm(join(root, n), { recursive: true, force: true });
}
