/**
 * Deflating a jar's entries on a worker thread while the main thread is still making them.
 * Compression was a tenth of `instrument` on guava, run after the rewriting; here it overlaps it on
 * another core. A worker rather than zlib's asynchronous calls: those build a stream per call,
 * which cost the main thread 80 µs an entry, two thirds of what deflating itself costs.
 */
import { Worker } from 'node:worker_threads';
import type { DeflatedAhead } from './zip.js';

interface Reply {
  first: number;
  outs?: Uint8Array[];
  count?: number;
  error?: string;
}

/** Entries go in batches of about this many bytes: a message costs the main thread some 80 µs. */
const BATCH_BYTES = 256 * 1024;

export class DeflateAhead implements DeflatedAhead {
  private readonly worker: Worker;
  private readonly byData = new WeakMap<Uint8Array, Promise<Uint8Array>>();
  private readonly pending = new Map<number, { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private batch: Uint8Array[] = [];
  private batchBytes = 0;

  /** null where no worker can run this module (TypeScript sources under the tests): writeZip deflates inline. */
  static start(): DeflateAhead | null {
    return import.meta.url.endsWith('.js') ? new DeflateAhead() : null;
  }

  private constructor() {
    this.worker = new Worker(new URL('./deflate-worker.js', import.meta.url));
    // A run that fails before writing must still exit: the worker never holds the process open.
    this.worker.unref();
    this.worker.on('message', (r: Reply) => {
      const n = r.outs?.length ?? 0;
      for (let i = 0; i < n; i++) this.settle(r.first + i, (p) => p.resolve(r.outs![i]!));
      if (r.error) for (let id = r.first; id < r.first + r.count!; id++) this.settle(id, (p) => p.reject(new Error(`deflating an entry failed: ${r.error}`)));
    });
    this.worker.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    });
  }

  private settle(id: number, f: (p: { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    f(p);
  }

  /** Queues `data` for deflating (the worker gets a copy); ids are consecutive within a batch. */
  add(data: Uint8Array): void {
    if (data.length === 0 || this.byData.has(data)) return;
    const id = this.nextId++;
    const done = new Promise<Uint8Array>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Rejections are seen by take()'s caller; an entry never written must not crash the process.
    done.catch(() => undefined);
    this.byData.set(data, done);
    this.batch.push(data);
    this.batchBytes += data.length;
    if (this.batchBytes >= BATCH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    this.worker.postMessage({ first: this.nextId - this.batch.length, entries: this.batch });
    this.batch = [];
    this.batchBytes = 0;
  }

  take(data: Uint8Array): Promise<Uint8Array> | undefined {
    this.flush();
    return this.byData.get(data);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
