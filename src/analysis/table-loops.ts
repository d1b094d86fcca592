/**
 * The block graph and loop headers of a CodeTable (loops.ts on the object IR, whose definitions this
 * keeps, edge order included): successors are branch and switch targets (the default first), ret's
 * return points and the fall-through (a MaxPath piece's only successor is the next piece); handler
 * edges go from every piece of a block with an instruction in a try range to its handler. Headers
 * are the targets of back edges (natural loops) and of the retreating edges of a depth-first search
 * whose target does not dominate their source (irreducible cycles), unreachable blocks searched
 * after the reachable ones.
 *
 * Everything is in typed arrays refilled per method (docs/non-object-ir.md).
 */
import type { CodeTable } from '../bytecode/code-table.js';
import { OP, isUnconditionalTransfer } from '../bytecode/opcodes.js';
import type { TableBlocks } from './table-blocks.js';
import { iterateDominators } from './dominators.js';
import { fit, grownSize } from '../bytecode/scratch.js';

export class TableLoops {
  /** Blocks. */
  n = 0;
  /** Edges of block b: succ[succStart[b]] … succ[succStart[b + 1] - 1], normal ones first, then handlers. */
  succStart: Int32Array = new Int32Array(0);
  succ: Int32Array = new Int32Array(0);
  /** 1 for a loop header. */
  isHeader = new Uint8Array(0);
  /** Immediate dominator; -1 for the entry and for unreachable blocks. */
  idom = new Int32Array(0);
  /** 1 for a block reachable from the entry. */
  reachable = new Uint8Array(0);
  /** Back edges (dominator sense) and irreducible retreating edges, as pairs [from, to, from, to, …]. */
  backEdges: number[] = [];
  irreducibleEdges: number[] = [];

  private stamp = new Int32Array(0);
  private order = new Int32Array(0);
  private post = new Int32Array(0);
  private state = new Uint8Array(0);
  private stackBlock = new Int32Array(0);
  private stackEdge = new Int32Array(0);
  private predStart = new Int32Array(0);
  private pred: Int32Array = new Int32Array(0);
  private retreating: number[] = [];

  compute(t: CodeTable, blocks: TableBlocks): this {
    const n = blocks.count;
    this.n = n;
    this.edges(t, blocks);
    this.reserve(n);
    this.backEdges.length = 0;
    this.irreducibleEdges.length = 0;
    this.retreating.length = 0;
    this.isHeader.fill(0, 0, n);
    this.idom.fill(-1, 0, n);
    this.reachable.fill(0, 0, n);
    if (n === 0) return this;
    this.state.fill(0, 0, n);
    const nPost = this.dfs(0, 0);
    for (let k = 0; k < nPost; k++) this.reachable[this.post[k]!] = 1;
    this.dominators(nPost);
    this.findBackEdges();
    for (let b = 0; b < n; b++) if (this.state[b] === 0) this.dfs(b, -1);
    const { retreating, reachable } = this;
    for (let k = 0; k < retreating.length; k += 2) {
      const u = retreating[k]!;
      const v = retreating[k + 1]!;
      if (reachable[u] && this.dominates(v, u)) continue;
      this.irreducibleEdges.push(u, v);
      this.isHeader[v] = 1;
    }
    return this;
  }

  private reserve(n: number): void {
    if (this.isHeader.length >= n) return;
    const size = grownSize(this.isHeader.length, n);
    this.isHeader = new Uint8Array(size);
    this.idom = new Int32Array(size);
    this.reachable = new Uint8Array(size);
    this.order = new Int32Array(size);
    this.post = new Int32Array(size);
    this.state = new Uint8Array(size);
    this.stackBlock = new Int32Array(size);
    this.stackEdge = new Int32Array(size);
    this.predStart = new Int32Array(size + 1);
  }

