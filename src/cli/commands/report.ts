import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../errors.js';
import { readDocument } from '../../profile/read.js';
import type { ProfileDocument } from '../../profile/document.js';
import { dotSections, reportSections } from '../../kinds/documents.js';
import { methodMatcher } from '../../report/names.js';
import type { Profile } from '../../profile/model.js';
import { renderCollapsed } from '../../report/collapsed.js';
import { renderHtml } from '../../report/html.js';
import { renderJson } from '../../report/json.js';
import { parseCount, parsePercent, writeOutput } from '../../report/output.js';
import { renderText } from '../../report/text.js';

export const REPORT_FORMATS = ['text', 'collapsed', 'json', 'html', 'dot'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

interface ReportArgs {
  profile: string;
  format?: ReportFormat;
  output?: string;
  top: number;
  depth?: number;
  threshold: string | number;
  'raw-descriptors': boolean;
  value: 'samples' | 'bytecodes';
  method?: string;
}

/** `-o flame.html` alone should give a flame graph, not a text file named .html. */
export function formatFromOutput(output: string | undefined): ReportFormat | undefined {
  if (output === undefined) return undefined;
  if (/\.html?$/i.test(output)) return 'html';
  if (/\.json$/i.test(output)) return 'json';
  if (/\.(folded|collapsed)$/i.test(output)) return 'collapsed';
  if (/\.(dot|gv)$/i.test(output)) return 'dot';
  return undefined;
}

export interface ReportOptions {
  format: ReportFormat;
  top?: number;
  depth?: number;
  threshold?: number;
  rawDescriptors?: boolean;
  value?: 'samples' | 'bytecodes';
}

/** The text report shows every section of the file; dot draws its call graphs; the other formats draw Komorium's samples tree. */
export function renderDocument(doc: ProfileDocument, o: ReportOptions & { method?: string }): string {
  if (o.format === 'dot') {
    const dot = dotSections(doc, { top: o.top ?? 20, rawDescriptors: o.rawDescriptors, method: o.method === undefined ? undefined : methodMatcher(o.method) });
    if (dot === null) {
      const kinds = [...(doc.komorium ? ['komorium'] : []), ...doc.sections.map((x) => x.kind)].join(', ');
      throw new UsageError(`${doc.name}: --format dot draws a call graph (a call-edges or cbs section), and this profile holds ${kinds || 'nothing'}`);
    }
    return dot;
  }
  const others = doc.sections.length > 0 && o.format === 'text'
    ? reportSections(doc, { top: o.top ?? 20, rawDescriptors: o.rawDescriptors, method: o.method === undefined ? undefined : methodMatcher(o.method) })
    : '';
  if (doc.komorium === null) {
    if (o.format !== 'text') {
      throw new UsageError(`${doc.name}: --format ${o.format} draws Komorium's samples tree, and this profile holds ${doc.sections.map((x) => x.kind).join(', ')}: use --format text`);
    }
    return others;
  }
  const komorium = renderReport(doc.komorium, o);
  return others === '' ? komorium : `${komorium}\n${others}`;
}

export function renderReport(profile: Profile, o: ReportOptions): string {
  switch (o.format) {
    case 'text':
      return renderText(profile, o);
    case 'collapsed':
      return renderCollapsed(profile, o);
    case 'json':
      return renderJson(profile, o);
    case 'html':
      return renderHtml(profile, o);
    case 'dot':
      throw new UsageError('--format dot draws the call graph of a call-edges or cbs section; a Komorium profile has none');
  }
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <profile>',
  describe: 'Show a profile: hottest methods and call paths, folded stacks, JSON or an HTML flame graph',
  builder: (y: Argv) =>
    y
      .positional('profile', { type: 'string', demandOption: true, describe: 'a .kprof file written by an instrumented program' })
      .option('format', {
        alias: 'f',
        choices: REPORT_FORMATS,
        describe: 'text: hot methods, paths and call tree; collapsed: folded stacks for flamegraph.pl or speedscope; ' +
          'json: methods and tree for scripts; html: interactive flame graph in one file; dot: the call graph of a call-edges or cbs ' +
          'section for Graphviz (the --top heaviest edges) [default: from -o, else text]',
      })
      .option('output', { alias: 'o', type: 'string', describe: 'write to this file instead of stdout' })
      .option('top', { type: 'number', default: 20, describe: 'rows in the hottest methods and call paths lists; edges of --format dot' })
      .option('depth', { type: 'number', describe: 'call tree: show at most this many levels' })
      .option('threshold', { type: 'string', default: '1', describe: 'call tree: fold contexts under this percentage of the total' })
      .option('raw-descriptors', { type: 'boolean', default: false, describe: 'name methods as in the class file: com/foo/Bar.baz(ILjava/lang/String;)V' })
      .option('method', { alias: 'm', type: 'string', describe: 'call-edges, cbs and field-access: only rows about methods this matches (callers and callees of it); * is a wildcard' })
      .option('value', {
        choices: ['samples', 'bytecodes'] as const,
        default: 'samples' as const,
        describe: 'collapsed: count samples, or estimated bytecodes (counter share × total bytecodes)',
      })
      .example('$0 report app.kprof', 'hottest methods, hottest call paths and the call tree')
      .example('$0 report app.kprof -o flame.html', 'interactive flame graph: click to zoom, search, hover for numbers')
      .example('$0 report app.kprof --format collapsed | flamegraph.pl > flame.svg', 'folded stacks for Brendan Gregg\'s FlameGraph (or speedscope)')
      .example('$0 report app.kprof --depth 6 --threshold 0.5', 'a deeper look at the call tree')
      .example('$0 report cbs.kprof --format dot --top 50 | dot -Tsvg > graph.svg', 'the 50 heaviest call edges as a Graphviz graph') as unknown as Argv<ReportArgs>,
  handler: (args) => {
    const format = args.format ?? formatFromOutput(args.output) ?? 'text';
    const options: ReportOptions = {
      format,
      top: parseCount(args.top, '--top', 1),
      depth: args.depth === undefined ? undefined : parseCount(args.depth, '--depth', 1),
      threshold: parsePercent(args.threshold, '--threshold', { min: 0, max: 100 }),
      rawDescriptors: args['raw-descriptors'],
      value: args.value,
    };
    if (format === 'html' && args.output === undefined && process.stdout.isTTY) {
      throw new UsageError('--format html writes a whole web page: give -o flame.html (or redirect stdout)');
    }
    if (args.output !== undefined && args.output === args.profile) throw new UsageError(`--output ${args.output} would overwrite the profile it reports on`);
    writeOutput(args.output, renderDocument(readDocument(args.profile), { ...options, method: args.method }));
  },
};
