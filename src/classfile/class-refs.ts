/**
 * The CONSTANT_Class entry that code and frames name a class by: the first one in the pool with
 * that name, as javac would reuse it. A pool can hold several for one name (ecj writes two for
 * some array types); naming the first one always makes a rewritten method's frames and catch types
 * come out the same whichever of them the input named.
 */
import type { ConstantPool } from './constant-pool.js';
import { CONSTANT } from './model.js';

/** First CONSTANT_Class index per name, per pool, built on a pool's first lookup. */
const firstByName = new WeakMap<ConstantPool, Map<string, number>>();

function names(cp: ConstantPool): Map<string, number> {
  let m = firstByName.get(cp);
  if (m === undefined) {
    m = new Map();
    for (let i = 1; i < cp.size; i++) {
      if (!cp.has(i) || cp.tag(i) !== CONSTANT.Class) continue;
      try {
        const n = cp.className(i);
        if (!m.has(n)) m.set(n, i);
      } catch {
        // A malformed Class entry is never the one a frame needs.
      }
    }
    firstByName.set(cp, m);
  }
  return m;
}

/** The first CONSTANT_Class entry named `name`, added when there is none. */
export function firstClassIndex(cp: ConstantPool, name: string): number {
  const m = names(cp);
  let i = m.get(name);
  if (i === undefined) {
    i = cp.classIndex(name);
    m.set(name, i);
  }
  return i;
}

/** The first CONSTANT_Class entry named `name`, or -1 (nothing is added). */
export function presentClassIndex(cp: ConstantPool, name: string): number {
  return names(cp).get(name) ?? -1;
}
