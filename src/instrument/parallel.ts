/**
 * Rewrites classes on worker threads (issue 6: big jars). Each worker gets every class header once,
 * builds its own plans and hierarchy, and rewrites the classes it is handed one at a time; results
 * come back by index, so the output is the same bytes as a sequential run.
 */
import { Worker } from 'node:worker_threads';
import { ClassFormatError, KomoriumError } from '../errors.js';
import type { EntryResult } from './rewrite.js';
import type { WorkerInit } from './worker.js';

interface Reply {
  index: number;
  result?: EntryResult;
  error?: { kind: 'format'; entry: string; detail: string } | { kind: 'komorium' | 'bug'; message: string };
  warnings: string[];
}

export async function rewriteInWorkers(
  classes: { name: string; data: Uint8Array }[],
  init: WorkerInit,
  count: number,
  warnings: string[],
  progress: (done: number) => void,
): Promise<EntryResult[]> {
  const results: EntryResult[] = new Array(classes.length);
  const perClassWarnings: string[][] = new Array(classes.length);
  let next = 0;
  let done = 0;
  const workers = Array.from({ length: count }, () => new Worker(new URL('./worker.js', import.meta.url), { workerData: init }));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const send = () => {
              if (next >= classes.length) {
                resolve();
                return;
              }
              const index = next++;
              w.postMessage({ index, name: classes[index]!.name, data: classes[index]!.data });
            };
            w.on('message', (r: Reply) => {
              perClassWarnings[r.index] = r.warnings;
              if (r.error) {
                const e = r.error;
                reject(
                  e.kind === 'format'
                    ? new ClassFormatError(e.entry, e.detail)
                    : e.kind === 'komorium'
                      ? new KomoriumError(e.message)
                      : new Error(`instrument worker failed on ${classes[r.index]!.name}: ${e.message}`),
                );
                return;
              }
              results[r.index] = r.result!;
              progress(++done);
              send();
            });
            w.on('error', reject);
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  // Warnings in input order, as a sequential run gives them (each worker dedupes only its own).
  const seen = new Set(warnings);
  for (const list of perClassWarnings) for (const w of list ?? []) if (!seen.has(w)) (seen.add(w), warnings.push(w));
  return results;
}
