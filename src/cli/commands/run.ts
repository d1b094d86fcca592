/**
 * `komorium-ts run app.jar -- args`: instrument, run with a plain `java`, and print where the
 * bytecodes went — the whole loop in one command, like a profiler's launcher.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, extname, join, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { instrumentProgram } from '../../instrument/program.js';
import { readProfile } from '../../profile/read.js';
import type { Profile } from '../../profile/model.js';
import { renderText } from '../../report/text.js';
import { KomoriumError } from '../../errors.js';
import { CLASSPATH_HELP, classpathElements } from '../classpath.js';
import { instrumentJdk } from '../../jdk/instrument-jdk.js';
import { describeJdk, javaHomeOf } from './instrument-jdk.js';

interface RunArgs {
  jar: string;
  args: string[];
  /** The words after `--`: the program's, even those that start with a dash. */
  '--'?: string[];
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
  jdk: boolean;
  'java-home'?: string;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <jar> [args..]',
  describe: 'Instrument a jar, run it with java, and print its hottest methods and call paths',
  builder: (y: Argv) =>
    y
      .positional('jar', { type: 'string', demandOption: true, describe: 'the application jar (java -jar), or a jar with --main' })
      .parserConfiguration({ 'populate--': true })
      .positional('args', { type: 'string', array: true, default: [], describe: 'arguments for the program; put them after -- when one starts with a dash' })
      .option('main', { type: 'string', describe: 'main class; runs java -cp <jar> <main> instead of java -jar' })
      .option('out', { alias: 'o', type: 'string', describe: 'profile file [default: <jar name>.kprof]' })
      .option('agent', {
        type: 'string',
        default: 'sampling',
        describe: 'sampling, exact, none (counts bytecodes, writes no profile: the overhead floor), or an agent class name',
      })
      .option('granularity', { alias: 'g', type: 'number', default: 10000, describe: 'bytecodes between samples' })
      .option('random', { type: 'number', default: 100, describe: 'randomize the granularity by 0 <= r < R (0: constant)' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the per-thread random generators' })
      .option('jvm-arg', { type: 'string', array: true, default: [], describe: 'extra JVM option, repeatable' })
      .option('java', { type: 'string', default: 'java', describe: 'the java launcher to run' })
      .option('top', { type: 'number', default: 15, describe: 'rows in the printed report' })
      .option('classpath', { alias: 'cp', type: 'string', array: true, default: [], describe: `jars the application needs, not rewritten (${CLASSPATH_HELP})` })
      .option('include', { type: 'string', array: true, default: [], describe: 'rewrite only classes matching (as for instrument)' })
      .option('exclude', { type: 'string', array: true, default: [], describe: 'leave classes matching as they are (as for instrument)' })
      .option('checks', { choices: ['all', 'optimized'] as const, default: 'optimized' as const, describe: 'as for instrument' })
      .option('max-path', { type: 'number', default: 50, describe: 'as for instrument' })
      .option('call-lines', { type: 'boolean', default: true, describe: 'as for instrument; --no-call-lines to leave them out' })
      .option('jdk', {
        type: 'boolean',
        default: false,
        describe: "count the JDK's bytecodes too: runs on java.base instrumented by instrument-jdk (made on first use, then cached)",
      })
      .option('java-home', { type: 'string', describe: 'with --jdk: the JDK to instrument and run [default: JAVA_HOME, else the java on PATH]' })
      .example('$0 run app.jar -- input.txt', 'profile app.jar on input.txt; writes app.kprof')
      .example('$0 run app.jar --agent exact -- -v --out x.txt', 'everything after -- goes to the program') as unknown as Argv<RunArgs>,
  handler: async (a) => {
    const outOption = resolve(a.out ?? basename(a.jar, extname(a.jar)) + '.kprof');
    // As for every command's output: the folder must exist (checked now, before minutes of work).
    if (!statSync(dirname(outOption), { throwIfNoEntry: false })?.isDirectory()) {
      throw new KomoriumError(`cannot write ${outOption}: the folder ${dirname(outOption)} does not exist`);
    }
    // --jdk: java.base instrumented first (or from its cache), so that a bad JDK fails before the program is rewritten.
    let jdkArgs: string[] = [];
    let java = a.java;
    if (a.jdk) {
      const home = javaHomeOf(a['java-home']);
      const start = process.hrtime.bigint();
      const s = await instrumentJdk({ javaHome: home });
      process.stderr.write(`komorium-ts: ${describeJdk(s, Number(process.hrtime.bigint() - start) / 1e9).split('\n')[0]}\n`);
      jdkArgs = [`@${s.argsFile}`];
      if (a['java-home'] !== undefined) java = join(home, 'bin', 'java');
    }
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
        mode: {
          profile: 'komorium',
          options: { checks: a.checks, maxPath: a['max-path'], leafOpt: true, callbacks: true, counter: 'field', callLines: a['call-lines'], jitLimit: 'ignore', ...(a.jdk ? { countedJdk: true } : {}) },
        },
      });
      const cp = [instrumented, ...classpath].join(delimiter);
      // A profile left by an earlier run must not pass for this run's: the nonce comes back in
      // the profile's header (the runtime lists every komorium.* property there).
      const nonce = randomBytes(8).toString('hex');
      const props = [
        `-Dkomorium.agent=${a.agent}`,
        `-Dkomorium.granularity=${a.granularity}`,
        `-Dkomorium.random=${a.random}`,
        `-Dkomorium.seed=${a.seed}`,
        `-Dkomorium.out=${outOption}`,
        `-Dkomorium.run=${nonce}`,
      ];
      const launch = a.main ? ['-cp', cp, a.main] : ['-jar', instrumented];
      // Instrumented methods that grew past HugeMethodLimit (jitLimit 'ignore' above) would otherwise never be JIT-compiled.
      const jit = ['-XX:-DontCompileHugeMethods'];
      const programArgs = [...a.args, ...(a['--'] ?? [])].map(String);
      const r = spawnSync(java, [...jit, ...jdkArgs, ...a['jvm-arg'], ...props, ...launch, ...programArgs], { stdio: 'inherit' });
      if (r.error) throw new KomoriumError(`cannot run ${java}: ${r.error.message}`);
      const programExit = r.status ?? 1;
      if (a.agent === 'none') {
        process.stderr.write('\nkomorium-ts: --agent none counts bytecodes but writes no profile\n');
        process.exitCode = programExit;
        return;
      }
      const out = outOption.replace(/%p/g, String(r.pid));
      const profile = thisRunsProfile(out, nonce, r.signal);
      process.stderr.write(`\nkomorium-ts: profile written to ${out}\n`);
      process.stdout.write(renderText(profile, { top: a.top }));
      if (programExit !== 0) process.exitCode = programExit;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};

/** The profile at `out` if this run (`nonce`) wrote it; otherwise a KomoriumError saying why there is none. */
function thisRunsProfile(out: string, nonce: string, signal: NodeJS.Signals | null): Profile {
  const why = signal ? `the JVM was killed by ${signal}` : 'the agent did not start or did not write one (see the messages above)';
  if (!existsSync(out)) throw new KomoriumError(`no profile was written: ${why}`);
  const profile = readProfile(out);
  const options = profile.headers.find((h) => h.key === 'options')?.value ?? '';
  if (!options.split(' ').includes(`komorium.run=${nonce}`)) {
    throw new KomoriumError(`no profile was written: ${why}; ${out} is from an earlier run and was left as it was`);
  }
  return profile;
}
