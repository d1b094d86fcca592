/**
 * The text report: what a developer reads first. Hottest methods by self and total, the hottest
 * call paths (as Java stack traces, innermost first), and a pruned call tree.
 */
import { describeGranularity, flatten } from '../profile/analysis.js';
import { estimatedBytecodes, share, type ContextNode, type Profile } from '../profile/model.js';
import { formatInt, formatPct, methodName, sourceRef, table, type NameOptions } from './names.js';
import { callLine, positionRef, stackTrace } from './lines.js';
import { jdkRow } from './jdk.js';
import { FOLDED_HEADER } from '../profile/fold.js';

export interface TextReportOptions extends NameOptions {
  /** Rows in the hottest-methods and hottest-paths lists (default 20). */
  top?: number;
  /** Deepest call-tree level shown, root children at 1 (default: no limit). */
  depth?: number;
  /** Call-tree contexts under this percentage of the total are folded into a summary line (default 1). */
  threshold?: number;
}

/** The header block shared by report and diff: who measured what. */
export function headerLines(p: Profile): string[] {
  const rows: string[][] = [['agent', p.agent]];
  rows.push(['granularity', describeGranularityLong(p)]);
  rows.push(['bytecodes', `${formatInt(p.totalBytecodes)}${p.unit === 'samples' ? ' (estimated)' : ''}, ${formatInt(p.threads)} thread${p.threads === 1 ? '' : 's'}`]);
  if (p.unit === 'samples') {
    rows.push(['samples', `${formatInt(p.totalCounter)}${p.truncated > 0 ? `, ${formatInt(p.truncated)} with a truncated stack` : ''}`]);
  } else {
    rows.push(['counted', `${formatInt(p.totalCounter)} bytecodes (exact)${p.truncated > 0 ? `, ${formatInt(p.truncated)} truncated stacks` : ''}`]);
  }
  rows.push(jdkRow(p));
  for (const h of p.headers) if (h.key === 'jvm' || h.key === 'os' || h.key === 'merged') rows.push([h.key, h.value]);
  const folded = p.headers.find((h) => h.key === FOLDED_HEADER);
  if (folded !== undefined) rows.push(['folded', `${folded.value}: these classes' frames are removed, their counts charged to the nearest caller kept`]);
  return table(rows, ['l', 'l']);
}

function describeGranularityLong(p: Profile): string {
  if (p.unit === 'bytecodes') return `${describeGranularity(p)} (exact agent: every bytecode counted)`;
  const base = p.random > 0 ? `${formatInt(p.granularity)} + random [0, ${formatInt(p.random)})` : formatInt(p.granularity);
  return `${base} bytecodes per sample${p.random > 0 ? `, seed ${p.seed}` : ''}`;
}

