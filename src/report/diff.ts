/**
 * Comparing two profiles A (before) and B (after): the overlap of seed 002 §7.1, what grew and
 * shrank (as shares and in estimated bytecodes, §7.2), a differential flame graph, and the CI gates
 * (--fail-under, --max-growth) whose verdict makes the CLI exit 1.
 *
 * Growth is measured in estimated bytecodes, not in shares: bytecode counts are deterministic and
 * absolute, so a method that does the same work while the rest of the program got faster does not
 * look like it grew.
 */
import { KomoriumError } from '../errors.js';
import { describeGranularity, flatten, overlap, type OverlapResult } from '../profile/analysis.js';
import { share, stackOf, type ContextNode, type MethodEntry, type Profile } from '../profile/model.js';
import { diffFlamePayload, renderFlameHtml } from './html.js';
import { formatInt, formatPct, formatSignedInt, formatSignedPct, methodMatcher, methodName, sourceRef, table, type NameOptions } from './names.js';
import { headerLines } from './text.js';
import { positionRef, stackTrace } from './lines.js';

export interface DiffOptions extends NameOptions {
  /** Gate: minimum calling-context overlap, in percent. */
  failUnder?: number;
  /** Gate: maximum growth of the total bytecodes, and of each --method match, in percent. */
  maxGrowth?: number;
  /** Method patterns (see methodMatcher) whose inclusive bytecodes --max-growth also limits. */
  methods?: string[];
  /** Rows per list in the text report (default 10). */
  top?: number;
}

export interface MethodChange {
  method: MethodEntry;
  /** Self and inclusive shares (0..1) and estimated bytecodes in A and B. */
  selfShareA: number;
  selfShareB: number;
  totalShareA: number;
  totalShareB: number;
  selfA: number;
  selfB: number;
  totalA: number;
  totalB: number;
  /** selfB − selfA and totalB − totalA, estimated bytecodes. */
  deltaSelf: number;
  deltaTotal: number;
  /** (selfB − selfA) / selfA; Infinity for a method new in B with self bytecodes. */
  selfGrowth: number;
  totalGrowth: number;
}

export interface ContextChange {
  /** Root-first methods of the calling context. */
  stack: MethodEntry[];
  /** The context in B (in A when B lacks it): its lines, for the stack trace. */
  node: ContextNode;
  shareA: number;
  shareB: number;
  /** Estimated self bytecodes in A and B, and B − A. */
  bytecodesA: number;
  bytecodesB: number;
  delta: number;
}

export interface GateResult {
  gate: 'fail-under' | 'max-growth';
  /** What was measured: `overlap`, `total bytecodes` or a method's display name. */
  subject: string;
  /** The limit in percent and the measured value in percent (growth may be Infinity). */
  limit: number;
  actual: number;
  passed: boolean;
  message: string;
}

export interface DiffResult {
  a: Profile;
  b: Profile;
  warnings: string[];
  overlap: OverlapResult;
  totalBytecodes: { a: number; b: number; delta: number; growth: number };
  /** All methods of A and B, largest self growth first (ties by name). */
  methods: MethodChange[];
  /** All calling contexts with self counters in A or B, largest growth first. */
  contexts: ContextChange[];
  gates: GateResult[];
  /** False when a gate failed (the CLI exits 1). */
  passed: boolean;
}

function growth(a: number, b: number): number {
  if (a === 0) return b === 0 ? 0 : Infinity;
  return (b - a) / a;
}

