/**
 * `komorium-ts instrument-jdk [--java-home DIR]`: rewrites the JDK's java.base into a cache folder
 * (src/jdk/instrument-jdk.ts) and prints the java argument file that runs a program with it.
 */
import type { Argv, CommandModule } from 'yargs';
import { KomoriumError } from '../../errors.js';
import { findJavaHome } from '../../hierarchy/jdk.js';
import { instrumentJdk, type JdkSummary } from '../../jdk/instrument-jdk.js';

interface InstrumentJdkArgs {
  'java-home'?: string;
}

/** The java home asked for, else the JDK that runs programs (JAVA_HOME, else java on PATH). */
export function javaHomeOf(given: string | undefined): string {
  if (given !== undefined) return given;
  const home = findJavaHome();
  if (home === null) throw new KomoriumError('no JDK found: set JAVA_HOME, put java on the PATH, or give --java-home');
  return home;
}

export function describeJdk(s: JdkSummary, seconds: number): string {
  const what = s.reused
    ? `reused ${s.dir} (the cache of this JDK build and komorium-ts build)`
    : `instrumented java.base of ${s.javaHome} (JDK ${s.version}) in ${seconds.toFixed(1)} s: ${s.instrumented} classes rewritten, ${s.excluded} left as they are (README, "Counting the JDK's bytecodes"), ${s.keptMethods} methods kept as they are, ${s.steadied.length} edited to run alike in every run (${s.steadied.join(', ')})`;
  return `${what}\nrun with: java @${s.argsFile} -jar app-komorium.jar\n`;
}

export const instrumentJdkCommand: CommandModule<object, InstrumentJdkArgs> = {
  command: 'instrument-jdk',
  describe: "Rewrite the JDK's java.base so that profiles count the bytecodes it runs (java @<cache>/komorium-jdk.args)",
  builder: (y: Argv) =>
    y
      .option('java-home', { type: 'string', describe: 'the JDK to instrument [default: JAVA_HOME, else the java on PATH]' })
      .example('$0 instrument-jdk', 'prints the argument file: java @…/komorium-jdk.args -jar app-komorium.jar') as unknown as Argv<InstrumentJdkArgs>,
  handler: async (a) => {
    const start = process.hrtime.bigint();
    const s = await instrumentJdk({ javaHome: javaHomeOf(a['java-home']) });
    for (const w of s.reused ? [] : s.warnings) process.stderr.write(`warning: ${w}\n`);
    process.stdout.write(describeJdk(s, Number(process.hrtime.bigint() - start) / 1e9));
  },
};
