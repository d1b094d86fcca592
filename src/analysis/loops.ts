/**
 * Loop headers, for §5.2's "checks at the beginning of loops". The control-flow graph is the
 * blocks' successors plus handler edges (from every block in a try range to its handler), so that
 * a loop that is closed only through an exception handler is found too.
 *
 * A header is the target of a back edge u→v, where v dominates u (natural loops). An irreducible
 * cycle has no such edge, so the targets of retreating edges of a depth-first search are headers
 * as well; every cycle contains a retreating edge, hence a header. That is what check placement
 * relies on: with a check at every header, the blocks without a check form an acyclic graph.
 * Unreachable blocks are searched too (after the reachable ones), for the same reason.
 */
import type { Block } from './blocks.js';
import { iterateDominators } from './dominators.js';

export interface LoopInfo {
  /** Block indices of all loop headers (natural and irreducible). */
  headers: Set<number>;
  /** Back edges [from, to] in the dominator sense. */
  backEdges: [number, number][];
  /** Retreating edges of the DFS whose target does not dominate their source. */
  irreducibleEdges: [number, number][];
  /** Immediate dominator of each block; -1 for the entry and for unreachable blocks. */
  idom: Int32Array;
  /** Blocks reachable from the entry (through normal and handler edges). */
  reachable: boolean[];
}

export function edgesOf(b: Block): number[] {
  if (b.handlers.length === 0) return b.successors;
  return [...new Set([...b.successors, ...b.handlers])];
}

export function findLoops(blocks: readonly Block[]): LoopInfo {
  const n = blocks.length;
  const succ = blocks.map(edgesOf);
  const idom = new Int32Array(n).fill(-1);
  const reachable: boolean[] = new Array(n).fill(false);
  const headers = new Set<number>();
  const backEdges: [number, number][] = [];
  const irreducibleEdges: [number, number][] = [];
  if (n === 0) return { headers, backEdges, irreducibleEdges, idom, reachable };

  // Iterative DFS from the entry: postorder, and retreating edges (to a block still on the stack).
  const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
  const postorder: number[] = [];
  const retreating: [number, number][] = [];
  const dfs = (root: number, record: boolean) => {
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [u, k] = top;
      if (k < succ[u]!.length) {
        top[1]++;
        const v = succ[u]![k]!;
        if (state[v] === 0) {
          state[v] = 1;
          stack.push([v, 0]);
        } else if (state[v] === 1) retreating.push([u, v]);
      } else {
        state[u] = 2;
        if (record) postorder.push(u);
        stack.pop();
      }
    }
  };
  dfs(0, true);
  for (const u of postorder) reachable[u] = true;

  // Dominators, with the reachable blocks' predecessors in compressed arrays (by source, then edge).
  const predStart = new Int32Array(n + 1);
  for (let u = 0; u < n; u++) if (reachable[u]) for (const v of succ[u]!) predStart[v + 1]!++;
  for (let b = 0; b < n; b++) predStart[b + 1] += predStart[b]!;
  const pred = new Int32Array(predStart[n]!);
  const next = predStart.slice(0, n);
  for (let u = 0; u < n; u++) if (reachable[u]) for (const v of succ[u]!) pred[next[v]!++] = u;
  const dom = new Int32Array(n).fill(-1);
  iterateDominators(postorder, postorder.length, predStart, pred, new Int32Array(n), dom);
  for (let b = 1; b < n; b++) idom[b] = reachable[b] ? dom[b]! : -1;
  const dominates = (v: number, u: number) => {
    for (let x = u; ; x = dom[x]!) {
      if (x === v) return true;
      if (x === 0) return false;
    }
  };
  for (let u = 0; u < n; u++) {
    if (!reachable[u]) continue;
    for (const v of succ[u]!) {
      if (dominates(v, u)) {
        backEdges.push([u, v]);
        headers.add(v);
      }
    }
  }

  // Dead code is searched after the reachable part, so that its cycles get headers too.
  for (let b = 0; b < n; b++) if (state[b] === 0) dfs(b, false);
  for (const [u, v] of retreating) {
    if (reachable[u] && dominates(v, u)) continue;
    irreducibleEdges.push([u, v]);
    headers.add(v);
  }
  return { headers, backEdges, irreducibleEdges, idom, reachable };
}
