/**
 * The komorium-ts command. Exit codes: 0 success, 1 a gate that failed (diff), 2 bad input or
 * usage. A KomoriumError is the user's problem and is printed without a stack trace; anything
 * else is a bug in komorium-ts and keeps its stack.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import yargs, { type CommandModule } from 'yargs';
import { KomoriumError } from '../errors.js';

export const EXIT = { OK: 0, GATE_FAILED: 1, BAD_INPUT: 2 } as const;

function fail(message: string): never {
  process.stderr.write(`komorium-ts: ${message}\n`);
  process.exit(EXIT.BAD_INPUT);
}

type AnyCommand = CommandModule<object, never>;

/**
 * Each command's module, in the order the help lists them. A command's module loads the modules
 * it runs with (the rewrite pipeline, the report renderers, ...): loading all eight took about
 * 90 ms of CPU time on every run, a twentieth of instrumenting a mid-sized jar.
 */
const COMMAND_MODULES: [string, () => Promise<AnyCommand>][] = [
  ['instrument', async () => (await import('./commands/instrument.js')).instrumentCommand as AnyCommand],
  ['instrument-jdk', async () => (await import('./commands/instrument-jdk.js')).instrumentJdkCommand as AnyCommand],
  ['run', async () => (await import('./commands/run.js')).runCommand as AnyCommand],
  ['report', async () => (await import('./commands/report.js')).reportCommand as AnyCommand],
  ['diff', async () => (await import('./commands/diff.js')).diffCommand as AnyCommand],
  ['merge', async () => (await import('./commands/merge.js')).mergeCommand as AnyCommand],
  ['baseline', async () => (await import('./commands/baseline.js')).baselineCommand as AnyCommand],
  ['inspect', async () => (await import('./commands/inspect.js')).inspectCommand as AnyCommand],
];

/**
 * The commands yargs is given: only the one the command line names, or all of them when it names
 * none or an unknown one (the overall help, `--version`, and the messages that list the commands).
 */
async function loadCommands(argv: string[]): Promise<AnyCommand[]> {
  const first = argv.find((a) => !a.startsWith('-'));
  const named = COMMAND_MODULES.find(([name]) => name === first);
  return Promise.all((named ? [named] : COMMAND_MODULES).map(([, load]) => load()));
}

/**
 * Our own version: yargs' default looks for the package.json of the current folder (an ES module
 * has no require.main), which in a user's project is the project's. dist/cli/main.js and
 * src/cli/main.ts are both two levels below the package root.
 */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The command named on the command line (`instrument`, ...), if any. */
function commandIn(argv: string[], commands: readonly AnyCommand[]): AnyCommand | undefined {
  const first = argv.find((a) => !a.startsWith('-'));
  return commands.find((c) => String(c.command).split(' ')[0] === first);
}

