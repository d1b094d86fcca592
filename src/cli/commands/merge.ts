import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { KomoriumError } from '../../errors.js';
import { readDocument } from '../../profile/read.js';
import { mergeDocuments } from '../../kinds/documents.js';
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
    const merged = mergeDocuments(paths.map((p) => readDocument(p)));
    writeOutput(args.output, merged.text);
    const k = merged.komorium;
    const what = k === null
      ? merged.kinds.join(', ')
      : `${formatInt(k.totalCounter)} ${k.unit === 'samples' ? 'samples' : 'counted bytecodes'}, ` +
        `${formatInt(k.totalBytecodes)} bytecodes, ${formatInt(k.nodes.length - 1)} calling contexts` +
        (merged.kinds.length > 1 ? ` (and ${merged.kinds.filter((x) => x !== 'komorium').join(', ')})` : '');
    process.stdout.write(`merged ${paths.length} profiles into ${args.output}: ${what}\n`);
  },
};
