import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../errors.js';
import { readProfile } from '../../profile/read.js';
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
      .example('$0 diff main.kprof pr.kprof', 'what changed, the method that grew most first')
      .example('$0 diff main.kprof pr.kprof --fail-under 95 --max-growth 5%', 'CI: exit 1 if the profiles overlap less than 95% or the program runs 5% more bytecodes')
      .example('$0 diff main.kprof pr.kprof --max-growth 2% --method \'com.foo.Parser.*\'', 'CI: no Parser method may grow more than 2%')
      .example('$0 diff main.kprof pr.kprof -o diff.html', 'differential flame graph: red grew, blue shrank') as unknown as Argv<DiffArgs>,
  handler: (args) => {
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