/** yargs' usage messages, phrased for someone reading a build log: options with their dashes, what a command needs. */
function usageMessage(msg: string, argv: string[], commands: readonly AnyCommand[]): string {
  const cmd = commandIn(argv, commands);
  const name = cmd ? String(cmd.command).split(' ')[0] : undefined;
  let text = msg;
  const unknown = /^Unknown arguments?: (.*)$/.exec(msg);
  if (unknown) {
    const words = unknown[1]!.split(', ').map((w) => {
      const asOption = argv.find((a) => a === `--${w}` || a.startsWith(`--${w}=`) || a === `-${w}`);
      return asOption ? asOption.replace(/=.*$/, '') : w;
    });
    const options = words.filter((w) => w.startsWith('-'));
    const others = words.filter((w) => !w.startsWith('-'));
    const names = COMMAND_MODULES.map(([name]) => name).join(', ');
    text = [
      options.length ? `unknown option${options.length > 1 ? 's' : ''} ${options.join(', ')}` : '',
      others.length && !cmd ? `unknown command '${others[0]}' (commands: ${names})` : '',
      others.length && cmd ? `unexpected argument${others.length > 1 ? 's' : ''} ${others.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    if (options.length && name === 'run') text += `\nArguments for the program go after --: komorium-ts run app.jar [options] -- ${options[0]} …`;
  } else if (/^Not enough non-option arguments/.test(msg) && cmd) {
    text = `missing arguments: komorium-ts ${String(cmd.command)} [options]`;
  } else if (/^Did you mean /.test(msg)) {
    text = `unknown command '${argv.find((a) => !a.startsWith('-'))}'. ${msg}`;
  }
  return `${text}\nRun 'komorium-ts ${name ? `${name} ` : ''}--help' for usage.`;
}

/**
 * A run is a few seconds of large, polymorphic functions (the class transform, the code writer,
 * frame analysis), and V8's optimizing compiler spent about as much CPU time inlining into them
 * on its background threads as the program spent running (once more per worker thread). Without
 * inlining, `instrument` takes 10-20% less CPU time and no more wall time (guava, ecj, rhino jars).
 * V8's flags are process-wide, so worker threads started later compile the same way.
 * The same holds for loop peeling (a copy of each loop's first iteration, for code that runs a
 * few seconds), and a function is optimized after twice the default interrupt budget: fewer
 * functions are compiled, each with more type feedback, so fewer are compiled again after a
 * deoptimization. Both together: 8-10% less CPU time on guava and rhino (5 interleaved runs each).
 * The rewrite pipeline's modules load after this (main.ts loads commands on demand).
 */
function tuneCompiler(): void {
  setFlagsFromString('--no-turbo-inlining');
  setFlagsFromString('--no-turbo-loop-peeling');
  setFlagsFromString('--interrupt-budget=131072');
}

/**
 * yargs renders a command's whole help text each time it runs the command, to show should the
 * command fail later; our .fail handler never shows it. Rendering measures every line with
 * string-width, whose first call compiles its Unicode property expressions: tens of milliseconds of
 * CPU time per run, for nothing. This goes through yargs' internal methods: a yargs without them
 * only keeps its cost. `--help` renders the text itself and is not affected.
 */
function skipHelpCache(cli: object): void {
  type Internal = { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } | undefined } | undefined };
  const usage = (cli as Internal).getInternalMethods?.()?.getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/**
 * A reader that stops early (`| head -1`) closes the pipe: for a listing or a report that is a
 * normal end, not an error, so the process ends at once, quietly, with the exit code it had.
 */
function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK);
    });
  }
}

export async function main(argv: string[]): Promise<void> {
  tuneCompiler();
  endQuietlyOnClosedPipe();
  // yargs runs no command, and says nothing, for `komorium-ts -- instrument x.jar`: notice it.
  let handled = false;
  const ran = <T>(c: CommandModule<object, T>): CommandModule<object, T> => ({
    ...c,
    handler: (args) => {
      handled = true;
      return c.handler(args);
    },
  });
  const commands = await loadCommands(argv);
  const cli = yargs(argv)
    .scriptName('komorium-ts')
    .usage(
      '$0 <command> [options]\n\n' +
        'Deterministic sampling profiles of Java programs by bytecode instruction counting: instrument a jar so ' +
        'that it profiles itself, run it with any java, then report or diff the profile it writes (examples below).',
    )
    .command(commands.map(ran))
    .demandCommand(1, 'Name a command: instrument, instrument-jdk, run, report, diff, merge, baseline or inspect.')
    .strict()
    .recommendCommands()
    .example('$0 instrument app.jar -o app-komorium.jar', '')
    .example('java -Dkomorium.out=app.kprof -jar app-komorium.jar', '')
    .example('$0 report app.kprof', '')
    .epilogue(
      "Run '$0 <command> --help' for a command's options.\n" +
        'Exit codes: 0 success; 1 a gate failed (diff, baseline compare); 2 bad input or usage ' +
        '(the message on stderr names the file or option); run passes on a non-zero exit code of the program.\n' +
        'Output is plain text when stdout is not a terminal: no colors, no progress bar.\n' +
        'Docs: README.md',
    )
    .help()
    .alias('h', 'help')
    .version(packageVersion())
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      if (err && !(err instanceof KomoriumError)) throw err;
      fail(err ? err.message : usageMessage(msg, argv, commands));
    });
  skipHelpCache(cli);
  try {
    await cli.parseAsync();
    if (!handled) fail(`no command ran for: ${argv.join(' ')}\nRun 'komorium-ts --help' for usage.`);
  } catch (e) {
    if (e instanceof KomoriumError) fail(e.message);
    throw e;
  }
}
