import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../errors.js';
import { readDocument, readProfile } from '../../profile/read.js';
import { accuracyOf, type KindAccuracy } from '../../kinds/documents.js';
import { formatInt, formatPct, table } from '../../report/names.js';
import { diffProfiles, diffSummaryLines, renderDiffHtml, renderDiffJson, renderDiffText, type DiffOptions } from '../../report/diff.js';
import { parseCount, parsePercent, writeOutput } from '../../report/output.js';
import { checkOutputName, formatFromOutput } from './report.js';

const DIFF_FORMATS = ['text', 'json', 'html'] as const;

interface DiffArgs {
  a: string;
  b: string;
  'fail-under'?: string;
  'max-growth'?: string;
  method: string[];
  format?: (typeof DIFF_FORMATS)[number];
  output?: string;
  top: number;
  'raw-descriptors': boolean;
  accuracy: boolean;
  cutoff?: string;
}

/** A row's kind, and the exact profile's kind it was measured against when not its own. */
function kindLabel(r: KindAccuracy): string {
  return r.against === undefined ? r.kind : `${r.kind} against ${r.against}`;
}

/**
 * `diff --accuracy EXACT SAMPLED`: how close a sampled profile is to the exhaustive (or exact)
 * profile of the same run input, for every kind the two share.
 */
function renderAccuracy(exactName: string, sampledName: string, rows: KindAccuracy[], top: number, format: 'text' | 'json', cutoff?: number): string {
  if (format === 'json') return JSON.stringify({ exact: exactName, sampled: sampledName, cutoff: cutoff ?? null, kinds: rows }, null, 2) + '\n';
  const lines = [
    `accuracy of ${sampledName} against ${exactName}`,
    '  overlap: each key\'s share of its profile, summed over keys as the smaller of the two shares; 100% is the same distribution',
    ...(cutoff === undefined ? [] : [`  cutoff: each profile cut to its top members that make ${cutoff}% of it, shares of what is kept (seed 001 §5; not the komorium kind)`]),
    '',
    ...table(
      [
        ['kind', 'overlap', 'ideal', 'over'],
        ...rows.map((r) => [kindLabel(r), formatPct(r.overlap, 2), r.ideal === undefined ? '' : formatPct(r.ideal, 2), `${formatInt(r.keys)} ${r.unit}`]),
      ],
      ['l', 'r', 'r', 'l'],
    ),
    ...(rows.some((r) => r.ideal !== undefined)
      ? ['', '  ideal: the overlap that as many independent random samples as B holds, drawn from A, reach on average: well below it, B is biased; near it, B lacks samples']
      : []),
  ];
  for (const r of rows) {
    const worst = r.worst.filter((w) => w.exact !== w.sampled).slice(0, top);
    if (worst.length === 0) continue;
    lines.push('', `Largest differences, ${kindLabel(r)} ${r.unit} (share exact → sampled):`);
    lines.push(...table(worst.map((w) => [formatPct(w.exact, 2), '→', formatPct(w.sampled, 2), w.name]), ['r', 'l', 'r', 'l']));
  }
  for (const r of rows) if (r.notes?.length) lines.push('', `${kindLabel(r)}:`, ...r.notes.map((n) => `  ${n}`));
  return lines.join('\n') + '\n';
}