  /** succStart/succ: each block's edges without duplicates, in loops.ts's order. */
  private edges(t: CodeTable, blocks: TableBlocks): void {
    const n = blocks.count;
    const { starts, blockOf } = blocks;
    const { op, target, switchAt, switchCount, switchTargets, handlers, nHandlers } = t;
    this.succStart = fit(this.succStart, n + 1);
    if (this.stamp.length < n) this.stamp = new Int32Array(grownSize(this.stamp.length, n));
    else this.stamp.fill(0, 0, n);
    const stamp = this.stamp;
    let jsrReturns = 0;
    for (let b = 0; b + 1 < n; b++) {
      const last = starts[b + 1]! - 1;
      if (op[last] === OP.JSR || op[last] === OP.JSR_W) jsrReturns++;
    }
    let m = 0;
    const add = (b: number, v: number): void => {
      if (stamp[v] === b + 1) return;
      stamp[v] = b + 1;
      this.succ = fit(this.succ, m + 1);
      this.succ[m++] = v;
    };
    const { origFirst, origEnd } = blocks;
    for (let b = 0; b < n; b++) {
      this.succStart[b] = m;
      const end = blocks.end(b);
      if (end < origEnd[b]!) add(b, b + 1); // a MaxPath piece falls through to the next piece of its block
      else {
        const last = end - 1;
        const o = t.baseOp(last);
        if (target[last]! >= 0) add(b, blockOf[target[last]!]!);
        const s = switchAt[last]!;
        if (s >= 0) for (let k = s; k < s + switchCount[last]!; k++) add(b, blockOf[switchTargets[k]!]!);
        if (o === OP.RET && jsrReturns > 0) {
          for (let r = 0; r + 1 < n; r++) {
            const l = starts[r + 1]! - 1;
            if (op[l] === OP.JSR || op[l] === OP.JSR_W) add(b, r + 1);
          }
        } else if (!isUnconditionalTransfer(o) && o !== OP.JSR && o !== OP.JSR_W && b + 1 < n) add(b, b + 1);
      }
      // every piece of a block that has an instruction in a try range goes to its handler
      for (let k = 0; k < nHandlers; k++) {
        if (origFirst[b]! < handlers[4 * k + 1]! && origEnd[b]! > handlers[4 * k]!) add(b, blockOf[handlers[4 * k + 2]!]!);
      }
    }
    this.succStart[n] = m;
  }

  /** Iterative depth-first search from `root`; with record ≥ 0, fills post[record …] in postorder and returns its end. */
  private dfs(root: number, record: number): number {
    const { succStart, succ, state, stackBlock, stackEdge } = this;
    let top = 0;
    stackBlock[0] = root;
    stackEdge[0] = succStart[root]!;
    state[root] = 1;
    let k = record;
    while (top >= 0) {
      const u = stackBlock[top]!;
      const e = stackEdge[top]!;
      if (e < succStart[u + 1]!) {
        stackEdge[top] = e + 1;
        const v = succ[e]!;
        if (state[v] === 0) {
          state[v] = 1;
          top++;
          stackBlock[top] = v;
          stackEdge[top] = succStart[v]!;
        } else if (state[v] === 1) this.retreating.push(u, v);
      } else {
        state[u] = 2;
        if (record >= 0) this.post[k++] = u;
        top--;
      }
    }
    return k;
  }

  /** Immediate dominators of the reachable blocks (dominators.ts). */
  private dominators(nPost: number): void {
    const { n, succStart, succ, reachable, post, order, idom } = this;
    // predecessors among reachable blocks, in loops.ts's order (by source, then edge)
    const predStart = this.predStart;
    predStart.fill(0, 0, n + 1);
    for (let u = 0; u < n; u++) if (reachable[u]) for (let e = succStart[u]!; e < succStart[u + 1]!; e++) predStart[succ[e]! + 1]!++;
    for (let b = 0; b < n; b++) predStart[b + 1] += predStart[b]!;
    this.pred = fit(this.pred, predStart[n]!);
    const pred = this.pred;
    const fill = this.stamp;
    fill.set(predStart.subarray(0, n));
    for (let u = 0; u < n; u++) if (reachable[u]) for (let e = succStart[u]!; e < succStart[u + 1]!; e++) pred[fill[succ[e]!]!++] = u;
    iterateDominators(post, nPost, predStart, pred, order, idom);
    idom[0] = -1;
  }

  private dominates(v: number, u: number): boolean {
    if (v === 0) return true;
    for (let x = u; x > 0; x = this.idom[x]!) if (x === v) return true;
    return false;
  }

  private findBackEdges(): void {
    const { n, succStart, succ, reachable } = this;
    for (let u = 0; u < n; u++) {
      if (!reachable[u]) continue;
      for (let e = succStart[u]!; e < succStart[u + 1]!; e++) {
        const v = succ[e]!;
        if (this.dominates(v, u)) {
          this.backEdges.push(u, v);
          this.isHeader[v] = 1;
        }
      }
    }
  }
}
