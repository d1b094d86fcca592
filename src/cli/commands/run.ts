/**
 * `komorium-ts run app.jar -- args`: instrument, run with a plain `java`, and print where the
 * bytecodes went — the whole loop in one command, like a profiler's launcher.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, extname, join, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { instrumentProgram } from '../../instrument/program.js';
import { readProfile } from '../../profile/read.js';
import { renderText } from '../../report/text.js';
import { KomoriumError } from '../../errors.js';
import { CLASSPATH_HELP, classpathElements } from '../classpath.js';

interface RunArgs {
  jar: string;
  args: string[];
  main?: string;
  out?: string;
  agent: string;
  granularity: number;
  random: number;
  seed: number;
  'jvm-arg': string[];
  java: string;
  top: number;
  classpath: string[];
  include: string[];
  exclude: string[];
  checks: 'all' | 'optimized';
  'max-path': number;
  'call-lines': boolean;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <jar> [args..]',
  describe: 'Instrument a jar, run it with java, and print its hottest methods and call paths',
  builder: (y: Argv) =>
    y
      .positional('jar', { type: 'string', demandOption: true, describe: 'the application jar (java -jar), or a jar with --main' })
      .positional('args', { type: 'string', array: true, default: [], describe: 'arguments for the program (after --)' })
      .option('main', { type: 'string', describe: 'main class; runs java -cp <jar> <main> instead of java -jar' })
      .option('out', { alias: 'o', type: 'string', describe: 'profile file [default: <jar name>.kprof]' })
      .option('agent', { type: 'string', default: 'sampling', describe: 'sampling, exact, or an agent class name' })
      .option('granularity', { alias: 'g', type: 'number', default: 10000, describe: 'bytecodes between samples' })
      .option('random', { type: 'number', default: 0, describe: 'randomize the granularity by 0 <= r < R' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the per-thread random generators' })
      .option('jvm-arg', { type: 'string', array: true, default: [], describe: 'extra JVM option, repeatable' })
      .option('java', { type: 'string', default: 'java', describe: 'the java launcher to run' })
      .option('top', { type: 'number', default: 15, describe: 'rows in the printed report' })
      .option('classpath', { alias: 'cp', type: 'string', array: true, default: [], describe: `jars the application needs, not rewritten (${CLASSPATH_HELP})` })
      .option('include', { type: 'string', array: true, default: [], describe: 'rewrite only classes matching (as for instrument)' })
      .option('exclude', { type: 'string', array: true, default: [], describe: 'leave classes matching as they are (as for instrument)' })
      .option('checks', { choices: ['all', 'optimized'] as const, default: 'optimized' as const, describe: 'as for instrument' })
      .option('max-path', { type: 'number', default: 50, describe: 'as for instrument' })
      .option('call-lines', { type: 'boolean', default: false, describe: 'as for instrument' })
      .example('$0 run app.jar -- input.txt', 'profile app.jar on input.txt; writes app.kprof') as unknown as Argv<RunArgs>,
  handler: async (a) => {
    const work = mkdtempSync(join(tmpdir(), 'komorium-run-'));
    try {
      const instrumented = join(work, basename(a.jar));
      const classpath = classpathElements(a.classpath);
      await instrumentProgram({
        input: a.jar,
        output: instrumented,
        classpath,
        include: a.include,
        exclude: a.exclude,
        skipBroken: false,
        mode: { profile: 'komorium', options: { checks: a.checks, maxPath: a['max-path'], leafOpt: true, callbacks: true, counter: 'field', callLines: a['call-lines'] } },
      });
      const out = resolve(a.out ?? basename(a.jar, extname(a.jar)) + '.kprof');
      const cp = [instrumented, ...classpath].join(delimiter);
      const props = [
        `-Dkomorium.agent=${a.agent}`,
        `-Dkomorium.granularity=${a.granularity}`,
        `-Dkomorium.random=${a.random}`,
        `-Dkomorium.seed=${a.seed}`,
        `-Dkomorium.out=${out}`,
      ];
      const launch = a.main ? ['-cp', cp, a.main] : ['-jar', instrumented];
      // Instrumented methods that grew past HugeMethodLimit would otherwise never be JIT-compiled.
      const jit = ['-XX:-DontCompileHugeMethods'];
      const r = spawnSync(a.java, [...jit, ...a['jvm-arg'], ...props, ...launch, ...a.args.map(String)], { stdio: 'inherit' });
      if (r.error) throw new KomoriumError(`cannot run ${a.java}: ${r.error.message}`);
      const profile = readProfile(out);
      process.stderr.write(`\nkomorium-ts: profile written to ${out}\n`);
      process.stdout.write(renderText(profile, { top: a.top }));
      if (r.status !== 0) process.exitCode = r.status ?? 1;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};
