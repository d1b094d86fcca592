// BENCHMARKS-hps.md from bench-hps.json (`node scripts/bench/hps.mjs --report-only`): issue 21's
// tables, targets first.
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { geomean } from './util.mjs';

const KINDS = ['hot-methods', 'call-pairs', 'data-streams'];
const MECHANISMS = ['counter', 'flag', 'volatile', 'indy'];
const TARGET = { 'hot-methods': { f: 1000, l: 1 }, 'call-pairs': { f: 1000, l: 1 }, 'data-streams': { f: 1000, l: 100 } };

const ratio = (x) => (x == null ? '–' : `${x.toFixed(3)}×`);
const pct = (x, d = 1) => (x == null ? '–' : `${(x * 100).toFixed(d)}`);
const met = (ok) => (ok == null ? '**n/a**' : ok ? '**MET**' : '**NOT MET**');
const mean = (xs) => {
  const v = xs.filter((x) => x != null);
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
};
const min = (xs) => {
  const v = xs.filter((x) => x != null);
  return v.length ? Math.min(...v) : null;
};

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

function tableOf(header, rows) {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)];
}

/** One value per workload and the geometric mean (ratios) or mean (accuracies). */
function perWorkload(wls, label, get, fmt, avg = geomean) {
  const vals = wls.map(get);
  return [label, ...vals.map(fmt), fmt(avg(vals.filter((v) => v != null)))];
}

function targets(wls, winner) {
  const cfg = (w, id) => w.configs[id];
  const lines = [];
  const wBasic = wls.map((w) => cfg(w, `hot-methods/${winner}/basic`)?.medianRatio);
  const gBasic = geomean(wBasic.filter((x) => x != null));
  const cBasic = geomean(wls.map((w) => cfg(w, 'hot-methods/counter/basic')?.medianRatio).filter((x) => x != null));
  lines.push(row([`basic overhead of the winning mechanism (${winner}) ≤ 1.03×, geometric mean (hot-methods)`, `${ratio(gBasic)} (software counters ${ratio(cBasic)})`, met(gBasic == null ? null : gBasic <= 1.03)]));
  for (const kind of ['hot-methods', 'call-pairs']) {
    for (const m of ['counter', winner]) {
      const acc = wls.map((w) => [w.id, cfg(w, `${kind}/${m}/total`)?.accuracy]);
      const tot = geomean(wls.map((w) => cfg(w, `${kind}/${m}/total`)?.medianRatio).filter((x) => x != null));
      const accOk = acc.every(([, a]) => a != null && a >= 0.9);
      lines.push(
        row([
          `${kind}, ${m}, 1/1000, burst 1: accuracy ≥ 90 on every workload, total ≤ 1.05×`,
          `accuracy ${acc.map(([id, a]) => `${id} ${pct(a)}`).join(', ')}; total ${ratio(tot)}`,
          met(acc.some(([, a]) => a == null) || tot == null ? null : accOk && tot <= 1.05),
        ]),
      );
    }
  }
  for (const m of ['counter', winner]) {
    const acc = wls.map((w) => [w.id, cfg(w, `data-streams/${m}/total`)?.accuracy]);
    const tot = geomean(wls.map((w) => cfg(w, `data-streams/${m}/total`)?.medianRatio).filter((x) => x != null));
    lines.push(row([`data-streams, ${m}, 1/1000, burst 100: accuracy against the paper's range (at most 50), overhead`, `accuracy ${acc.map(([id, a]) => `${id} ${pct(a)}`).join(', ')}; total ${ratio(tot)}`, 'reported']));
  }
  const ds = wls.map((w) => [w.id, cfg(w, 'data-streams/exhaustive')]);
  lines.push(
    row([
      'exhaustive data-stream analysis finishes on every workload in bounded memory',
      ds.map(([id, c]) => (c ? `${id} ${c.verified ? `${(c.verifyWallMs / 1000).toFixed(0)} s, ${(c.verifyMaxRssKb / 1024).toFixed(0)} MiB` : 'FAILED'}` : `${id} –`)).join(', '),
      met(ds.some(([, c]) => !c) ? null : ds.every(([, c]) => c.verified)),
    ]),
  );
  return lines;
}

