// JFR recordings as method-level profiles, for the reproducibility comparison of `npm run bench`:
// `jfr print --events jdk.ExecutionSample --stack-depth 64` (text, far smaller than --json), one
// sample per event, its frames innermost first as `pkg.Class.method(SimpleParamTypes) line: N`.
import { spawnSync } from 'node:child_process';

/** The stacks (innermost frame first, each frame as `pkg.Class.method(Params)`) of a recording. */
export function readJfrStacks(jfrBin, file) {
  const r = spawnSync(jfrBin, ['print', '--events', 'jdk.ExecutionSample', '--stack-depth', '64', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`jfr print ${file} failed: ${r.stderr}`);
  const stacks = [];
  let cur = null;
  for (const line of r.stdout.split('\n')) {
    const t = line.trim();
    if (t === 'stackTrace = [') cur = [];
    else if (cur !== null && t === ']') {
      stacks.push(cur);
      cur = null;
    } else if (cur !== null && t !== '...' && t !== '') {
      cur.push(t.replace(/\s+line: \d+$/, ''));
    }
  }
  return stacks;
}

/** The class of a JFR frame, `pkg.Class$Inner`. */
export function frameClass(frame) {
  const paren = frame.indexOf('(');
  const head = paren < 0 ? frame : frame.slice(0, paren);
  return head.slice(0, head.lastIndexOf('.'));
}

/**
 * Self shares per method: each sample counts for its innermost frame, or, with `isApp`, for its
 * innermost frame whose class passes isApp (samples with none are dropped).
 */
export function selfShares(stacks, isApp) {
  const counts = new Map();
  let n = 0;
  for (const s of stacks) {
    const f = isApp ? s.find((fr) => isApp(frameClass(fr))) : s[0];
    if (f === undefined) continue;
    counts.set(f, (counts.get(f) ?? 0) + 1);
    n++;
  }
  const shares = new Map();
  for (const [k, c] of counts) shares.set(k, c / n);
  return { shares, samples: n };
}

/** Σ over methods of min(share a, share b): the method-level overlap of two flat profiles. */
export function methodOverlap(a, b) {
  let s = 0;
  for (const [k, x] of a) {
    const y = b.get(k);
    if (y !== undefined) s += Math.min(x, y);
  }
  return Math.min(1, s);
}

/** How many of a's top n methods are among b's top n. */
export function topAgreement(a, b, n = 10) {
  const top = (m) => [...m.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, n).map((e) => e[0]);
  const tb = new Set(top(b));
  return top(a).filter((k) => tb.has(k)).length;
}

const PRIMS = { B: 'byte', C: 'char', D: 'double', F: 'float', I: 'int', J: 'long', S: 'short', Z: 'boolean', V: 'void' };

/** A komorium method (internal class name, name, descriptor) as JFR prints a frame. */
export function jfrFrameOf(className, name, descriptor) {
  const params = [];
  let i = 1;
  while (descriptor[i] !== ')') {
    let dims = 0;
    while (descriptor[i] === '[') {
      dims++;
      i++;
    }
    let t;
    if (descriptor[i] === 'L') {
      const end = descriptor.indexOf(';', i);
      const full = descriptor.slice(i + 1, end);
      t = full.slice(full.lastIndexOf('/') + 1);
      i = end + 1;
    } else {
      t = PRIMS[descriptor[i]];
      i++;
    }
    params.push(t + '[]'.repeat(dims));
  }
  return `${className.replaceAll('/', '.')}.${name}(${params.join(', ')})`;
}

/** Method self shares of a komorium profile (dist/profile's Profile), keyed as JFR frames. */
export function komoriumSelfShares(profile) {
  const shares = new Map();
  if (profile.totalCounter === 0) return shares;
  for (const n of profile.nodes) {
    if (n.method === null || n.counter === 0) continue;
    const k = jfrFrameOf(n.method.className, n.method.name, n.method.descriptor);
    shares.set(k, (shares.get(k) ?? 0) + n.counter / profile.totalCounter);
  }
  return shares;
}
