/**
 * callgrind export (`report --format callgrind`): the format of Valgrind's Callgrind, which
 * KCachegrind, QCachegrind and callgrind_annotate read. Costs are bytecodes (estimated from the
 * samples, or counted by the exact agent) and, for a sampling profile, samples; each method is a
 * function in its source file (`com/foo/Bar.java`, so that `callgrind_annotate -I src/main/java`
 * finds it), with its self cost per source line and, per call line, the inclusive cost of each
 * method it called. `calls=` counts the calling contexts of an edge: Komorium does not count calls.
 */
import type { ContextNode, MethodEntry, Profile } from '../profile/model.js';
import { collapsedFrame } from './collapsed.js';
import { methodName, sourcePath, type NameOptions } from './names.js';

/** Name compression (`fn=(3) name` once, `fn=(3)` after), as the format allows, per kind of name. */
class Names {
  private readonly ids = new Map<string, number>();
  ref(name: string): string {
    const known = this.ids.get(name);
    if (known !== undefined) return `(${known})`;
    this.ids.set(name, this.ids.size + 1);
    return `(${this.ids.size}) ${name}`;
  }
}

interface Edge {
  callee: MethodEntry;
  line: number;
  contexts: number;
  counter: number;
}

interface Fn {
  method: MethodEntry;
  /** Self counter by line (0: unknown). */
  self: Map<number, number>;
  /** Calls by callee and call line. */
  calls: Map<string, Edge>;
}

/** Splits a context's inclusive counter over the lines its parent called it from; what is not attributed goes to line 0. */
function callSplit(n: ContextNode): [number, number][] {
  const out: [number, number][] = [];
  let attributed = 0;
  for (const e of n.calls ?? []) {
    out.push([e.line, e.counter]);
    attributed += e.counter;
  }
  if (n.total > attributed) out.push([0, n.total - attributed]);
  return out;
}

function collect(p: Profile): Fn[] {
  const fns = new Map<MethodEntry, Fn>();
  const fn = (m: MethodEntry): Fn => {
    let f = fns.get(m);
    if (f === undefined) fns.set(m, (f = { method: m, self: new Map(), calls: new Map() }));
    return f;
  };
  for (const n of p.nodes) {
    if (n.method === null) continue;
    const f = fn(n.method);
    for (const e of n.self ?? [{ thread: null, line: -1, counter: n.counter }]) {
      if (e.counter > 0) f.self.set(Math.max(0, e.line), (f.self.get(Math.max(0, e.line)) ?? 0) + e.counter);
    }
    const caller = n.parent?.method;
    if (caller === null || caller === undefined) continue;
    for (const [line, counter] of callSplit(n)) {
      const calls = fn(caller).calls;
      const key = `${n.method.id}:${line}`;
      const edge = calls.get(key);
      if (edge) {
        edge.counter += counter;
        edge.contexts++;
      } else calls.set(key, { callee: n.method, line, contexts: 1, counter });
    }
  }
  return [...fns.values()].sort((a, b) => a.method.id - b.method.id);
}

export function renderCallgrind(p: Profile, opts: NameOptions = {}): string {
  const sampled = p.unit === 'samples';
  const perCounter = p.totalCounter === 0 ? 0 : p.totalBytecodes / p.totalCounter;
  const costs = (counter: number): string => (sampled ? `${Math.round(counter * perCounter)} ${counter}` : `${counter}`);
  // The summary is the sum of the self costs as written, rounded ones included, as readers check.
  const sum = { bytecodes: 0, counter: 0 };
  const files = new Names();
  const fnNames = new Names();
  const fileOf = (m: MethodEntry) => sourcePath(m) || '???';
  // callgrind_annotate reads a name up to the end of the line; without blanks it also survives tools that split.
  const nameOf = (m: MethodEntry) => collapsedFrame(methodName(m, opts));
  const body: string[] = [];
  for (const f of collect(p)) {
    body.push('', `fl=${files.ref(fileOf(f.method))}`, `fn=${fnNames.ref(nameOf(f.method))}`);
    for (const [line, counter] of [...f.self].sort((a, b) => a[0] - b[0])) {
      body.push(`${line} ${costs(counter)}`);
      sum.bytecodes += sampled ? Math.round(counter * perCounter) : counter;
      sum.counter += counter;
    }
    for (const e of [...f.calls.values()].sort((a, b) => a.line - b.line || a.callee.id - b.callee.id)) {
      if (fileOf(e.callee) !== fileOf(f.method)) body.push(`cfi=${files.ref(fileOf(e.callee))}`);
      body.push(`cfn=${fnNames.ref(nameOf(e.callee))}`, `calls=${e.contexts} ${Math.max(0, e.callee.line)}`, `${e.line} ${costs(e.counter)}`);
    }
  }
  const totals = sampled ? `${sum.bytecodes} ${sum.counter}` : `${sum.bytecodes}`;
  const header = [
    '# callgrind format',
    'version: 1',
    'creator: komorium-ts',
    `cmd: ${p.name}`,
    'positions: line',
    `events: ${sampled ? 'Bytecodes Samples' : 'Bytecodes'}`,
    `summary: ${totals}`,
  ];
  return [...header, ...body, '', `totals: ${totals}`, ''].join('\n');
}
