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

/** The format an output name asks for by its extension: `-o flame.html` alone gives a flame graph. */
const NAMED: [RegExp, ReportFormat][] = [
  [/\.html?$/i, 'html'],
  [/\.json$/i, 'json'],
  [/\.(folded|collapsed)$/i, 'collapsed'],
  [/\.(txt|text)$/i, 'text'],
  [/\.(dot|gv)$/i, 'dot'],
];

/** Extensions of formats komorium-ts does not write, and what to do instead. */
const FOREIGN: [RegExp, string][] = [
  [/\.svg$/i, 'an SVG: write -o flame.html for a flame graph, or --format collapsed for flamegraph.pl'],
  [/\.(pb|pprof)(\.gz)?$/i, "pprof's protobuf: write --format collapsed (folded stacks), which speedscope and flamegraph.pl read"],
  [/\.(png|jpe?g|pdf|jfr|gz|zip)$/i, 'that format: give a name ending in .txt, .folded, .json, .html or .dot'],
];

export function formatFromOutput(output: string | undefined): ReportFormat | undefined {
  if (output === undefined) return undefined;
  return NAMED.find(([re]) => re.test(output))?.[1];
}

/**
 * Refuses an output name whose extension asks for another format than the one written (`-o x.svg`
 * would otherwise get plain text): the format is written, or the command refuses.
 */
export function checkOutputName(output: string | undefined, format: string, formats: readonly string[]): void {
  if (output === undefined || output === '-') return;
  const foreign = FOREIGN.find(([re]) => re.test(output));
  if (foreign) throw new UsageError(`-o ${output}: komorium-ts does not write ${foreign[1]}`);
  const named = formatFromOutput(output);
  if (named !== undefined && named !== format) {
    throw new UsageError(
      formats.includes(named)
        ? `-o ${output} names a ${named} file, but --format ${format} was asked for: make them agree`
        : `-o ${output} names a ${named} file, which this command does not write (it writes ${formats.join(', ')})`,
    );
  }
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
    checkOutputName(args.output, format, REPORT_FORMATS);
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
