import { escapeField } from './escape.js';
import { compareMethods, type ContextNode, type Profile } from './model.js';

/**
 * Writes a profile in the canonical form of docs/profile-format.md. The order comes from the model,
 * not from stored ids: methods sorted by (class, name, descriptor), contexts in preorder with
 * children sorted by method id. A canonical file that was read is therefore written back
 * byte-identically, and a merged or edited profile comes out canonical too.
 */
export function writeProfile(profile: Profile): string {
  const out: string[] = [`komorium-profile\t${profile.version}`];
  for (const h of profile.headers) out.push(`header\t${escapeField(h.key)}\t${escapeField(h.value)}`);
  out.push(
    `agent\t${escapeField(profile.agent)}`,
    `unit\t${profile.unit}`,
    `granularity\t${profile.granularity}`,
    `random\t${profile.random}`,
    `seed\t${profile.seed}`,
    `totalBytecodes\t${profile.totalBytecodes}`,
    `threads\t${profile.threads}`,
    `truncated\t${profile.truncated}`,
  );
  const methods = [...profile.methods].sort(compareMethods);
  const ids = new Map(methods.map((m, i) => [m, i]));
  methods.forEach((m, i) =>
    out.push(`method\t${i}\t${escapeField(m.className)}\t${escapeField(m.name)}\t${escapeField(m.descriptor)}\t${escapeField(m.source)}\t${m.line}`),
  );

  let count = 0;
  const stack: { node: ContextNode; parentId: number }[] = [{ node: profile.root, parentId: -1 }];
  while (stack.length > 0) {
    const { node, parentId } = stack.pop()!;
    const id = count++;
    const mid = node.method === null ? -1 : ids.get(node.method);
    if (mid === undefined) throw new Error(`writeProfile: context ${node.id} refers to a method not in the method table`);
    out.push(`node\t${id}\t${parentId}\t${mid}\t${node.counter}`);
    const kids = [...node.children].sort((a, b) => ids.get(a.method!)! - ids.get(b.method!)!);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, parentId: id });
  }
  out.push(`end\t${count}`);
  return out.join('\n') + '\n';
}
