// Runs the transform on one class at a time for test/reliability-fuzz.test.ts, in a worker thread so
// that the test can time each class out and throw the worker away if it ever hangs. It uses the
// built dist/ (what users run; `npm test` builds it first).
import { parentPort } from 'node:worker_threads';
import { instrumentClassBytes } from '../../dist/instrument/program.js';
import { ClassHierarchy } from '../../dist/hierarchy/hierarchy.js';
import { KomoriumError } from '../../dist/errors.js';

// The CLI's defaults; KOMORIUM_FUZZ_COUNTER=field fuzzes the other counter placement.
const OPTIONS = { checks: 'optimized', maxPath: 50, leafOpt: true, callbacks: true, counter: process.env.KOMORIUM_FUZZ_COUNTER ?? 'local' };

parentPort.on('message', (c) => {
  const hierarchy = new ClassHierarchy({ classpath: c.classpath });
  const t0 = performance.now();
  let reply;
  try {
    const { result, warnings } = instrumentClassBytes(c.bytes, c.entry, OPTIONS, hierarchy);
    reply = {
      kind: 'output',
      bytes: result.bytes,
      extra: result.extra,
      leftAsIs: result.report.leftAsIs.length,
      stub: warnings.some((w) => / left uninstrumented: /.test(w)),
      reasons: [...warnings.filter((w) => / left uninstrumented: /.test(w)), ...result.report.leftAsIs.map((l) => `${l.method}: ${l.reason}`)],
    };
  } catch (e) {
    reply = e instanceof KomoriumError
      ? { kind: 'error', name: e.name, message: e.message }
      : { kind: 'bug', name: e?.name ?? typeof e, message: String(e?.message ?? e), stack: String(e?.stack ?? '') };
  } finally {
    hierarchy.close();
  }
  parentPort.postMessage({ id: c.id, ms: performance.now() - t0, ...reply });
});