/** Compares A and B. Throws KomoriumError when they cannot be compared (different agents or units). */
export function diffProfiles(a: Profile, b: Profile, opts: DiffOptions = {}): DiffResult {
  if (a.agent !== b.agent || a.unit !== b.unit) {
    throw new KomoriumError(
      `diff: ${a.name} was written by agent "${a.agent}" (unit ${a.unit}) and ${b.name} by agent "${b.agent}" (unit ${b.unit}): ` +
        `profiles of different agents are not comparable; profile both runs with the same agent, or measure how close a sampled profile is to an exact one with diff --accuracy EXACT SAMPLED`,
    );
  }
  const warnings: string[] = [];
  if (a.unit === 'samples' && (a.granularity !== b.granularity || a.random !== b.random)) {
    warnings.push(
      `different sampling granularities (${a.name}: ${describeGranularity(a)}, ${b.name}: ${describeGranularity(b)}): ` +
        `shares and estimated bytecodes are still comparable, but the sampling noise differs`,
    );
  }
  if (a.totalCounter === 0 || b.totalCounter === 0) warnings.push(`${a.totalCounter === 0 ? a.name : b.name} holds no samples`);

  const est = (p: Profile, c: number): number => share(p, c) * p.totalBytecodes;
  const flatA = new Map(flatten(a).map((f) => [f.method.key, f]));
  const flatB = new Map(flatten(b).map((f) => [f.method.key, f]));
  const keys = new Map<string, MethodEntry>();
  for (const m of b.methods) keys.set(m.key, m);
  for (const m of a.methods) if (!keys.has(m.key)) keys.set(m.key, m);
  const methods: MethodChange[] = [];
  for (const [key, method] of keys) {
    const fa = flatA.get(key);
    const fb = flatB.get(key);
    if (fa === undefined && fb === undefined) continue;
    const selfA = est(a, fa?.self ?? 0);
    const selfB = est(b, fb?.self ?? 0);
    const totalA = est(a, fa?.total ?? 0);
    const totalB = est(b, fb?.total ?? 0);
    methods.push({
      method,
      selfShareA: share(a, fa?.self ?? 0),
      selfShareB: share(b, fb?.self ?? 0),
      totalShareA: share(a, fa?.total ?? 0),
      totalShareB: share(b, fb?.total ?? 0),
      selfA,
      selfB,
      totalA,
      totalB,
      deltaSelf: selfB - selfA,
      deltaTotal: totalB - totalA,
      selfGrowth: growth(selfA, selfB),
      totalGrowth: growth(totalA, totalB),
    });
  }
  const byName = (x: MethodEntry, y: MethodEntry): number => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
  methods.sort((x, y) => y.deltaSelf - x.deltaSelf || byName(x.method, y.method));

  const contexts = contextChanges(a, b, est);

  const totalBytecodes = { a: a.totalBytecodes, b: b.totalBytecodes, delta: b.totalBytecodes - a.totalBytecodes, growth: growth(a.totalBytecodes, b.totalBytecodes) };
  const ov = overlap(a, b);
  const gates: GateResult[] = [];
  if (opts.failUnder !== undefined) {
    const actual = ov.total * 100;
    // Compare at the printed precision so the verdict never contradicts the number shown next to it.
    const passed = Number(actual.toFixed(2)) >= opts.failUnder;
    gates.push({
      gate: 'fail-under',
      subject: 'overlap',
      limit: opts.failUnder,
      actual,
      passed,
      message: `overlap ${actual.toFixed(2)}% ${passed ? '≥' : '<'} ${opts.failUnder}% (--fail-under)`,
    });
  }
  if (opts.maxGrowth !== undefined) {
    const limit = opts.maxGrowth;
    const check = (subject: string, g: number, detail: string): void => {
      const actual = g * 100;
      const passed = Number.isFinite(actual) ? Number(actual.toFixed(2)) <= limit : actual < 0;
      gates.push({
        gate: 'max-growth',
        subject,
        limit,
        actual,
        passed,
        message: `${subject} ${formatSignedPct(g, 2)} ${passed ? '≤' : '>'} ${limit}% (--max-growth): ${detail}`,
      });
    };
    check('total bytecodes', totalBytecodes.growth, `${formatInt(a.totalBytecodes)} → ${formatInt(b.totalBytecodes)}`);
    for (const pattern of opts.methods ?? []) {
      const match = methodMatcher(pattern);
      const matched = methods.filter((c) => match(c.method));
      if (matched.length === 0) {
        // A gate that silently checks nothing would pass forever after a rename.
        throw new KomoriumError(`diff: --method "${pattern}" matches no method in ${a.name} or ${b.name}`);
      }
      for (const c of [...matched].sort((x, y) => byName(x.method, y.method))) {
        check(methodName(c.method, opts), c.totalGrowth, `${formatInt(c.totalA)} → ${formatInt(c.totalB)} bytecodes including callees`);
      }
    }
  }
  return { a, b, warnings, overlap: ov, totalBytecodes, methods, contexts, gates, passed: gates.every((g) => g.passed) };
}

