/**
 * The komorium-ts command. Exit codes: 0 success, 1 a gate that failed (diff), 2 bad input or
 * usage. A KomoriumError is the user's problem and is printed without a stack trace; anything
 * else is a bug in komorium-ts and keeps its stack.
 */
import yargs from 'yargs';
import { KomoriumError } from '../errors.js';
import { instrumentCommand } from './commands/instrument.js';
import { inspectCommand } from './commands/inspect.js';
import { reportCommand } from './commands/report.js';
import { diffCommand } from './commands/diff.js';
import { mergeCommand } from './commands/merge.js';
import { runCommand } from './commands/run.js';

export const EXIT = { OK: 0, GATE_FAILED: 1, BAD_INPUT: 2 } as const;

function fail(message: string): never {
  process.stderr.write(`komorium-ts: ${message}\n`);
  process.exit(EXIT.BAD_INPUT);
}

export async function main(argv: string[]): Promise<void> {
  const cli = yargs(argv)
    .scriptName('komorium-ts')
    .usage('$0 <command> [options]\n\nDeterministic sampling profiles of Java programs by bytecode instruction counting.')
    .command(instrumentCommand)
    .command(runCommand)
    .command(reportCommand)
    .command(diffCommand)
    .command(mergeCommand)
    .command(inspectCommand)
    .demandCommand(1, 'Name a command: instrument, run, report, diff, merge or inspect.')
    .strict()
    .recommendCommands()
    .epilogue('Exit codes: 0 success, 1 a diff gate failed, 2 bad input or usage.\nDocs: README.md')
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      if (err && !(err instanceof KomoriumError)) throw err;
      fail(err ? err.message : `${msg}\nRun 'komorium-ts --help' for usage.`);
    });
  try {
    await cli.parseAsync();
  } catch (e) {
    if (e instanceof KomoriumError) fail(e.message);
    throw e;
  }
}
