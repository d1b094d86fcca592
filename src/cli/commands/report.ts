import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../errors.js';
import { readDocument } from '../../profile/read.js';
import type { ProfileDocument } from '../../profile/document.js';
import { callGraphKinds, callGraphs, dotSections, htmlOfSections, kindsIn, reportSections } from '../../kinds/documents.js';
import type { ReportOptions as KindReportOptions } from '../../kinds/kind.js';
import { blockCodeFrom } from '../../report/block-code.js';
import { methodMatcher } from '../../report/names.js';
import type { Profile } from '../../profile/model.js';
import { renderCollapsed } from '../../report/collapsed.js';
import { renderHtml } from '../../report/html.js';
import { renderJson } from '../../report/json.js';
import { parseCount, parsePercent, writeOutput } from '../../report/output.js';
import { renderText } from '../../report/text.js';
import { renderPprof } from '../../report/pprof.js';
import { renderCallgrind } from '../../report/callgrind.js';
import { renderSpeedscope } from '../../report/speedscope.js';
import { annotateSources, renderHotLines, sourceDirs } from '../../report/lines.js';
import { filterThreads, splitByThread } from '../../profile/threads.js';
import { foldProfile } from '../../profile/fold.js';

export const REPORT_FORMATS = ['text', 'collapsed', 'json', 'html', 'pprof', 'callgrind', 'speedscope', 'dot'] as const;
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
  subpaths: boolean;
  classes: string[];
  'source-path': string[];
  lines: boolean;
  threads: boolean;
  thread?: string;
  fold: string[];
}

/** The format an output name asks for by its extension: `-o flame.html` alone gives a flame graph. */
const NAMED: [RegExp, ReportFormat][] = [
  [/\.html?$/i, 'html'],
  [/\.speedscope\.json$/i, 'speedscope'],
  [/\.json$/i, 'json'],
  [/\.(pb|pprof)(\.gz)?$/i, 'pprof'],
  [/(^|[\\/])callgrind\.out(\.|$)/, 'callgrind'],
  [/\.(folded|collapsed)$/i, 'collapsed'],
  [/\.(txt|text)$/i, 'text'],
  [/\.(dot|gv)$/i, 'dot'],
];

/** Extensions of formats komorium-ts does not write, and what to do instead. */
const FOREIGN: [RegExp, string][] = [
  [/\.svg$/i, 'an SVG: write -o flame.html for a flame graph, or --format collapsed for flamegraph.pl'],
  [/\.(png|jpe?g|pdf|jfr|gz|zip)$/i, 'that format: give a name ending in .txt, .folded, .json, .html, .speedscope.json, .pb.gz or .dot, or callgrind.out.NAME'],
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
  const named = formatFromOutput(output);
  const foreign = named === undefined ? FOREIGN.find(([re]) => re.test(output)) : undefined;
  if (foreign) throw new UsageError(`-o ${output}: komorium-ts does not write ${foreign[1]}`);
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
  /** Text: the hottest source lines. */
  lines?: boolean;
  /** Text: source files found under these folders, annotated with their lines' counts. */
  sourcePath?: string[];
  /** One root per thread name (pools grouped). */
  threads?: boolean;
  /** Only the threads this pattern matches. */
  thread?: string;
  /** Class patterns whose frames are folded into their nearest kept caller (profile/fold.ts). */
  fold?: string[];
}

/** What the sections of the framework's kinds are shown with, beside the format's options. */
export interface SectionReportOptions {
  method?: string;
  /** Only the subpaths section, every block of each subpath. */
  subpaths?: boolean;
  blockCode?: KindReportOptions['blockCode'];
  sourcePath?: string[];
}

/**
 * The text report shows every section of the file; dot draws its call graphs; pprof carries
 * Komorium's samples and the call graphs; the other formats
 * draw Komorium's samples tree, or, in a file without one, html shows the first section whose
 * kind has a page (subpaths).
 */
