// Issue 23's question, from bench-results.json: what does an instrumented jar cost on the plain
// `java` a user types, and what is left of HotSpot's HugeMethodLimit (the same runs with
// -XX:-DontCompileHugeMethods, interleaved in the same rounds)?
import { fmtRatio as ratio, geomean } from './util.mjs';

export const PLAIN_FLOOR_TARGET = 1.45;
export const PLAIN_SAMPLING_TARGET = 1.6;
export const HUGE_FLAG = '-XX:-DontCompileHugeMethods';
/** The granularity of issue 23's plain-`java` target, also run with the flag. */
const HUGE_G = 10000;
/** The id of a configuration's twin run with the flag. */
const twin = (id) => `${id}-huge`;

const pct = (x) => (x == null ? '–' : `${(x * 100).toFixed(1)}`);

/** The sampling configuration of HUGE_G that a run with randomization R has (randomized where R > 0). */
const sampledId = (R) => `g${HUGE_G}${R > 0 ? 'r' : ''}`;

/**
 * The bench's configurations run again with the flag, in the same rounds: the floor and g=10,000
 * (randomized where the run randomizes). A user runs the jar on a plain `java`; the twins show what
 * HugeMethodLimit still costs.
 */
export function flaggedTwins(configs, random) {
  const ids = new Set(['none', sampledId(random)]);
  return configs.filter((c) => ids.has(c.id)).map((c) => ({ ...c, id: twin(c.id), label: `${c.label} ${HUGE_FLAG}`, jvmArgs: [HUGE_FLAG] }));
}

/** The configurations compared: the floor and g=10,000 (randomized where the run had it), each plain and flagged. */
function pairs(results) {
  const R = results.settings.random;
  return [
    { id: 'none', label: 'agent=none (floor)' },
    { id: sampledId(R), label: `g=10,000${R > 0 ? `+r${R}` : ''}` },
  ];
}

const gm = (wls, id, key) => geomean(wls.map((w) => w.configs[id]?.[key]));

/** Null when the run had no flagged configurations (older runs, or --skip huge). */
export function plainJavaTargets(results, wls) {
  if (!wls.some((w) => w.configs[twin('none')])) return null;
  const [floor, sampled] = pairs(results);
  return {
    floor: gm(wls, floor.id, 'medianRatio'),
    floorCpu: gm(wls, floor.id, 'medianCpuRatio'),
    sampled: gm(wls, sampled.id, 'medianRatio'),
    sampledCpu: gm(wls, sampled.id, 'medianCpuRatio'),
    sampledFlag: gm(wls, twin(sampled.id), 'medianRatio'),
    floorFlag: gm(wls, twin(floor.id), 'medianRatio'),
    label: sampled.label,
  };
}

/** The targets' rows for BENCHMARKS.md (issue 23, target 1). */
export function plainJavaTargetRows(t, met) {
  if (!t) return [];
  return [
    `| plain \`java\` (no JVM flag), ${t.label} ≤ ${PLAIN_SAMPLING_TARGET}× (issue 23) | ${ratio(t.sampled)} wall, ${ratio(t.sampledCpu)} CPU (with ${HUGE_FLAG}: ${ratio(t.sampledFlag)}) | ${met(t.sampled != null && t.sampled <= PLAIN_SAMPLING_TARGET)} |`,
    `| plain \`java\`, agent=none floor ≤ ${PLAIN_FLOOR_TARGET}× (issue 23) | ${ratio(t.floor)} wall, ${ratio(t.floorCpu)} CPU (with ${HUGE_FLAG}: ${ratio(t.floorFlag)}) | ${met(t.floor != null && t.floor <= PLAIN_FLOOR_TARGET)} |`,
  ];
}

/** The section: per workload, plain against flagged, wall and CPU, and the sampled profile's accuracy both ways. */
export function plainJavaSection(results, wls) {
  if (!wls.some((w) => w.configs[twin('none')])) return [];
  const ps = pairs(results);
  const L = [];
  L.push(`## Plain \`java\` against \`${HUGE_FLAG}\` (issue 23)`);
  L.push('');
  L.push(
    `The rows above run the instrumented jars on a plain \`java\`, as a user does. HotSpot never compiles a method of more than 8,000 bytes of bytecode unless run with \`${HUGE_FLAG}\` (which \`komorium-ts run\` passes); ` +
      'these configurations also ran with that flag, interleaved with the others in the same rounds. A difference between the two columns is what methods pushed past the limit still cost. ' +
      'Wall and CPU time (user + system of every thread of the JVM) over the uninstrumented run of the same round, medians; accuracy is the overlap with the exact profile (sampled configuration, one run each).',
  );
  L.push('');
  const head = ['workload', ...ps.flatMap((p) => [`${p.label}: plain`, 'flag', 'CPU: plain', 'CPU: flag']), 'overlap: plain', 'overlap: flag', 'method overlap: plain', 'method overlap: flag'];
  L.push(`| ${head.join(' | ')} |`);
  L.push(`|${head.map(() => ' --- ').join('|')}|`);
  const s = ps[1].id;
  for (const w of wls) {
    const c = (id, key) => {
      const x = w.configs[id];
      return x == null ? '–' : x.verified ? ratio(x[key]) : '✗';
    };
    const cells = ps.flatMap((p) => [c(p.id, 'medianRatio'), c(twin(p.id), 'medianRatio'), c(p.id, 'medianCpuRatio'), c(twin(p.id), 'medianCpuRatio')]);
    const acc = [w.configs[s]?.overlap, w.configs[twin(s)]?.overlap, w.configs[s]?.methodOverlap, w.configs[twin(s)]?.methodOverlap].map(pct);
    L.push(`| ${w.id} | ${[...cells, ...acc].join(' | ')} |`);
  }
  const g = ps.flatMap((p) => [
    ratio(gm(wls, p.id, 'medianRatio')),
    ratio(gm(wls, twin(p.id), 'medianRatio')),
    ratio(gm(wls, p.id, 'medianCpuRatio')),
    ratio(gm(wls, twin(p.id), 'medianCpuRatio')),
  ]);
  L.push(`| **geomean** | ${[...g, '', '', '', ''].join(' | ')} |`);
  L.push('');
  // The exact agent is not timed (it is the ground truth of the accuracy columns); its one verification run is all there is.
  const exact = wls.filter((w) => w.configs.exact?.verifyWallMs != null && w.base?.medianMs);
  if (exact.length) {
    L.push(
      `The exact agent (\`-Dkomorium.agent=exact\`, every bytecode counted in its calling context) on a plain \`java\`, its one verification run over the uninstrumented median (wall; not interleaved, so a rough figure): ` +
        `${exact.map((w) => `${w.id} ${ratio(w.configs.exact.verifyWallMs / w.base.medianMs)}`).join(', ')}; geometric mean ${ratio(geomean(exact.map((w) => w.configs.exact.verifyWallMs / w.base.medianMs)))}.`,
    );
    L.push('');
  }
  const crossed = wls.filter((w) => w.komoriumInstrument?.hugeMethods != null);
  if (crossed.length) {
    L.push(`Methods that \`instrument\` (default options) pushed past HugeMethodLimit, from its summary's \`JIT limit\` line: ${crossed.map((w) => `${w.id} ${w.komoriumInstrument.hugeMethods}`).join(', ')}.`);
    L.push('');
  }
  return L;
}