export const diffCommand: CommandModule<object, DiffArgs> = {
  command: 'diff <a> <b>',
  describe: 'Compare profile A (before) with B (after): overlap, what grew or shrank, CI gates',
  builder: (y: Argv) =>
    y
      .positional('a', { type: 'string', demandOption: true, describe: 'the baseline profile' })
      .positional('b', { type: 'string', demandOption: true, describe: 'the profile to check against it' })
      .option('fail-under', {
        type: 'string',
        describe: 'gate: exit 1 when the overlap (the smaller of the two shares of each calling context, summed) is under P percent',
      })
      .option('max-growth', {
        type: 'string',
        describe: 'gate: exit 1 when the total bytecodes, or a --method\'s bytecodes including callees, grew more than X%',
      })
      .option('method', {
        type: 'string',
        array: true,
        default: [],
        describe: 'methods --max-growth also limits (repeatable; * is a wildcard): com.foo.Parser.*, *.parse, com.foo.Bar.baz(int)',
      })
      .option('format', { alias: 'f', choices: DIFF_FORMATS, describe: 'text, json, or html: a differential flame graph of B colored by growth vs A [default: from -o, else text]' })
      .option('output', { alias: 'o', type: 'string', describe: 'write to this file instead of stdout (the verdict still goes to stdout)' })
      .option('top', { type: 'number', default: 10, describe: 'rows per list' })
      .option('raw-descriptors', { type: 'boolean', default: false, describe: 'name methods as in the class file' })
      .option('cutoff', {
        type: 'string',
        describe: 'with --accuracy: compare only the top members of each profile that make P percent of it (seed 001 §5 uses 90)',
      })
      .option('accuracy', {
        type: 'boolean',
        default: false,
        describe: 'A is the exhaustive (or exact) profile, B a sampled one of the same run input: the overlap of B with A for every kind they share (--fail-under gates each)',
      })
      .example('$0 diff main.kprof pr.kprof', 'what changed, the method that grew most first')
      .example('$0 diff main.kprof pr.kprof --fail-under 95 --max-growth 5%', 'CI: exit 1 if the profiles overlap less than 95% or the program runs 5% more bytecodes')
      .example('$0 diff main.kprof pr.kprof --max-growth 2% --method \'com.foo.Parser.*\'', 'CI: no Parser method may grow more than 2%')
      .example('$0 diff main.kprof pr.kprof -o diff.html', 'differential flame graph: red grew, blue shrank')
      .example('$0 diff --accuracy exhaustive.kprof sampled.kprof', 'how well a sampled profile matches the exhaustive one (seed 000 §4.4)')
      .example('$0 diff --accuracy --cutoff 90 exhaustive.kprof sampled.kprof', 'the same over the members that make 90% of each profile (seed 001 §5)') as unknown as Argv<DiffArgs>,
  handler: (args) => {
    if (args.accuracy) {
      const failUnder = args['fail-under'] === undefined ? undefined : parsePercent(args['fail-under'], '--fail-under', { min: 0, max: 100 });
      if (args['max-growth'] !== undefined || args.method.length > 0) throw new UsageError('--accuracy compares distributions: --max-growth and --method do not apply');
      const format = args.format ?? formatFromOutput(args.output) ?? 'text';
      if (format === 'html') throw new UsageError('--accuracy writes text or json');
      const cutoff = args.cutoff === undefined ? undefined : parsePercent(args.cutoff, '--cutoff', { min: 0, max: 100 });
      if (cutoff === 0) throw new UsageError('--cutoff 0 keeps nothing to compare: give a percentage above 0');
      const rows = accuracyOf(readDocument(args.a), readDocument(args.b), { cutoff: cutoff === undefined ? undefined : cutoff / 100 });
      writeOutput(args.output, renderAccuracy(args.a, args.b, rows, parseCount(args.top, '--top', 1), format === 'json' ? 'json' : 'text', cutoff));
      const failed = failUnder === undefined ? [] : rows.filter((r) => r.overlap * 100 < failUnder);
      if (failed.length > 0) {
        process.stdout.write(`Verdict: FAIL: ${failed.map((r) => `${kindLabel(r)} ${r.unit} ${formatPct(r.overlap, 2)}`).join(', ')} under ${failUnder}% (--fail-under)\n`);
        process.exitCode = 1;
      }
      return;
    }
    if (args.cutoff !== undefined) throw new UsageError('--cutoff applies to --accuracy');
    const opts: DiffOptions = {
      failUnder: args['fail-under'] === undefined ? undefined : parsePercent(args['fail-under'], '--fail-under', { min: 0, max: 100 }),
      maxGrowth: args['max-growth'] === undefined ? undefined : parsePercent(args['max-growth'], '--max-growth', { min: -100 }),
      methods: args.method,
      top: parseCount(args.top, '--top', 1),
      rawDescriptors: args['raw-descriptors'],
    };
    if (args.method.length > 0 && opts.maxGrowth === undefined) throw new UsageError('--method selects what --max-growth limits: give --max-growth too');
    const named = formatFromOutput(args.output);
    const format = args.format ?? (named === 'collapsed' ? undefined : named) ?? 'text';
    checkOutputName(args.output, format, DIFF_FORMATS);
    if (format === 'html' && args.output === undefined && process.stdout.isTTY) {
      throw new UsageError('--format html writes a whole web page: give -o diff.html (or redirect stdout)');
    }
    const d = diffProfiles(readProfile(args.a), readProfile(args.b), opts);
    const toFile = args.output !== undefined && args.output !== '-';
    if (format !== 'text' || toFile) for (const w of d.warnings) process.stderr.write(`komorium-ts: warning: ${w}\n`);
    const text = format === 'html' ? renderDiffHtml(d, opts) : format === 'json' ? renderDiffJson(d, opts) : renderDiffText(d, opts);
    writeOutput(args.output, text);
    if (toFile) process.stdout.write(`wrote ${args.output}\n${diffSummaryLines(d, opts).slice(0, 2).join('\n')}\n`);
    if (!d.passed) process.exitCode = 1;
  },
};
