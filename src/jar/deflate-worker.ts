/** The worker of DeflateAhead: deflates each batch of entries it is sent, as writeZip would. */
import { parentPort } from 'node:worker_threads';
import { deflateRawSync } from 'node:zlib';
import { DEFLATE_OPTIONS } from './zip.js';

parentPort!.on('message', ({ first, entries }: { first: number; entries: Uint8Array[] }) => {
  try {
    // Copied, not transferred: a small result may sit in Buffer's shared pool.
    parentPort!.postMessage({ first, outs: entries.map((data) => deflateRawSync(data, DEFLATE_OPTIONS)) });
  } catch (e) {
    parentPort!.postMessage({ first, count: entries.length, error: e instanceof Error ? e.message : String(e) });
  }
});