export function renderDocument(doc: ProfileDocument, o: ReportOptions & SectionReportOptions): string | Uint8Array {
  const kindOptions: KindReportOptions = {
    top: o.top ?? 20,
    rawDescriptors: o.rawDescriptors,
    method: o.method === undefined ? undefined : methodMatcher(o.method),
    detail: o.subpaths,
    blockCode: o.blockCode,
    sourcePath: o.sourcePath,
  };
  if (o.fold !== undefined && o.fold.length > 0 && (o.format === 'dot' || doc.komorium === null)) {
    throw new UsageError(`${doc.name}: --fold folds the frames of Komorium's samples tree, and ${o.format === 'dot' ? '--format dot draws a call graph' : 'this profile has none'}`);
  }
  if (o.format === 'dot') {
    const dot = dotSections(doc, kindOptions);
    if (dot === null) throw new UsageError(`${doc.name}: --format dot draws a call graph (a ${callGraphKinds()} section), and this profile holds ${kindsIn(doc) || 'nothing'}`);
    return dot;
  }
  if (o.format === 'pprof') {
    // Komorium's samples and every call graph, each in its own value columns (pprof.ts says why).
    const graphs = callGraphs(doc);
    if (doc.komorium === null && graphs.length === 0) {
      throw new UsageError(`${doc.name}: --format pprof exports Komorium's samples or a call graph (a ${callGraphKinds()} section), and this profile holds ${kindsIn(doc) || 'nothing'}`);
    }
    return renderPprof(doc.komorium && reportTree(doc.komorium, o), graphs, doc.name, o);
  }
  if (o.subpaths && !doc.sections.some((s) => s.kind === 'subpaths')) throw new UsageError(`${doc.name}: --subpaths: the profile has no subpaths section`);
  if (o.subpaths && o.format === 'text') return reportSections(doc, kindOptions, 'subpaths');
  const others = doc.sections.length > 0 && o.format === 'text' ? reportSections(doc, kindOptions) : '';
  if (doc.komorium === null) {
    const page = o.format === 'html' ? htmlOfSections(doc, kindOptions) : null;
    if (page !== null) return page;
    if (o.format !== 'text') {
      throw new UsageError(`${doc.name}: --format ${o.format} draws Komorium's samples tree, and this profile holds ${doc.sections.map((x) => x.kind).join(', ')}: use --format text`);
    }
    return others;
  }
  const komorium = renderReport(doc.komorium, o);
  return others === '' || typeof komorium !== 'string' ? komorium : `${komorium}\n${others}`;
}

/**
 * The samples tree a report draws: folded with --fold, restricted to --thread, split by thread with
 * --threads. Folding comes first, so that a thread that starts in folded code keeps its outermost
 * frame under its `<thread>` root rather than being charged to that root.
 */
export function reportTree(profile: Profile, o: Pick<ReportOptions, 'threads' | 'thread' | 'fold'>): Profile {
  let p = profile;
  if (o.fold !== undefined && o.fold.length > 0) p = foldProfile(p, o.fold);
  if (o.thread !== undefined) p = filterThreads(p, o.thread);
  if (o.threads) p = splitByThread(p);
  return p;
}

function renderTextWithLines(p: Profile, o: ReportOptions): string {
  const extra: string[] = [];
  if (o.lines) extra.push('', ...renderHotLines(p, o.top ?? 20, o));
  if (o.sourcePath !== undefined && o.sourcePath.length > 0) extra.push('', ...annotateSources(p, o.sourcePath, o.top ?? 20));
  return renderText(p, o) + (extra.length > 0 ? extra.join('\n') + '\n' : '');
}

