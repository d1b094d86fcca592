// The anchor a user would pick instead of cbs: JFR's jdk.ExecutionSample events, the top two frames
// of each stack taken as a call edge (the caller's method and bytecode index → the method on top),
// compared with the exhaustive call graph as a cbs profile is. JFR samples the uninstrumented
// program, so the caller's bytecode index is the original one and names the same call site.
import { spawnSync } from 'node:child_process';

/** The top two frames of every sample: [{ cls, name, desc, bci }, …] pairs, innermost first. */
export function readJfrPairs(jfrBin, file) {
  const r = spawnSync(jfrBin, ['print', '--json', '--events', 'jdk.ExecutionSample', '--stack-depth', '2', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`jfr print ${file} failed: ${r.stderr}`);
  const events = JSON.parse(r.stdout).recording.events;
  return events.map((e) =>
    (e.values.stackTrace?.frames ?? []).map((f) => ({ cls: f.method.type.name, name: f.method.name, desc: f.method.descriptor, bci: f.bytecodeIndex })),
  );
}

/**
 * JFR's call graph against `exactEdges` (call-edges records, exhaustive): its accuracy, and the
 * share of samples whose caller frame is in `appClasses` (the exhaustive profile holds only calls
 * that instrumented code makes; a JDK method calling a JDK method is an edge it cannot have).
 */
export function jfrCallGraph(jfrBin, file, exactEdges, appClasses, overlap, keys) {
  const pairs = readJfrPairs(jfrBin, file);
  const sites = new Map();
  for (const e of exactEdges) sites.set(`${e.site.method.key}\u0000${e.site.bci}`, e.site);
  const method = (f) => ({ className: f.cls, name: f.name, descriptor: f.desc, source: '', line: -1, key: keys.methodKey(f.cls, f.name, f.desc) });
  const edgeOf = (callee, caller) => {
    const m = method(caller);
    const site = sites.get(`${m.key}\u0000${caller.bci}`) ?? { method: m, bci: caller.bci, line: -1, what: '?', owner: '', name: '', descriptor: '', key: keys.siteKey(m.key, caller.bci, '?') };
    return { site, callee: method(callee), count: 1 };
  };
  const top = [];
  for (const s of pairs) if (s.length >= 2) top.push(edgeOf(s[0], s[1]));
  const sum = (edges) => {
    const by = new Map();
    for (const e of edges) {
      const k = `${e.site.key}\u0001${e.callee.key}`;
      const known = by.get(k);
      if (known) known.count++;
      else by.set(k, { ...e });
    }
    return [...by.values()];
  };
  const inApp = top.filter((e) => appClasses.has(e.site.method.className));
  return {
    samples: pairs.length,
    withCaller: top.length,
    accuracy: top.length ? overlap(exactEdges, sum(top)) : 0,
    appCallerShare: top.length ? inApp.length / top.length : 0,
  };
}
