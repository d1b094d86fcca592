import type { Argv, CommandModule } from 'yargs';
import { mergeProfiles } from '../../profile/analysis.js';
import { readProfile } from '../../profile/read.js';
import { writeProfile } from '../../profile/write.js';
import { writeOutput } from '../../report/output.js';
import { formatInt } from '../../report/names.js';

interface MergeArgs {
  profiles: string[];
  output: string;
}

export const mergeCommand: CommandModule<object, MergeArgs> = {
  command: 'merge <profiles..>',
  describe: 'Sum profiles of the same agent (several runs, or parts of one) into one profile',
  builder: (y: Argv) =>
    y
      .positional('profiles', { type: 'string', array: true, demandOption: true, describe: '.kprof files, same agent and granularity' })
      .option('output', { alias: 'o', type: 'string', demandOption: true, describe: 'the merged profile (may be one of the inputs: all are read first)' })
      .example('$0 merge run1.kprof run2.kprof run3.kprof -o all.kprof', 'counters summed per calling context')
      .example('$0 merge shard-*.kprof -o all.kprof && $0 report all.kprof', 'profile a test suite run in shards') as unknown as Argv<MergeArgs>,
  handler: (args) => {
    const merged = mergeProfiles(args.profiles.map((p) => readProfile(p)));
    writeOutput(args.output, writeProfile(merged));
    const what = merged.unit === 'samples' ? 'samples' : 'counted bytecodes';
    process.stdout.write(
      `merged ${args.profiles.length} profiles into ${args.output}: ${formatInt(merged.totalCounter)} ${what}, ` +
        `${formatInt(merged.totalBytecodes)} bytecodes, ${formatInt(merged.nodes.length - 1)} calling contexts\n`,
    );
  },
};