export function renderReport(profile: Profile, o: ReportOptions): string | Uint8Array {
  profile = reportTree(profile, o);
  switch (o.format) {
    case 'text':
      return renderTextWithLines(profile, o);
    case 'collapsed':
      return renderCollapsed(profile, o);
    case 'json':
      return renderJson(profile, o);
    case 'html':
      return renderHtml(profile, o);
    case 'pprof':
      return renderPprof(profile, [], profile.name, o);
    case 'callgrind':
      return renderCallgrind(profile, o);
    case 'speedscope':
      return renderSpeedscope(profile, o);
    case 'dot':
      throw new UsageError('--format dot draws the call graph of a call-edges, call-pairs or cbs section; a Komorium profile has none');
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
        describe: 'text: hot methods, paths and call tree; collapsed: folded stacks for flamegraph.pl; ' +
          'json: methods and tree for scripts; html: interactive flame graph in one file; ' +
          'pprof: gzipped profile.proto for go tool pprof (Komorium\'s samples, and the call graph of a call-edges, call-pairs or cbs section); callgrind: for KCachegrind and callgrind_annotate; ' +
          'speedscope: speedscope\'s file format; dot: the call graph of a call-edges, call-pairs or cbs section for Graphviz (the --top heaviest edges) ' +
          '[default: from -o (.html, .json, .folded, .pb.gz, callgrind.out.*, .speedscope.json, .dot), else text]',
      })
      .option('output', { alias: 'o', type: 'string', describe: 'write to this file instead of stdout' })
      .option('top', { type: 'number', default: 20, describe: 'rows in the hottest methods and call paths lists; edges of --format dot' })
      .option('depth', { type: 'number', describe: 'call tree: show at most this many levels' })
      .option('threshold', { type: 'string', default: '1', describe: 'call tree: fold contexts under this percentage of the total' })
      .option('raw-descriptors', { type: 'boolean', default: false, describe: 'name methods as in the class file: com/foo/Bar.baz(ILjava/lang/String;)V' })
      .option('method', {
        alias: 'm',
        type: 'string',
        describe: 'call-edges, cbs, field-access, subpaths: only rows about methods this matches (callers and callees of it; subpaths through it); * is a wildcard',
      })
      .option('subpaths', { type: 'boolean', default: false, describe: 'only the subpaths section, with every block of each subpath (and its bytecode with --classes)' })
      .option('classes', { type: 'string', array: true, default: [], describe: 'subpaths: the original (uninstrumented) jars or class folders, for each block\'s bytecode and source lines' })
      .option('lines', { type: 'boolean', default: false, describe: 'text: also list the hottest source lines' })
      .option('source-path', {
        type: 'string',
        array: true,
        default: [],
        describe: 'folders of the sources (com/foo/Bar.java): text shows the hottest files with counts beside each line; subpaths\' html colours methods\' lines by subpath heat',
      })
      .option('threads', { type: 'boolean', default: false, describe: 'one root per thread name above the contexts (thread pools grouped: pool-1-thread-*)' })
      .option('thread', { type: 'string', describe: 'only the samples of threads whose name (or pool pattern) this matches; * is a wildcard' })
      .option('fold', {
        type: 'string',
        array: true,
        default: [],
        describe: 'remove the frames of classes matching these patterns (java.**,jdk.**,sun.**; comma-separated or repeated) and charge their counts to the nearest caller kept, in every format',
      })
      .option('value', {
        choices: ['samples', 'bytecodes'] as const,
        default: 'samples' as const,
        describe: 'collapsed and speedscope: count samples, or estimated bytecodes (counter share × total bytecodes)',
      })
      .example('$0 report app.kprof', 'hottest methods, hottest call paths and the call tree')
      .example('$0 report app.kprof -o flame.html', 'interactive flame graph: click to zoom, search, hover for numbers')
      .example('$0 report app.kprof --format collapsed | flamegraph.pl > flame.svg', 'folded stacks for Brendan Gregg\'s FlameGraph (or speedscope)')
      .example('$0 report app.kprof --depth 6 --threshold 0.5', 'a deeper look at the call tree')
      .example('$0 report app.kprof --subpaths --classes app.jar -m \'*Parser.*\'', 'hot subpaths through the parser, with the bytecode of every block')
      .example('$0 report app.kprof -o heat.html --source-path src/main/java', 'hot subpaths and the source lines they run, coloured by heat')
      .example('$0 report app.kprof --lines --source-path src/main/java', 'the hottest lines, and the hottest files with counts beside the code')
      .example('$0 report app.kprof --fold \'java.**,javax.**,jdk.**,sun.**,com.sun.**\'', 'the JDK\'s work charged to the application methods that called it')
      .example('$0 report app.kprof --threads -o flame.html', 'one flame per thread name; --thread \'pool-*\' keeps only those')
      .example('$0 report cbs.kprof --format dot --top 50 | dot -Tsvg > graph.svg', 'the 50 heaviest call edges as a Graphviz graph') as unknown as Argv<ReportArgs>,
  handler: async (args) => {
    const format = args.format ?? formatFromOutput(args.output) ?? 'text';
    checkOutputName(args.output, format, REPORT_FORMATS);
    const options: ReportOptions = {
      format,
      top: parseCount(args.top, '--top', 1),
      depth: args.depth === undefined ? undefined : parseCount(args.depth, '--depth', 1),
      threshold: parsePercent(args.threshold, '--threshold', { min: 0, max: 100 }),
      rawDescriptors: args['raw-descriptors'],
      value: args.value,
      lines: args.lines,
      sourcePath: sourceDirs(args['source-path']),
      threads: args.threads,
      thread: args.thread,
      fold: args.fold,
    };
    if (format === 'html' && args.output === undefined && process.stdout.isTTY) {
      throw new UsageError('--format html writes a whole web page: give -o flame.html (or redirect stdout)');
    }
    if (format === 'pprof' && args.output === undefined && process.stdout.isTTY) {
      throw new UsageError('--format pprof writes gzipped protobuf: give -o profile.pb.gz (or redirect stdout)');
    }
    if (args.output !== undefined && args.output === args.profile) throw new UsageError(`--output ${args.output} would overwrite the profile it reports on`);
    const blockCode = args.classes.length > 0 ? await blockCodeFrom(args.classes.flatMap((c) => c.split(':')).filter(Boolean)) : undefined;
    const sections: SectionReportOptions = { method: args.method, subpaths: args.subpaths, blockCode, sourcePath: options.sourcePath };
    writeOutput(args.output, renderDocument(readDocument(args.profile), { ...options, ...sections }));
  },
};
