import type { Argv, CommandModule } from 'yargs';
import { join } from 'node:path';
import { compareTests, readTests, renderComparison, saveBaseline, checkBaselineName } from '../../report/baseline.js';
import { formatInt } from '../../report/names.js';
import { parsePercent } from '../../report/output.js';
import { KomoriumError } from '../../errors.js';

interface BaselineArgs {
  action: 'save' | 'compare';
  name: string;
  tests: string;
  store: string;
  limit: string;
}

export const baselineCommand: CommandModule<object, BaselineArgs> = {
  command: 'baseline <action> <name>',
  describe: 'Per-test bytecode counts: save a run\'s per-test profiles under a name, or compare a run with them (exit 1 when a test grew past --limit)',
  builder: (y: Argv) =>
    y
      .positional('action', { choices: ['save', 'compare'] as const, demandOption: true, describe: 'save: keep this run as the baseline; compare: check this run against it' })
      .positional('name', { type: 'string', demandOption: true, describe: 'the baseline\'s name, e.g. main' })
      .option('tests', { type: 'string', default: 'komorium-tests', describe: 'the folder the test JVM wrote with -Dkomorium.tests (one .kprof per test)' })
      .option('store', { type: 'string', default: join('.komorium', 'baselines'), describe: 'where baselines are kept, one folder per name' })
      .option('limit', { type: 'string', default: '5%', describe: 'compare: a test whose bytecodes grew more than this fails' })
      .example('$0 baseline save main --tests target/komorium-tests', 'on the main branch')
      .example('$0 baseline compare main --tests target/komorium-tests --limit 2%', 'on a pull request: which tests grew, and the method that grew most in each')
      .epilogue(
        'Per-test profiles: run the tests on the instrumented jar with -Dkomorium.tests=DIR; the runtime\'s JUnit Platform ' +
          'listener counts each test\'s bytecodes exactly (the exact agent), so the same code gives the same counts on every run and machine.',
      ) as unknown as Argv<BaselineArgs>,
  handler: (args) => {
    checkBaselineName(args.name);
    const limit = parsePercent(args.limit, '--limit', { min: 0 });
    if (args.action === 'save') {
      const tests = saveBaseline(args.name, args.tests, args.store);
      const total = [...tests.values()].reduce((s, t) => s + t.bytecodes, 0);
      process.stdout.write(`saved baseline ${args.name}: ${tests.size} tests, ${formatInt(total)} bytecodes, in ${join(args.store, args.name)}\n`);
      return;
    }
    const dir = join(args.store, args.name);
    let base;
    try {
      base = readTests(dir);
    } catch (e) {
      if (e instanceof KomoriumError) throw new KomoriumError(`baseline ${args.name}: ${e.message} (save it first: komorium-ts baseline save ${args.name})`);
      throw e;
    }
    const changes = compareTests(base, readTests(args.tests), limit);
    process.stdout.write(renderComparison(args.name, args.tests, changes, limit));
    if (changes.some((c) => c.regressed)) process.exitCode = 1;
  },
};