function mechanismTables(wls) {
  const ids = wls.map((w) => w.id);
  const out = [];
  const header = ['mechanism', ...ids, 'geomean'];
  const cfg = (w, id) => w.configs[id];
  out.push('### Basic overhead: checks (and, for the timer mechanisms, armed counting and switches), no burst ever starts', '');
  out.push(...tableOf(header, MECHANISMS.map((m) => perWorkload(wls, m, (w) => cfg(w, `hot-methods/${m}/basic`)?.medianRatio, ratio))));
  out.push('', '### A check never armed (the timer never fires after its first millisecond): what the check alone costs', '');
  out.push(...tableOf(header, MECHANISMS.filter((m) => m !== 'counter').map((m) => perWorkload(wls, m, (w) => cfg(w, `hot-methods/${m}/never-armed`)?.medianRatio, ratio))));
  out.push('', '### Cost of switching: burst-indy with a period of 100 ms (awake 10 ms) instead of 1000 ms (100 ms), no burst', '');
  out.push(
    ...tableOf(header, [
      perWorkload(wls, 'indy, period 1000 ms', (w) => cfg(w, 'hot-methods/indy/basic')?.medianRatio, ratio),
      perWorkload(wls, 'indy, period 100 ms', (w) => cfg(w, 'hot-methods/indy/basic-period-100')?.medianRatio, ratio),
      perWorkload(wls, 'switches at 100 ms', (w) => cfg(w, 'hot-methods/indy/basic-period-100')?.switches, (x) => (x == null ? '–' : String(Math.round(x))), mean),
      perWorkload(
        wls,
        'ms per switch at 100 ms',
        // Both arm 10% of the time: what the shorter period adds is its extra switches.
        (w) => {
          const a = cfg(w, 'hot-methods/indy/basic-period-100');
          const b = cfg(w, 'hot-methods/indy/basic');
          if (!a?.medianRatio || !b?.medianRatio || !(a.switches > b.switches) || !w.base?.medianMs) return null;
          return ((a.medianRatio - b.medianRatio) * w.base.medianMs) / (a.switches - b.switches);
        },
        (x) => (x == null ? '–' : x.toFixed(1)),
        mean,
      ),
    ]),
  );
  out.push('', '### Total overhead and accuracy (90% cut-off) at 1/1000, burst 1', '');
  out.push(...tableOf(header, MECHANISMS.map((m) => perWorkload(wls, `${m} total`, (w) => cfg(w, `hot-methods/${m}/total`)?.medianRatio, ratio))));
  out.push('');
  out.push(...tableOf(header, MECHANISMS.map((m) => perWorkload(wls, `${m} accuracy`, (w) => cfg(w, `hot-methods/${m}/total`)?.accuracy, (x) => pct(x), mean))));
  out.push('', 'Armed share of the time achieved by the timer mechanisms (configured 10% for flag and volatile, 10% for indy), and the latest timer wake-up:', '');
  out.push(
    ...tableOf(
      header,
      MECHANISMS.filter((m) => m !== 'counter').map((m) =>
        perWorkload(
          wls,
          m,
          (w) => cfg(w, `hot-methods/${m}/total`)?.armedShare,
          (x) => (x == null ? '–' : `${(x * 100).toFixed(1)}%`),
          mean,
        ),
      ),
    ),
  );
  return out;
}

function kindTables(wls, winner) {
  const out = [];
  const cfg = (w, id) => w.configs[id];
  for (const kind of KINDS) {
    const t = TARGET[kind];
    out.push('', `### ${kind} at 1/${t.f}, burst ${t.l}`, '');
    const header = ['workload', 'counters: basic', 'total', 'profiling', 'accuracy', `${winner}: basic`, 'total', 'profiling', 'accuracy'];
    const rows = wls.map((w) => {
      const cells = [w.id];
      for (const m of ['counter', winner]) {
        const b = cfg(w, `${kind}/${m}/basic`)?.medianRatio;
        const tt = cfg(w, `${kind}/${m}/total`)?.medianRatio;
        cells.push(ratio(b), ratio(tt), b != null && tt != null ? `${((tt - b) * 100).toFixed(1)} pts` : '–', pct(cfg(w, `${kind}/${m}/total`)?.accuracy));
      }
      return cells;
    });
    const gm = ['geomean / mean'];
    for (const m of ['counter', winner]) {
      const b = geomean(wls.map((w) => cfg(w, `${kind}/${m}/basic`)?.medianRatio).filter((x) => x != null));
      const tt = geomean(wls.map((w) => cfg(w, `${kind}/${m}/total`)?.medianRatio).filter((x) => x != null));
      gm.push(ratio(b), ratio(tt), b != null && tt != null ? `${((tt - b) * 100).toFixed(1)} pts` : '–', pct(mean(wls.map((w) => cfg(w, `${kind}/${m}/total`)?.accuracy))));
    }
    out.push(...tableOf(header, [...rows, gm]));
  }
  return out;
}

function gridTables(wls, winner, settings) {
  const out = [];
  const lengths = settings?.lengths ?? [1, 10, 50, 100];
  const freqs = settings?.freqs ?? [100, 500, 1000, 5000, 10000];
  for (const kind of KINDS) {
    for (const m of ['counter', winner]) {
      const any = wls.some((w) => lengths.some((l) => freqs.some((f) => w.configs[`${kind}/${m}/grid-${l}-${f}`])));
      if (!any) continue;
      out.push('', `### ${kind}, ${m}: accuracy, mean over the workloads (lowest) · wall time of the single run over the uninstrumented median`, '');
      const rows = lengths.map((l) => [
        `burst ${l}`,
        ...freqs.map((f) => {
          const cs = wls.map((w) => w.configs[`${kind}/${m}/grid-${l}-${f}`]);
          const acc = cs.map((c) => c?.accuracy);
          const r = geomean(cs.map((c) => c?.singleRatio).filter((x) => x != null));
          return `${pct(mean(acc))} (${pct(min(acc), 0)}) · ${r == null ? '–' : `${r.toFixed(2)}×`}`;
        }),
      ]);
      out.push(...tableOf(['', ...freqs.map((f) => `1/${f}`)], rows));
    }
  }
  return out;
}

