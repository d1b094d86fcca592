/** A synthetic large profile, shared by the HTML report tests (fake DOM and real browser). */
import { buildProfile, type Profile, type TreeDraft } from '../../src/profile/index.js';

/** A large profile with a deterministic random shape: deep chains, some fan-out, thousands of methods. */
export function syntheticProfile(size: number): Profile {
  let seed = 1;
  const rnd = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const methods = Array.from({ length: 20_000 }, (_, i) => ({
    className: `com/big/pkg${i % 40}/Class${i % 300}`,
    name: `m${i}`,
    descriptor: '(ILjava/lang/String;[J)V',
    source: `Class${i % 300}.java`,
    line: i,
  }));
  let count = 0;
  const gen = (depth: number): TreeDraft => {
    const d: TreeDraft = { method: methods[Math.floor(rnd() * methods.length)]!, counter: 1 + Math.floor(rnd() * 20), children: [] };
    count++;
    const k = depth < 3 ? 12 : depth < 40 ? (rnd() < 0.6 ? 1 : rnd() < 0.5 ? 2 : 0) : 0;
    for (let i = 0; i < k && count < size; i++) d.children.push(gen(depth + 1));
    return d;
  };
  const main: TreeDraft = { method: methods[0]!, counter: 0, children: [] };
  while (count < size) main.children.push(gen(2));
  return buildProfile({ name: 'big.kprof', agent: 'sampling', unit: 'samples', granularity: 10000, totalBytecodes: 1e10 }, { method: null, counter: 0, children: [main] });
}
