/**
 * `report --fold PATTERNS`: the calling-context tree without the frames of some classes (the JDK's,
 * a library's), their counters charged to the nearest frame that is kept. It answers "which of my
 * methods causes the work": `J.jdk → String.format → Formatter.format → …` becomes `J.jdk` holding
 * all of it as self. One transformation of the profile, before any format draws it, so that every
 * format shows the same tree.
 *
 * Exact: every counter moves whole, so the total, each thread's total and each kept subtree's
 * inclusive counter are unchanged, and a context's self entries still sum to its counter.
 *
 * - A folded frame's self entries keep their thread; their line becomes the line of the kept frame
 *   that called into the folded chain, when the profile says it (the chain's first frame was called
 *   from one line only, and call lines were recorded: not `instrument --no-call-lines`), else -1
 *   (unknown): a line of the JDK's source is not a line of the frame it is charged to.
 * - A kept frame under folded ones (a comparator called by `Collections.sort`) becomes a child of
 *   the nearest kept frame above them, and its call line is that frame's line into the chain when
 *   known, else none.
 * - A chain of folded frames at the root (a thread that starts in the JDK: `Thread.run`, the
 *   reference handler, a pool's worker) keeps its outermost frame and charges the rest to it. A
 *   user expects to see where such work started, as a stack trace or another profiler shows it,
 *   and the threads that start in different places stay apart; one `[jdk]` node would merge the
 *   finalizer, the reference handler and every pool into one box that says nothing.
 * - `[uninstrumented]` (frames the profile does not see) is folded with the classes: with the JDK
 *   instrumented, the application's calls enter the JDK through its wrappers and show one such node
 *   between `J.jdk` and `String.format`, and "which of my methods" must not answer "[uninstrumented]".
 *   The markers `<truncated>` and `<thread>` are never folded: they tell where the profile lost
 *   frames, and which thread ran.
 */
import { compileClassPattern } from '../instrument/patterns.js';
import { javaName } from '../classfile/names.js';
import { UsageError } from '../errors.js';
import { combineSelf, type CallEntry, type SelfEntry } from './breakdown.js';
import { buildProfile, fieldsOf, TRUNCATED_CLASS, UNINSTRUMENTED_CLASS, type ContextNode, type MethodEntry, type Profile, type TreeDraft } from './model.js';
import { THREAD_CLASS } from './threads.js';

const MARKERS = new Set([TRUNCATED_CLASS, UNINSTRUMENTED_CLASS, THREAD_CLASS]);

/**
 * `--fold` arguments (each may list several, comma-separated) as one class test, with the glob
 * syntax of `instrument --include`: `java.**`, `com.foo.*`, `*Test`.
 */
export function foldPatterns(args: readonly string[]): string[] {
  const patterns = args.flatMap((a) => a.split(',')).map((s) => s.trim());
  if (patterns.length === 0 || patterns.some((s) => s === '')) {
    throw new UsageError(`--fold '${args.join(',')}': give class patterns separated by commas, e.g. --fold 'java.**,jdk.**,sun.**'`);
  }
  return patterns;
}

export function foldMatcher(patterns: readonly string[]): (className: string) => boolean {
  const res = patterns.map(compileClassPattern);
  return (className) => className === UNINSTRUMENTED_CLASS || (!MARKERS.has(className) && res.some((r) => r.test(javaName(className))));
}

/** A kept frame being built: its own counter and self entries, plus those of the folded frames charged to it. */
interface Kept {
  draft: TreeDraft;
  parts: { counter: number; self?: readonly SelfEntry[] }[];
}

interface Work {
  node: ContextNode;
  /** The kept frame this node's counters go to if it is folded, or under which it goes if it is kept. */
  anchor: Kept;
  /** Set when the node's parent is folded: the anchor's line into the chain, -1 unknown. */
  chainLine: number | null;
}

/** The line a kept frame called a folded chain from: the chain's first frame's only call line, covering all of it. */
function lineInto(first: ContextNode): number {
  const calls = first.calls ?? [];
  return calls.length === 1 && calls[0]!.counter === first.total ? calls[0]!.line : -1;
}

function keep(node: ContextNode, parent: Kept, calls: readonly CallEntry[] | undefined): Kept {
  const draft: TreeDraft = { method: node.method as MethodEntry, counter: 0, children: [], calls };
  parent.draft.children.push(draft);
  return { draft, parts: [{ counter: node.counter, self: node.self }] };
}

/** The header that tells every report the tree was folded, and by what. */
export const FOLDED_HEADER = 'folded';

/** `p` with the frames of classes `args` match folded into their callers (see above); a `folded` header says so. */
export function foldProfile(p: Profile, args: readonly string[]): Profile {
  const patterns = foldPatterns(args);
  const folded = foldMatcher(patterns);
  const root: Kept = { draft: { method: null, counter: p.root.counter, children: [] }, parts: [] };
  const all: Kept[] = [];
  // Iterative: a deep recursion in the profile must not overflow the JS stack.
  const work: Work[] = p.root.children.map((node) => ({ node, anchor: root, chainLine: null }));
  while (work.length > 0) {
    const { node, anchor, chainLine } = work.pop()!;
    const method = node.method!;
    let next: Kept;
    let line: number | null;
    if (!folded(method.className) || anchor === root) {
      // Kept: a frame that is not folded, or the outermost frame of a chain that starts at the root.
      const calls = chainLine === null ? node.calls : chainLine < 0 ? undefined : [{ line: chainLine, counter: node.total }];
      next = keep(node, anchor, calls);
      all.push(next);
      line = null;
    } else {
      const into = chainLine ?? lineInto(node);
      line = into;
      next = anchor;
      next.parts.push({ counter: node.counter, self: node.self?.map((e) => ({ thread: e.thread, line: into, counter: e.counter })) });
    }
    for (const c of node.children) work.push({ node: c, anchor: next, chainLine: line });
  }
  for (const k of all) {
    k.draft.counter = k.parts.reduce((s, x) => s + x.counter, 0);
    // A part without a breakdown stays unknown (no thread, line -1), so the entries still sum to the counter.
    k.draft.self = combineSelf(k.parts);
  }
  const fields = fieldsOf(p);
  fields.headers = [...p.headers, { key: FOLDED_HEADER, value: patterns.join(',') }];
  return buildProfile(fields, root.draft);
}
