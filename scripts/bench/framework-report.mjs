// BENCHMARKS-framework.md from bench-framework.json: the paper's Table 4 (seed 000 §4.4) for each
// layout over the workloads, the issue's targets met or missed, and each workload's own figures.
import { writeFileSync } from 'node:fs';
import { geomean } from './util.mjs';
import { intervalOneCauses, whereTheCostWent } from './framework-cost.mjs';

const pct = (ratio) => (ratio == null ? '–' : `${((ratio - 1) * 100).toFixed(1)}`);
const acc = (x) => (x == null ? '–' : (x * 100).toFixed(1));
const sec = (ms) => (ms == null ? '–' : (ms / 1000).toFixed(2));
const count = (n) => (n == null ? '–' : n >= 1e5 ? n.toExponential(1).replace('e+', '×10^') : String(Math.round(n)));

function workloadsOf(results) {
  return Object.values(results.workloads).filter((w) => !w.error);
}

/** Over the workloads: geometric mean of the ratios, mean and minimum of the accuracies, mean samples. */
function across(ws, id) {
  const cs = ws.map((w) => w.configs[id]).filter((c) => c && c.verified);
  const ratios = (k) => cs.map((c) => c[k]).filter((x) => typeof x === 'number');
  const accs = (kind) => cs.map((c) => c.accuracy?.[kind]).filter((x) => typeof x === 'number');
  const alone = (c, w) => w.configs[`alone:${c.layout}${c.trigger === 'thread' ? '-thread' : ''}`];
  const sampledOnly = ws
    .map((w) => {
      const c = w.configs[id];
      const a = c && alone(c, w);
      return c?.wallRatio && a?.wallRatio ? c.wallRatio / a.wallRatio : null;
    })
    .filter((x) => x != null);
  return {
    n: cs.length,
    wall: ratios('wallRatio').length === ws.length ? geomean(ratios('wallRatio')) : null,
    cpu: ratios('cpuRatio').length === ws.length ? geomean(ratios('cpuRatio')) : null,
    sampledInstr: sampledOnly.length === ws.length ? geomean(sampledOnly) : null,
    samples: cs.length ? cs.reduce((s, c) => s + (c.samples ?? 0), 0) / cs.length : null,
    ce: accs('call-edges'),
    fa: accs('field-access'),
  };
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const min = (xs) => (xs.length ? Math.min(...xs) : null);

function targets(results, ws) {
  const rows = [];
  const verdict = (ok) => (ok == null ? 'not measured' : ok ? 'met' : '**missed**');
  const alone = across(ws, 'alone:full-dup');
  rows.push(['framework alone (full-dup, checks only), geomean', '≤ 1.10×', alone.wall?.toFixed(3) + '×', verdict(alone.wall == null ? null : alone.wall <= 1.1)]);
  const fd = across(ws, 'full-dup@1000');
  rows.push(['full-dup at 1,000, both kinds, total, geomean', '≤ 1.15×', fd.wall?.toFixed(3) + '×', verdict(fd.wall == null ? null : fd.wall <= 1.15)]);
  for (const [n, ce, fa] of [[1000, 0.94, 0.97], [10000, 0.82, 0.94]]) {
    const a = across(ws, `full-dup@${n}`);
    const ok = (xs, t) => (xs.length === ws.length ? Math.min(...xs) >= t : null);
    rows.push([`full-dup at ${n.toLocaleString('en')}: call-edges accuracy, every workload`, `≥ ${ce * 100}%`, `min ${acc(min(a.ce))}%`, verdict(ok(a.ce, ce))]);
    rows.push([`full-dup at ${n.toLocaleString('en')}: field-access accuracy, every workload`, `≥ ${fa * 100}%`, `min ${acc(min(a.fa))}%`, verdict(ok(a.fa, fa))]);
  }
  const ones = ws.flatMap((w) => Object.entries(w.configs).filter(([id]) => id.endsWith('@1')).map(([id, c]) => ({ w: w.id, id, c })));
  // Differences the program makes itself (a second exhaustive run differs there too) or that come from
  // a method one layout left as it was are explained; any other is a bug.
  const unexplained = ones.filter((o) => (o.c.unexplained ?? o.c.differsIn ?? ['?']).length > 0);
  const exact = ones.filter((o) => o.c.equalsExhaustive === true).length;
  const measured = unexplained.length
    ? `differs: ${unexplained.map((o) => `${o.w} ${o.id} (in ${(o.c.unexplained ?? o.c.differsIn ?? ['?']).join(', ')})`).join(', ')}`
    : `${ones.length} of ${ones.length} (${exact} identical; the others differ only in methods the program runs differently from run to run, or with the identity hash codes its jar draws, or that one layout left as it was: see below)`;
  rows.push(['interval 1 records exactly the exhaustive profile', 'every workload, every layout', measured, verdict(ones.length ? unexplained.length === 0 : null)]);
  return table(['target', 'issue 19', 'measured', ''], rows);
}

/** Per workload and layout: where interval 1 differs from the exhaustive profile, and why. */
function intervalOne(ws) {
  const rows = [];
  for (const w of ws) {
    const varies = new Set(w.configs.exhaustive?.selfDiffers ?? []);
    for (const [id, c] of Object.entries(w.configs).filter(([k]) => k.endsWith('@1'))) {
      if (!c.differsIn) continue;
      const unexplained = new Set(c.unexplained ?? c.differsIn);
      const hashes = new Set(c.identityHashes ?? []);
      const by = (pred) => c.differsIn.filter(pred);
      const names = (xs) => (xs.length ? xs.map((m) => m.replace(/^.*\.(\w+\.[\w$<>]+)$/, '$1')).join(', ') : '—');
      rows.push([
        w.id,
        id.replace('@1', ''),
        c.differsIn.length === 0 ? 'identical' : `${c.differsIn.length} methods`,
        names(by((m) => varies.has(m))),
        names(by((m) => !varies.has(m) && !unexplained.has(m) && !hashes.has(m))),
        c.identityHashes ? names(c.identityHashes) : '–',
        names([...unexplained]),
      ]);
    }
  }
  return [
    'Methods whose counts differ. A second exhaustive run of the same workload differs from the first in the methods of the fourth column (threads, timing, identity hash codes), so those say nothing about the layout. The fifth: methods one of the two layouts left as they were (they would have grown past HugeMethodLimit) and the other instrumented. The sixth: methods that differ no more when both runs are made again with every identity hash code the same (`-XX:+UnlockExperimentalVMOptions -XX:hashCode=2`): each jar draws its own sequence of identity hash codes, and the program\'s hash tables run differently with them ("–": not rerun, nothing was left to explain). The last column should be empty.',
    '',
    table(['workload', 'layout', 'interval 1 vs exhaustive', 'the program varies', 'left as it was', 'identity hash codes', 'unexplained'], rows),
  ].join('\n');
}

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function table4(results, ws, layout) {
  const rows = [];
  for (const n of results.settings.intervals) {
    const a = across(ws, `${layout}@${n}`);
    rows.push([
      n.toLocaleString('en'),
      count(a.samples),
      pct(a.sampledInstr),
      pct(a.wall),
      pct(a.cpu),
      `${acc(mean(a.ce))} (${acc(min(a.ce))})`,
      `${acc(mean(a.fa))} (${acc(min(a.fa))})`,
    ]);
  }
  const alone = across(ws, `alone:${layout}`);
  rows.push(['framework alone', '0', '–', pct(alone.wall), pct(alone.cpu), '–', '–']);
  return table(['interval', 'samples (mean)', 'sampled instr. %', 'total % (wall)', 'total % (CPU)', 'call-edges % mean (min)', 'field-access % mean (min)'], rows);
}

function perWorkload(w, results) {
  const rows = [['uninstrumented', sec(w.base.wallMs), '1.000', '1.000', '–', '–', '–']];
  for (const [id, c] of Object.entries(w.configs)) {
    if (!c.verified) {
      rows.push([id, 'OUTPUT DIFFERS', '', '', '', '', c.problems.join('; ')]);
      continue;
    }
    rows.push([id, sec(c.wallMs), c.wallRatio?.toFixed(3) ?? '–', c.cpuRatio?.toFixed(3) ?? '–', count(c.samples), acc(c.accuracy?.['call-edges']), acc(c.accuracy?.['field-access'])]);
  }
  const sets = Object.entries(w.jarSets).map(([id, s]) => {
    const fb = Object.entries(s.summary.fallbacks).map(([k, n]) => `${n} ${k}`).join('; ') || 'none';
    return `- \`${id}\`: ${s.summary.methods} methods laid out (${Object.entries(s.summary.layouts).filter(([, n]) => n).map(([l, n]) => `${l} ${n}`).join(', ')}), ${s.summary.outOfLine} out of line, ${s.summary.probes} probes, ${(s.bytes / 1024).toFixed(0)} KiB; fallbacks: ${fb}`;
  });
  return [
    `### ${w.title}`,
    '',
    `${w.input}${w.note ? ` (${w.note})` : ''}. Medians of ${results.settings.reps} interleaved runs; ratios against the uninstrumented run; accuracy against this workload's exhaustive profile.`,
    '',
    table(['configuration', 'wall s', 'wall ×', 'CPU ×', 'samples', 'call-edges %', 'field-access %'], rows),
    '',
    ...sets,
    '',
  ].join('\n');
}

/** A later `--accuracy-only` run replaced what the profiles give; the timings are the run above's. */
function accuracyRunLine(a) {
  if (!a) return [];
  const commit = a.commit ? `, commit ${a.commit}${a.dirty ? ` (+${a.dirty} changed files)` : ''}` : '';
  const load = `load average ${a.loadavg}${a.loadavgAtEnd ? ` at the start and ${a.loadavgAtEnd} at the end` : ''}`;
  return [
    `Samples, accuracy, the interval-1 comparison and the instrument summaries come from a later \`${a.command}\` (every configuration run once, no timing) from ${a.startedAt} to ${a.finishedAt ?? '(unfinished)'}${commit}, ${load}; the overheads are the run above's.`,
  ];
}

export function writeFrameworkReport(results, md) {
  const ws = workloadsOf(results);
  const m = results.machine;
  const failed = Object.values(results.workloads).filter((w) => w.error);
  const out = [
    '# The Arnold–Ryder framework: call-edges and field-access (seed 000, Table 4)',
    '',
    `Produced by \`${results.command}\` (scripts/bench/framework.mjs) from ${results.startedAt} to ${results.finishedAt ?? '(unfinished)'}, commit ${m.commit}${m.dirty ? ` (+${m.dirty} changed files)` : ''}.`,
    `${m.nproc} cores (${m.cpu}), ${m.memoryGiB} GiB, load average ${m.loadavg} at the start and ${m.loadavgAtEnd ?? '?'} at the end; ${m.jdk}.`,
    `Every configuration runs once to compare its output with the uninstrumented run (all identical unless a row says OUTPUT DIFFERS) and to give its profile, then ${results.settings.reps} times for timing, interleaved in an order rotated each repetition. Overheads are medians of whole processes on a plain \`java\`${results.settings.jvmArgs.length ? ` ${results.settings.jvmArgs.join(' ')}` : ''}; "framework alone" runs the checks with \`-Dkomorium.interval=${results.settings.never}\`, so no sample is ever taken.`,
    ...accuracyRunLine(results.accuracyRun),
    '',
    ...(failed.length ? [`Workloads that failed: ${failed.map((w) => `${w.id} (${w.error})`).join('; ')}.`, ''] : []),
    '## Targets',
    '',
    targets(results, ws),
    '',
    `## Table 4, over the ${ws.length} workloads`,
    '',
    'Overheads are geometric means over the workloads, in percent above the uninstrumented run. "Sampled instr." is the overhead above the framework alone (the paper\'s "Sampled Instrum."); "total" includes the framework. Accuracy is the overlap with the exhaustive profile (seed 000 §4.4): mean over the workloads and, in parentheses, the worst workload.',
    '',
  ];
  for (const layout of results.settings.layouts) out.push(`### ${layout}`, '', table4(results, ws, layout), '');
  const ex = across(ws, 'exhaustive');
  out.push(`Exhaustive instrumentation (every event, the reference): ${pct(ex.wall)}% (wall), ${pct(ex.cpu)}% (CPU).`, '');
  const th = across(ws, 'full-dup-thread@1000');
  const tha = across(ws, 'alone:full-dup-thread');
  if (th.n) {
    out.push(
      `Per-thread trigger (\`--trigger thread\`, full-dup): framework alone ${pct(tha.wall)}% (CPU ${pct(tha.cpu)}%), at 1,000 ${pct(th.wall)}% (CPU ${pct(th.cpu)}%), accuracy ${acc(mean(th.ce))} / ${acc(mean(th.fa))}; against the global counter's ${pct(across(ws, 'alone:full-dup').wall)}% and ${pct(across(ws, 'full-dup@1000').wall)}%.`,
      '',
    );
  }
  out.push(...whereTheCostWent());
  out.push('## Interval 1 against the exhaustive profile', '', intervalOne(ws), '', ...intervalOneCauses());
  out.push('## Each workload', '');
  for (const w of ws) out.push(perWorkload(w, results));
  writeFileSync(md, `${out.join('\n').trimEnd()}\n`);
}
