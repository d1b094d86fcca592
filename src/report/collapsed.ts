/**
 * Folded stacks (`root;child;leaf N`, one line per calling context with a non-zero self counter),
 * the input of Brendan Gregg's flamegraph.pl and of speedscope's "folded" importer. Both split a
 * line at its last space and the stack at `;`, so frame names must not contain `;` or line breaks;
 * spaces are avoided too, for tools that split at the first blank.
 */
import { estimatedBytecodes, stackOf, type Profile } from '../profile/model.js';
import { methodName, type NameOptions } from './names.js';

export interface CollapsedOptions extends NameOptions {
  /** What N counts: the profile's counter (samples, or bytecodes for the exact agent) or estimated bytecodes. */
  value?: 'samples' | 'bytecodes';
}

/** A frame name safe inside a folded line: `com.foo.Bar.baz(int,String)`. */
export function collapsedFrame(name: string): string {
  return name
    .replace(/, /g, ',')
    .replace(/;/g, ':') // raw descriptors: Ljava/lang/String; → Ljava/lang/String:
    .replace(/[\s\u0000-\u001f\u007f]/g, '_');
}

export function renderCollapsed(p: Profile, opts: CollapsedOptions = {}): string {
  const names = p.methods.map((m) => collapsedFrame(methodName(m, opts)));
  const lines: string[] = [];
  for (const n of p.nodes) {
    if (n.counter === 0 || n.method === null) continue;
    const v = opts.value === 'bytecodes' ? Math.round(estimatedBytecodes(n)) : n.counter;
    if (v === 0) continue;
    lines.push(`${stackOf(n).map((m) => names[m.id]).join(';')} ${v}`);
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