function exhaustiveTable(wls) {
  const header = ['workload', 'uninstrumented (median)', 'exhaustive time', 'peak RSS', 'references', 'windows', 'hot streams', 'covered'];
  const rows = wls.map((w) => {
    const c = w.configs['data-streams/exhaustive'];
    return [
      w.id,
      w.base?.medianMs ? `${(w.base.medianMs / 1000).toFixed(1)} s` : '–',
      c?.verifyWallMs ? `${(c.verifyWallMs / 1000).toFixed(1)} s` : '–',
      c?.verifyMaxRssKb ? `${(c.verifyMaxRssKb / 1024).toFixed(0)} MiB` : '–',
      c?.references?.toLocaleString('en-US') ?? '–',
      c?.windows ?? '–',
      c?.streamsFound?.toLocaleString('en-US') ?? '–',
      c?.references ? `${((c.streamHeat / c.references) * 100).toFixed(1)}%` : '–',
    ];
  });
  return tableOf(header, rows);
}

export function writeHpsReport(results, mdPath, jsonPath) {
  if (!results) throw new Error('no results to report');
  const wls = Object.values(results.workloads).filter((w) => !w.error);
  const failed = Object.values(results.workloads).filter((w) => w.error);
  const winner = results.winner ?? 'flag';
  const settings = results.runs?.at(-1);
  const lines = [
    '# Bursty tracing on a stock JVM (issue 21, seed 001)',
    '',
    `Generated by \`npm run bench -- --hps\` (scripts/bench/hps.mjs) into \`${basename(jsonPath)}\`; \`node scripts/bench/hps.mjs --report-only\` rewrites this page. ` +
      'Every figure is whole-process wall time of a real JVM on a real Debian program, the instrumented run divided by the uninstrumented run of the same round (configurations interleaved, rotated every round), median over the rounds. ' +
      'The machine has 2 cores shared with other engineers\' JVMs: the load averages below say how noisy each run was, and a difference of a few percent is within the noise.',
    '',
    '## Runs',
    '',
    ...tableOf(
      ['started', 'commit', 'parts', 'timed rounds', 'winner', 'workloads', 'load average at start → end'],
      (results.runs ?? []).map((r) => [r.startedAt?.slice(0, 16).replace('T', ' ') ?? '–', r.commit, r.parts.join(', '), r.reps, r.winner, r.workloads.join(', '), `${r.load} → ${r.loadEnd ?? '–'}`]),
    ),
    '',
    `Machine: ${results.machine?.nproc ?? '?'} cores, ${results.machine?.jdk ?? ''}. Load average per workload (start → end of its last run): ${wls.map((w) => `${w.id} ${w.loadStart} → ${w.loadEnd}`).join('; ')}.`,
    ...(failed.length ? ['', `Failed: ${failed.map((w) => `${w.id} (${w.error})`).join('; ')}.`] : []),
    '',
    '## Targets',
    '',
    row(['target', 'measured', '']),
    row(['---', '---', '---']),
    ...targets(wls, winner),
    '',
    '## The mechanisms (hot-methods)',
    '',
    ...mechanismTables(wls),
    '',
    `## The three kinds: software counters and ${winner}`,
    '',
    'Basic overhead: sampling never starts a burst (sparsity 2³¹−1). Total: sampling at the target. Profiling overhead: total minus basic, in percentage points of the uninstrumented time (it includes the JIT compiling the duplicated code once bursts reach it).',
    ...kindTables(wls, winner),
    '',
    '## The grid of seed 001 Figures 8 and 10',
    '',
    'Burst length × frequency (sparsity = length × (f − 1)), one run per cell and workload: accuracy is the overlap with the exhaustive profile of the same kind after cutting each to the members that make 90% of it (`diff --accuracy --cutoff 90`).',
    ...gridTables(wls, winner, settings),
    '',
    '## The exhaustive data-stream analysis',
    '',
    'Every reference of every thread, analysed a window of 262,144 references at a time (Sequitur, then the hot streams covering 90% of the window), so that memory stays bounded: a window\'s trace, its symbol table and its grammar, per thread, plus a table of at most 50,000 stream patterns and the weak table of at most 262,144 object numbers per thread.',
    '',
    ...exhaustiveTable(wls),
    '',
  ];
  writeFileSync(mdPath, lines.join('\n'));
}
