/**
 * A worker thread of `instrument`: builds the program's plans and hierarchy from the class headers
 * it is given, then rewrites the classes it is sent, bytes in and bytes out.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ClassFormatError, KomoriumError } from '../errors.js';
import { buildProgram, rewriteEntry, type ClassHeader, type InstrumentMode } from './rewrite.js';

export interface WorkerInit {
  headers: ClassHeader[];
  classpath: string[];
  mode: InstrumentMode;
  /** The JDK that completes the hierarchy (instrument-jdk --java-home); default the running one. */
  javaHome?: string;
}

export interface WorkerTask {
  index: number;
  name: string;
  data: Uint8Array;
}

const init = workerData as WorkerInit;
const warnings: string[] = [];
const program = buildProgram(init.headers, init.classpath, warnings, undefined, init.javaHome);

parentPort!.on('message', (task: WorkerTask) => {
  const before = warnings.length;
  try {
    const result = rewriteEntry({ name: task.name, data: task.data, isClass: true }, program, init.mode, warnings);
    parentPort!.postMessage({ index: task.index, result, warnings: warnings.slice(before) });
  } catch (e) {
    const error =
      e instanceof ClassFormatError
        ? { kind: 'format', entry: e.entry, detail: e.detail }
        : e instanceof KomoriumError
          ? { kind: 'komorium', message: e.message }
          : { kind: 'bug', message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    parentPort!.postMessage({ index: task.index, error, warnings: warnings.slice(before) });
  }
});
