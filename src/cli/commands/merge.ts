import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { KomoriumError } from '../../errors.js';
import { mergeProfiles } from '../../profile/analysis.js';
import { readProfile } from '../../profile/read.js';
import { writeProfile } from '../../profile/write.js';
import { writeOutput } from '../../report/output.js';
import { formatInt } from '../../report/names.js';

interface MergeArgs {
  profiles: string[];
  output: string;
}

/**
 * A folder stands for the .kprof files directly in it, in name order: forked JVMs write
 * `prof-%p.kprof` under process ids no build step knows beforehand, and a build tool that runs
 * commands without a shell (Gradle's Exec, exec-maven-plugin) has no glob to name them with.
 */
function expandProfileArgs(paths: string[]): string[] {
  return paths.flatMap((p) => {
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      return [p]; // readProfile names the missing file
    }
    if (!isDir) return [p];
    const found = readdirSync(p).filter((f) => f.endsWith('.kprof')).sort().map((f) => join(p, f));
    if (found.length === 0) throw new KomoriumError(`${p}: no .kprof profile in this folder`);
    return found;
  });
}

export const mergeCommand: CommandModule<object, MergeArgs> = {
  command: 'merge <profiles..>',
  describe: 'Sum profiles of the same agent (several runs, or parts of one) into one profile',
  builder: (y: Argv) =>
    y
      .positional('profiles', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: '.kprof files, same agent and granularity; a folder stands for the .kprof files in it',
      })
      .option('output', { alias: 'o', type: 'string', demandOption: true, describe: 'the merged profile (may be one of the inputs: all are read first)' })
      .example('$0 merge run1.kprof run2.kprof run3.kprof -o all.kprof', 'counters summed per calling context')
      .example('$0 merge shard-*.kprof -o all.kprof && $0 report all.kprof', 'profile a test suite run in shards')
      .example('$0 merge build/komorium/test -o test.kprof', 'every profile the forked test JVMs wrote there') as unknown as Argv<MergeArgs>,
  handler: (args) => {
    const paths = expandProfileArgs(args.profiles);
    const merged = mergeProfiles(paths.map((p) => readProfile(p)));
    writeOutput(args.output, writeProfile(merged));
    const what = merged.unit === 'samples' ? 'samples' : 'counted bytecodes';
    process.stdout.write(
      `merged ${paths.length} profiles into ${args.output}: ${formatInt(merged.totalCounter)} ${what}, ` +
        `${formatInt(merged.totalBytecodes)} bytecodes, ${formatInt(merged.nodes.length - 1)} calling contexts\n`,
    );
  },
};