/** Walks A and B together, pairing contexts by their stack of method keys, including one-sided ones. */
function contextChanges(a: Profile, b: Profile, est: (p: Profile, c: number) => number): ContextChange[] {
  const out: ContextChange[] = [];
  const stack: [ContextNode | null, ContextNode | null][] = [[a.root, b.root]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    const cx = x?.counter ?? 0;
    const cy = y?.counter ?? 0;
    const some = (y ?? x)!;
    if (some.method !== null && (cx > 0 || cy > 0)) {
      const bytecodesA = est(a, cx);
      const bytecodesB = est(b, cy);
      out.push({ stack: stackOf(some), node: some, shareA: share(a, cx), shareB: share(b, cy), bytecodesA, bytecodesB, delta: bytecodesB - bytecodesA });
    }
    const ys = new Map((y?.children ?? []).map((c) => [c.method!.key, c]));
    for (const c of x?.children ?? []) {
      stack.push([c, ys.get(c.method!.key) ?? null]);
      ys.delete(c.method!.key);
    }
    for (const c of ys.values()) stack.push([null, c]);
  }
  const keyOf = (c: ContextChange): string => c.stack.map((m) => m.key).join('\u0001');
  return out
    .map((c) => ({ c, k: keyOf(c) }))
    .sort((x, y) => y.c.delta - x.c.delta || (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    .map((e) => e.c);
}

/** Grew most, verdict, both headers, totals, overlap and warnings: the top of the text and HTML diffs. */
export function diffSummaryLines(d: DiffResult, opts: NameOptions = {}): string[] {
  const { a, b } = d;
  const out: string[] = [];
  // The grown method comes first: it is what a failed CI job should show without scrolling.
  const g0 = d.methods.find((m) => Math.round(m.deltaSelf) > 0);
  out.push(
    g0 === undefined
      ? 'Grew most: no method grew'
      : `Grew most: ${methodName(g0.method, opts)} ${formatSignedInt(g0.deltaSelf)} bytecodes self (${formatSignedPct(g0.selfGrowth)}), ` +
          `${formatPct(g0.selfShareA)} → ${formatPct(g0.selfShareB)} of the run`,
  );
  if (d.gates.length === 0) out.push('Verdict: no gates set (--fail-under, --max-growth)');
  else {
    const failed = d.gates.filter((g) => !g.passed);
    out.push(failed.length === 0 ? `Verdict: PASS (${d.gates.length} gate${d.gates.length === 1 ? '' : 's'})` : `Verdict: FAIL: ${failed.map((g) => g.message).join('; ')}`);
  }
  out.push('', `A  ${a.name}`, ...headerLines(a), `B  ${b.name}`, ...headerLines(b), '');
  const t = d.totalBytecodes;
  out.push(`Total bytecodes: ${formatInt(t.a)} → ${formatInt(t.b)} (${formatSignedInt(t.delta)}, ${formatSignedPct(t.growth)})`);
  out.push(
    `Overlap: calling contexts ${formatPct(d.overlap.total, 2)}, methods ${formatPct(d.overlap.methodOverlap, 2)} ` +
      '(how much of the two runs agrees: for each calling context, or method, the smaller of its shares of A and of B, summed; 100% is the same profile)',
  );
  for (const w of d.warnings) out.push(`Warning: ${w}`);
  return out;
}

export function renderDiffText(d: DiffResult, opts: DiffOptions = {}): string {
  const top = opts.top ?? 10;
  const label = (m: MethodEntry): string => {
    const src = sourceRef(m);
    return src === '' ? methodName(m, opts) : `${methodName(m, opts)} (${src})`;
  };
  const out: string[] = [...diffSummaryLines(d, opts), ''];
  const grew = d.methods.filter((m) => Math.round(m.deltaSelf) > 0);
  const shrank = d.methods.filter((m) => Math.round(m.deltaSelf) < 0).reverse();

  const methodRows = (list: MethodChange[]): string[] =>
    table(
      [
        ['Δ self bytecodes', 'growth', 'self A → B', 'total A → B', 'method'],
        ...list
          .slice(0, top)
          .map((m) => [
            formatSignedInt(m.deltaSelf),
            formatSignedPct(m.selfGrowth),
            `${formatPct(m.selfShareA)} → ${formatPct(m.selfShareB)}`,
            `${formatPct(m.totalShareA)} → ${formatPct(m.totalShareB)}`,
            label(m.method),
          ]),
      ],
      ['r', 'r', 'r', 'r', 'l'],
    );
  out.push(`Methods that grew most (estimated self bytecodes, B vs A), ${Math.min(top, grew.length)} of ${grew.length}:`);
  out.push(...(grew.length > 0 ? methodRows(grew) : ['  none']), '');
  out.push(`Methods that shrank most, ${Math.min(top, shrank.length)} of ${shrank.length}:`);
  out.push(...(shrank.length > 0 ? methodRows(shrank) : ['  none']), '');

  const contextBlock = (list: ContextChange[]): string[] => {
    const lines: string[] = [];
    list.slice(0, top).forEach((c, i) => {
      const g = growth(c.bytecodesA, c.bytecodesB);
      lines.push(`  #${i + 1}  ${formatSignedInt(c.delta)} bytecodes (${formatSignedPct(g)}), ${formatPct(c.shareA)} → ${formatPct(c.shareB)}`);
      for (const f of stackTrace(c.node)) {
        const at = positionRef(f.method, f.line);
        lines.push(`        at ${methodName(f.method, opts)}${at === '' ? '' : ` (${at})`}`);
      }
    });
    return lines.length > 0 ? lines : ['  none'];
  };
  const cGrew = d.contexts.filter((c) => Math.round(c.delta) > 0);
  const cShrank = d.contexts.filter((c) => Math.round(c.delta) < 0).reverse();
  out.push(`Calling contexts that grew most (innermost frame first), ${Math.min(top, cGrew.length)} of ${cGrew.length}:`, ...contextBlock(cGrew), '');
  out.push(`Calling contexts that shrank most, ${Math.min(top, cShrank.length)} of ${cShrank.length}:`, ...contextBlock(cShrank), '');

  const lost = d.overlap.perMethod.filter((m) => Math.max(m.selfA, m.selfB) - m.contextOverlap > 5e-5);
  out.push(`Overlap per method (where the profiles differ most; self share in A and B, and its part of the context overlap):`);
  out.push(
    ...(lost.length === 0
      ? ['  none: every method has the same share in the same calling contexts']
      : table(
          [
            ['self A', 'self B', 'overlap', 'lost', 'method'],
            ...lost
              .slice(0, top)
              .map((m) => [
                formatPct(m.selfA, 2),
                formatPct(m.selfB, 2),
                formatPct(m.contextOverlap, 2),
                formatPct(Math.max(m.selfA, m.selfB) - m.contextOverlap, 2),
                label(m.method),
              ]),
          ],
          ['r', 'r', 'r', 'r', 'l'],
        )),
  );
  if (d.gates.length > 0) {
    out.push('', 'Gates:');
    for (const g of d.gates) out.push(`  ${g.passed ? 'PASS' : 'FAIL'}  ${g.message}`);
  }
  return out.join('\n') + '\n';
}

/** The diff as JSON: the same content as the text, for scripts (shares 0..1, bytecodes rounded). */
export function renderDiffJson(d: DiffResult, opts: DiffOptions = {}): string {
  const top = opts.top ?? Infinity;
  const num = (v: number): number | string => (Number.isFinite(v) ? v : v > 0 ? 'Infinity' : '-Infinity');
  const json = {
    format: 'komorium-diff',
    version: 1,
    a: d.a.name,
    b: d.b.name,
    passed: d.passed,
    warnings: d.warnings,
    totalBytecodes: { a: d.totalBytecodes.a, b: d.totalBytecodes.b, delta: d.totalBytecodes.delta, growth: num(d.totalBytecodes.growth) },
    overlap: { contexts: d.overlap.total, methods: d.overlap.methodOverlap },
    gates: d.gates.map((g) => ({ ...g, actual: num(g.actual) })),
    methods: d.methods.slice(0, top).map((m) => ({
      name: methodName(m.method, opts),
      class: m.method.className,
      method: m.method.name,
      descriptor: m.method.descriptor,
      selfShareA: m.selfShareA,
      selfShareB: m.selfShareB,
      totalShareA: m.totalShareA,
      totalShareB: m.totalShareB,
      selfBytecodesA: Math.round(m.selfA),
      selfBytecodesB: Math.round(m.selfB),
      totalBytecodesA: Math.round(m.totalA),
      totalBytecodesB: Math.round(m.totalB),
      selfGrowth: num(m.selfGrowth),
      totalGrowth: num(m.totalGrowth),
    })),
    overlapPerMethod: d.overlap.perMethod.slice(0, top).map((m) => ({ name: methodName(m.method, opts), selfShareA: m.selfA, selfShareB: m.selfB, contextOverlap: m.contextOverlap })),
    contexts: d.contexts.slice(0, top).map((c) => ({
      stack: c.stack.map((m) => methodName(m, opts)),
      shareA: c.shareA,
      shareB: c.shareB,
      bytecodesA: Math.round(c.bytecodesA),
      bytecodesB: Math.round(c.bytecodesB),
    })),
  };
  return JSON.stringify(json, null, 1) + '\n';
}

/** The differential flame graph: B's tree, colored by growth against A. */
export function renderDiffHtml(d: DiffResult, opts: DiffOptions = {}): string {
  const info = diffSummaryLines(d, opts);
  if (d.gates.length > 0) info.push('', ...d.gates.map((g) => `${g.passed ? 'PASS' : 'FAIL'}  ${g.message}`));
  return renderFlameHtml(diffFlamePayload(d.a, d.b, opts, { a: `A (${d.a.name})`, b: `B (${d.b.name})` }), {
    title: `komorium diff ${d.a.name} → ${d.b.name}`,
    info,
  });
}