export function renderText(p: Profile, opts: TextReportOptions = {}): string {
  const top = opts.top ?? 20;
  const out: string[] = [`komorium profile ${p.name}`, ...headerLines(p), ''];
  if (p.totalCounter === 0) {
    out.push('The profile holds no samples (the program ran fewer bytecodes than the granularity?).');
    return out.join('\n') + '\n';
  }
  const est = (counter: number): string => formatInt(share(p, counter) * p.totalBytecodes);
  const label = (m: ContextNode['method']): string => {
    const src = sourceRef(m);
    return src === '' ? methodName(m, opts) : `${methodName(m, opts)} (${src})`;
  };

  // A context of the tree is a call, not a method: its file, and the line of the parent's method it
  // was called from where the profile knows it (not after instrument --no-call-lines). The method's
  // first line would read as the line of the call.
  const treeLabel = (n: ContextNode): string => {
    const name = methodName(n.method, opts);
    const at = n.method === null ? '' : positionRef(n.method, undefined);
    const call = n.parent?.method ? callLine(n) : undefined;
    const where = [at, call === undefined ? '' : `called from line ${call}`].filter((x) => x !== '').join(', ');
    return where === '' ? name : `${name} (${where})`;
  };

  const flat = flatten(p);
  const bySelf = flat.filter((f) => f.self > 0).sort((a, b) => b.self - a.self || a.method.id - b.method.id);
  out.push(`Hottest methods by self (bytecodes executed in the method itself), top ${Math.min(top, bySelf.length)} of ${bySelf.length}:`);
  out.push(
    ...table(
      [['self', 'est. bytecodes', 'total', 'method'], ...bySelf.slice(0, top).map((f) => [formatPct(share(p, f.self)), est(f.self), formatPct(share(p, f.total)), label(f.method)])],
      ['r', 'r', 'r', 'l'],
    ),
  );
  out.push('');
  const byTotal = [...flat].sort((a, b) => b.total - a.total || a.method.id - b.method.id);
  out.push(`Hottest methods by total (including callees), top ${Math.min(top, byTotal.length)} of ${byTotal.length}:`);
  out.push(
    ...table(
      [['total', 'est. bytecodes', 'self', 'method'], ...byTotal.slice(0, top).map((f) => [formatPct(share(p, f.total)), est(f.total), formatPct(share(p, f.self)), label(f.method)])],
      ['r', 'r', 'r', 'l'],
    ),
  );
  out.push('');

  const paths = p.nodes.filter((n) => n.counter > 0).sort((a, b) => b.counter - a.counter || a.id - b.id);
  out.push(`Hottest call paths (calling contexts by self, innermost frame first), top ${Math.min(top, paths.length)} of ${paths.length}:`);
  paths.slice(0, top).forEach((n, i) => {
    out.push(`  #${i + 1}  ${formatPct(share(p, n.counter))}  ${formatInt(estimatedBytecodes(n))} bytecodes`);
    // As a stack trace: the line that ran most in the innermost frame, the line of the call in the
    // others; just the file where the profile does not know (a method's first line would mislead).
    for (const f of stackTrace(n)) {
      const at = positionRef(f.method, f.line);
      out.push(`        at ${methodName(f.method, opts)}${at === '' ? '' : ` (${at})`}`);
    }
  });
  out.push('');

  const threshold = (opts.threshold ?? 1) / 100;
  const maxDepth = opts.depth ?? Infinity;
  out.push(`Call tree (total, self; contexts under ${formatPct(threshold, threshold * 100 < 0.1 ? 3 : 1)}${Number.isFinite(maxDepth) ? ` or deeper than ${maxDepth}` : ''} folded):`);
  const rows: string[][] = [];
  type Item = { node: ContextNode; prefix: string; childPrefix: string } | { summary: string };
  // Iterative, so a deep recursion in the profile cannot overflow the JS stack.
  const stack: Item[] = [{ node: p.root, prefix: '', childPrefix: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('summary' in item) {
      rows.push(['', '', item.summary]);
      continue;
    }
    const { node, prefix, childPrefix } = item;
    rows.push([formatPct(share(p, node.total)), formatPct(share(p, node.counter)), prefix + treeLabel(node)]);
    const shown =
      node.depth < maxDepth ? node.children.filter((c) => share(p, c.total) >= threshold).sort((a, b) => b.total - a.total || a.id - b.id) : [];
    const hidden = node.children.length - shown.length;
    const items: Item[] = shown.map((c, i) => {
      const last = i === shown.length - 1 && hidden === 0;
      return { node: c, prefix: childPrefix + (last ? '└─ ' : '├─ '), childPrefix: childPrefix + (last ? '   ' : '│  ') };
    });
    if (hidden > 0) {
      const rest = node.children.reduce((s, c) => s + c.total, 0) - shown.reduce((s, c) => s + c.total, 0);
      items.push({ summary: `${childPrefix}└─ … ${hidden} more context${hidden === 1 ? '' : 's'}, ${formatPct(share(p, rest))} together` });
    }
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!);
  }
  out.push(...table([['total', 'self', 'context'], ...rows], ['r', 'r', 'l']));
  return out.join('\n') + '\n';
}
