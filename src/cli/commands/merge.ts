import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
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
    const docs = paths.map((p) => readDocument(p));
    for (const w of repeatedProfiles(paths)) process.stderr.write(`komorium-ts: warning: ${w}\n`);
    const merged = mergeDocuments(docs);
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

/**
 * The same run given twice is counted twice: one file named twice, or a profile and its copy that a
 * shell glob both matched. The same file, or the same header (JVM, date, pid) and data, is one run.
 */
function repeatedProfiles(paths: readonly string[]): string[] {
  const firstSeen = new Map<string, string>();
  const warnings: string[] = [];
  paths.forEach((path, i) => {
    // A run's header (JVM, date, pid) and data are its file's bytes.
    const run = readFileSync(path, 'utf8');
    const keys = [`file ${realOrSame(paths[i]!)}`, `run ${run}`];
    const earlier = keys.map((k) => firstSeen.get(k)).find((f) => f !== undefined);
    if (earlier !== undefined) warnings.push(`${paths[i]} is the same profile as ${earlier} (the same run): its counts are added twice`);
    else for (const k of keys) firstSeen.set(k, paths[i]!);
  });
  return warnings;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
