/**
 * How loop heads sit in each other's loops. The natural loop of a head v is v and every block that
 * reaches a source of a backedge to v without passing v. A layout that adds jumps to loop heads
 * (twin.ts's resume after a twin call) keeps the graph reducible only with this: HotSpot's
 * compilers treat an irreducible loop as they treat no other, even where its jumps never run.
 */
import type { Cfg } from './cfg.js';
import { edgesOf } from './loops.js';

export interface LoopNesting {
  /** For each head, the indices of the heads whose loops contain it, itself included. */
  within: number[][];
  /** reaches[j][i]: from head j, control can reach a backedge to head i. */
  reaches: boolean[][];
}

/** The nesting of `heads` (block indices); null when the graph is irreducible already. */
export function loopNesting(cfg: Cfg, heads: readonly number[]): LoopNesting | null {
  if (cfg.irreducible) return null;
  const latches = heads.map((v) => cfg.backEdges.filter((e) => e.to === v).map((e) => e.from));
  const bodies = heads.map((v, k) => loopBody(cfg, v, latches[k]!));
  const within = heads.map((v) => heads.flatMap((_, k) => (bodies[k]!.has(v) ? [k] : [])));
  const reaches = heads.map((v) => {
    const seen = forward(cfg, v);
    return latches.map((us) => us.some((u) => seen.has(u)));
  });
  return { within, reaches };
}

function loopBody(cfg: Cfg, v: number, latches: readonly number[]): Set<number> {
  const body = new Set([v]);
  const work = [...latches];
  while (work.length > 0) {
    const b = work.pop()!;
    if (body.has(b)) continue;
    body.add(b);
    for (const p of cfg.preds[b]!) if (!body.has(p)) work.push(p);
  }
  return body;
}

function forward(cfg: Cfg, from: number): Set<number> {
  const seen = new Set<number>();
  const work = [from];
  while (work.length > 0) {
    const b = work.pop()!;
    if (seen.has(b)) continue;
    seen.add(b);
    for (const s of edgesOf(cfg.blocks[b]!)) if (!seen.has(s)) work.push(s);
  }
  return seen;
}
