import { basename, delimiter, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { statSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import type { InstrumentRequest, InstrumentSummary } from '../../instrument/program.js';
import { cacheDisabledByEnv, cacheFolder, cacheKey, lookup, store } from '../../instrument/cache.js';
import { assertSafeOutput } from '../../jar/index.js';
import { UsageError } from '../../errors.js';
import { progressBar } from '../progress.js';
import { CLASSPATH_HELP, classpathElements } from '../classpath.js';
import { javaName } from '../../classfile/names.js';
import { KINDS, parseKinds } from '../../kinds/index.js';
import { LAYOUTS, layoutFor, type LayoutName } from '../../framework/layout/context.js';
import type { Trigger } from '../../framework/probes.js';
import { BURST_TRIGGERS, DEFAULT_BURST_TRIGGER } from '../../framework/burst.js';
import type { InstrumentMode } from '../../instrument/rewrite.js';

interface InstrumentArgs {
  inputs: string[];
  output?: string;
  'output-dir'?: string;
  classpath: string[];
  include: string[];
  exclude: string[];
  checks: 'all' | 'optimized';
  'max-path': number;
  'leaf-opt': boolean;
  callbacks: boolean;
  counter: 'field' | 'local';
  'jit-limit': 'fit' | 'ignore';
  cache: boolean;
  'call-lines': boolean;
  'skip-broken': boolean;
  quiet: boolean;
  'report-json'?: string;
  profile: string[];
  layout?: LayoutName;
  trigger: Trigger | 'burst';
}

/** `--profile`: komorium alone, or kinds built on the framework (which cannot be mixed with komorium in one jar). */
export function instrumentMode(
  args: Pick<InstrumentArgs, 'profile' | 'layout' | 'trigger' | 'checks' | 'max-path' | 'leaf-opt' | 'callbacks' | 'counter'> & Partial<Pick<InstrumentArgs, 'jit-limit' | 'call-lines'>>,
): InstrumentMode {
  const names = args.profile.flatMap((p) => p.split(',')).map((p) => p.trim()).filter((p) => p !== '');
  if (names.length === 0 || (names.length === 1 && names[0] === 'komorium')) {
    return {
      profile: 'komorium',
      options: {
        checks: args.checks,
        maxPath: args['max-path'],
        leafOpt: args['leaf-opt'],
        callbacks: args.callbacks,
        counter: args.counter,
        callLines: args['call-lines'] ?? true,
        jitLimit: args['jit-limit'] ?? 'ignore',
      },
    };
  }
  if (names.includes('komorium')) {
    throw new UsageError(`--profile: komorium rewrites every method's calling convention and cannot be combined with ${names.filter((n) => n !== 'komorium').join(', ')} in one jar; instrument twice`);
  }
  const kinds = parseKinds(names);
  const trigger = args.trigger === 'burst' ? DEFAULT_BURST_TRIGGER : args.trigger;
  return { profile: 'framework', kinds: kinds.map((k) => k.name), layout: layoutFor(kinds, args.layout), trigger };
}

export function defaultOutput(input: string): string {
  let isDir = false;
  try {
    isDir = statSync(input).isDirectory();
  } catch {
    // A missing input is reported by the reader, with its path.
  }
  if (isDir) return input.replace(/\/+$/, '') + '-komorium';
  const ext = extname(input) || '.jar';
  return join(dirname(input), basename(input, ext) + '-komorium' + ext);
}

/** The folder that holds every path (resolved, links not followed). */
function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => dirname(resolve(p)).split(sep));
  const common: string[] = [];
  for (let i = 0; split.every((parts) => i < parts.length && parts[i] === split[0]![i]); i++) common.push(split[0]![i]!);
  return common.join(sep) || sep;
}

/**
 * Each input with its output: `-o` for the only input, or its path under `-d` relative to the
 * folder that holds all inputs, so that relative manifest Class-Paths (`lib/dep.jar`) still
 * resolve. Refuses outputs that would overwrite or land in an input.
 */
export function outputsOf(inputs: readonly string[], output: string | undefined, folder: string | undefined): { input: string; output: string }[] {
  if (output !== undefined && folder !== undefined) throw new UsageError('give either -o (one output) or -d (a folder for the outputs), not both');
  if (inputs.length > 1 && output !== undefined) {
    throw new UsageError(`${inputs.length} inputs are rewritten as one program into a folder: give -d FOLDER instead of -o`);
  }
  if (inputs.length > 1 && folder === undefined) {
    throw new UsageError(`${inputs.length} inputs are rewritten as one program into a folder: give -d FOLDER`);
  }
  const base = commonFolder(inputs);
  const pairs = inputs.map((input) => ({
    input,
    output: folder !== undefined ? join(folder, relative(base, resolve(input))) : (output ?? defaultOutput(input)),
  }));
  const seen = new Map<string, string>();
  for (const p of pairs) {
    const other = seen.get(resolve(p.output));
    if (other !== undefined) throw new UsageError(`${other} and ${p.input} would both be written to ${p.output}`);
    seen.set(resolve(p.output), p.input);
    for (const q of pairs) assertSafeOutput(q.input, p.output, q === p);
  }
  return pairs;
}

/** What crossing HugeMethodLimit means for the user (`komorium-ts run` launches Komorium's profiles only). */
const OVER_JIT_LIMIT = "grew past HotSpot's 8000-byte HugeMethodLimit and will stay interpreted; run with -XX:-DontCompileHugeMethods";

/** The summary's count of methods that crossed HugeMethodLimit, for Komorium and the framework kinds alike. */
function jitLimitLine(s: InstrumentSummary): string {
  return `  JIT limit ${s.overJitLimit.length} methods crossed HotSpot's 8000-byte HugeMethodLimit`;
}

/** One line for a list of methods (none if it is empty): how many, what happened to them, the first five. */
function noteOn(methods: string[], what: string): string[] {
  if (methods.length === 0) return [];
  return [`note: ${methods.length} methods ${what}: ${methods.slice(0, 5).join(', ')}${methods.length > 5 ? ', …' : ''}`];
}

export function formatSummary(s: InstrumentSummary): string {
  if (s.frameworkReports.length > 0) return formatFrameworkSummary(s);
  const t = s.totals;
  const jars = s.units.map((u) => `    ${u.input}: ${u.classes} classes, ${u.rewritten} rewritten${u.output === u.input ? '' : ` -> ${u.output}`}`);
  if (jars.length > 0) jars.unshift(`  jars      ${jars.length}, rewritten as one program (calls between them pass the reified stack)`);
  const lines = [
    `instrumented ${s.input} -> ${s.output}`,
    ...jars,
    `  classes   ${s.classes} (${s.instrumentedClasses} rewritten, ${s.excludedClasses} left alone by --include/--exclude, ${s.skippedClasses.length} broken and copied)`,
    `  methods   ${t.methods} (${t.instrumented} instrumented, ${t.leaf} leaf, ${t.wrappers} wrappers, ${t.reverseWrappers} reverse wrappers, ${t.forwarders} forwarders)`,
    `  inserted  ${t.blocks} blocks, ${t.counters} counters, ${t.checks} granularity checks` +
      (t.checksDropped ? ` (${t.checksDropped} checks not placed in unreachable code)` : ''),
    `  calls     ${t.extendedCalls} pass the reified stack, ${t.callouts} call out to uninstrumented code`,
    `  left as they were: ${s.leftAsIs.length} methods`,
    jitLimitLine(s) +
      (s.compact.length ? ` (${s.compact.length} kept under it by the compact form)` : ''),
  ];
  for (const l of s.leftAsIs) lines.push(`    ${javaName(l.className)}.${l.method}: ${l.reason}`);
  const note = (methods: string[], what: string) => lines.push(...noteOn(methods, what));
  note(s.overJitLimit, `${OVER_JIT_LIMIT} (komorium-ts run does)`);
  note(s.compact, 'would have grown past the HugeMethodLimit and count through TC helper calls instead (same counts)');
  note(s.withoutMaxPath, 'would outgrow 64 KiB with --max-path checks and were instrumented without them');
  note(s.withoutCallLines, "would have grown past the HugeMethodLimit with call lines and show their first line for their calls instead");
  for (const n of s.notes) lines.push(`note: ${n}`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

/** The summary of a framework run: layouts per method, probes, and every fallback with its reason. */
function formatFrameworkSummary(s: InstrumentSummary): string {
  const rs = s.frameworkReports;
  const sum = (f: (r: (typeof rs)[number]) => number) => rs.reduce((n, r) => n + f(r), 0);
  const layouts = LAYOUTS.map((l) => [l, sum((r) => r.layouts[l])] as const).filter(([, n]) => n > 0);
  const fallbacks = rs.flatMap((r) => r.fallbacks.map((f) => ({ ...f, className: r.className })));
  const lines = [
    `instrumented ${s.input} -> ${s.output}`,
    `  classes   ${s.classes} (${s.instrumentedClasses} rewritten, ${s.excludedClasses} left alone by --include/--exclude, ${s.skippedClasses.length} broken and copied)`,
    `  methods   ${s.totals.methods} (${s.totals.instrumented} with probes: ${layouts.map(([l, n]) => `${n} ${l}`).join(', ') || 'none'})`,
    `  inserted  ${sum((r) => r.probes)} probes at ${sum((r) => r.sites)} sites`,
    `  fallbacks ${fallbacks.filter((f) => f.to !== 'none').length} methods got a simpler layout, ${s.leftAsIs.length} were left as they were`,
  ];
  const byReason = new Map<string, typeof fallbacks>();
  for (const f of fallbacks) {
    const k = `${f.from} -> ${f.to}: ${f.reason.replace(/\d+ bytes would grow to \d+/, 'code would grow')}`;
    byReason.set(k, [...(byReason.get(k) ?? []), f]);
  }
  for (const [reason, list] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
    const names = list.slice(0, 3).map((f) => `${javaName(f.className)}.${f.method}`);
    lines.push(`    ${list.length} × ${reason} (${names.join(', ')}${list.length > 3 ? ', …' : ''})`);
  }
  lines.push(jitLimitLine(s) + (s.compact.length ? ` (${s.compact.length} kept under it by probe methods)` : ''));
  lines.push(...noteOn(s.overJitLimit, OVER_JIT_LIMIT));
  lines.push(...noteOn(s.compact, 'would have grown past the HugeMethodLimit and call one small method per probe instead (same probes)'));
  for (const n of s.notes) lines.push(`note: ${n}`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

export const instrumentCommand: CommandModule<object, InstrumentArgs> = {
  command: 'instrument <inputs..>',
  describe: 'Rewrite every class of a jar or class folder (or of all the jars of a program) so that it profiles itself',
  builder: (y: Argv) =>
    y
      .positional('inputs', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: `a jar or a folder of .class files; several (or one list separated by '${delimiter}') are rewritten as one program`,
      })
      .option('output', {
        alias: 'o',
        type: 'string',
        describe: 'output jar or folder of one input; a folder input named x.jar is written as a jar [default: <input>-komorium.jar]',
      })
      .option('output-dir', {
        alias: 'd',
        type: 'string',
        describe: 'folder for the outputs, each at its path relative to the folder that holds all inputs (created if missing)',
      })
      .option('classpath', { alias: 'cp', type: 'string', array: true, default: [], describe: `jars the input needs but that are not rewritten (${CLASSPATH_HELP})` })
      .option('include', { type: 'string', array: true, default: [], describe: 'rewrite only classes matching (com.foo.**, com.foo.*, *Test)' })
      .option('exclude', { type: 'string', array: true, default: [], describe: 'leave classes matching as they are' })
      .option('checks', {
        choices: ['all', 'optimized'] as const,
        default: 'optimized' as const,
        describe: 'where the sampling checks go: every block, or only returns, calls, loop headers and where --max-path needs one',
      })
      .option('max-path', { type: 'number', default: 50, describe: 'split blocks and place checks so no path runs more bytecodes unchecked (0 = off)' })
      .option('leaf-opt', { type: 'boolean', default: true, describe: 'leaf methods push their identifier only when sampled (§5.1); --no-leaf-opt to compare' })
      .option('callbacks', { type: 'boolean', default: true, describe: 'callbacks from uninstrumented code continue the caller\'s calling context' })
      .option('counter', {
        choices: ['local', 'field'] as const,
        default: 'field' as const,
        describe: 'keep the bytecode counter in a local variable (stored at calls and returns), or decrement the thread\'s field in every block as the paper does',
      })
      .option('jit-limit', {
        choices: ['fit', 'ignore'] as const,
        default: 'ignore' as const,
        describe:
          "fit: a method under HotSpot's 8000-byte HugeMethodLimit stays under it (compact counting, else left as it was), so plain java JIT-compiles it; ignore: instrument inline anyway (for java -XX:-DontCompileHugeMethods)",
      })
      .option('cache', {
        type: 'boolean',
        default: true,
        describe:
          'reuse the outputs of an earlier run with the same inputs, options, --classpath, JDK and komorium-ts build, from $XDG_CACHE_HOME/komorium-ts/instrument (default ~/.cache/komorium-ts/instrument); --no-cache (or KOMORIUM_TS_CACHE=0) rewrites',
      })
      .option('call-lines', {
        type: 'boolean',
        default: true,
        describe:
          'call paths show the line of each call, as a stack trace does (a store per call in methods that call from several lines); --no-call-lines shows the called method\'s first line instead and saves those stores',
      })
      .option('profile', {
        type: 'string',
        array: true,
        default: ['komorium'],
        describe: `what the program records: komorium (bytecode sampling, the default), or one or more of ${KINDS.map((k) => k.name).join(', ')} (comma-separated)`,
      })
      .option('layout', {
        choices: LAYOUTS,
        describe:
          'for the framework kinds: full-dup, partial-dup, no-dup (seed 000), or exhaustive (every event: the perfect profile) ' +
          `[default: full-dup]; the kinds that sample on their own (${KINDS.filter((k) => k.sampling === 'own').map((k) => k.name).join(', ')}) run only exhaustive`,
      })
      .option('trigger', {
        choices: ['global', 'thread', 'burst', ...BURST_TRIGGERS] as const,
        default: 'global' as Trigger | 'burst',
        describe:
          'for the framework kinds: one sample counter for all threads (seed 000), one per thread, or bursty tracing (seed 001): ' +
          `burst (= ${DEFAULT_BURST_TRIGGER}), or burst-counter, burst-flag, burst-volatile, burst-indy to choose how a check costs while nothing is sampled`,
      })
      .option('skip-broken', { type: 'boolean', default: false, describe: 'copy classes that do not parse unchanged, with a warning, instead of failing' })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print only warnings' })
      .option('report-json', { type: 'string', describe: 'also write the per-class report as JSON to this file' })
      .example('$0 instrument app.jar', 'writes app-komorium.jar')
      .example('$0 instrument app.jar lib/*.jar -d out', 'one program: writes out/app.jar and out/lib/*.jar')
      .example('$0 instrument app.jar --cp lib/dep.jar', 'dep.jar only resolves types: not rewritten')
      .epilogue(
        'Then run the output with any java 8 or newer (the runtime is inside it); the profile is written at exit:\n' +
          '  java -Dkomorium.out=app.kprof -jar app-komorium.jar\n' +
          '  $0 report app.kprof\n' +
          'The same input and options give the same output bytes.',
      )
      .check((a) => {
        if (!Number.isInteger(a['max-path']) || a['max-path'] < 0) throw new UsageError('--max-path must be a whole number >= 0');
        return true;
      }) as unknown as Argv<InstrumentArgs>,
  handler: async (args) => {
    const mode = instrumentMode(args);
    const pairs = outputsOf(classpathElements(args.inputs), args.output, args['output-dir']);
    const req: InstrumentRequest = {
      input: pairs[0]!.input,
      output: pairs[0]!.output,
      more: pairs.slice(1),
      outputFolder: args['output-dir'],
      classpath: classpathElements(args.classpath),
      include: args.include,
      exclude: args.exclude,
      skipBroken: args['skip-broken'],
      mode,
    };
    const { summary, fromCache } = await instrumentCached(req, args.cache && !cacheDisabledByEnv());
    if (args['report-json']) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(args['report-json'], JSON.stringify(summary, null, 2) + '\n');
    }
    if (args.quiet) {
      for (const w of summary.warnings) process.stderr.write(`warning: ${w}\n`);
    } else {
      process.stdout.write(formatSummary(summary) + '\n');
      if (fromCache) process.stdout.write(`note: copied from the cache ${fromCache} (same inputs, options, JDK and komorium-ts build; --no-cache rewrites)\n`);
    }
  },
};

/** instrumentProgram through the content-hash cache (src/instrument/cache.ts) when `useCache`. */
async function instrumentCached(req: InstrumentRequest, useCache: boolean): Promise<{ summary: InstrumentSummary; fromCache: string | null }> {
  const root = cacheFolder();
  const key = useCache ? cacheKey(req) : null;
  if (key !== null) {
    const found = await lookup(root, key, req).catch((e: Error) => ({ miss: `cache not readable: ${e.message}` }));
    if ('hit' in found) return { summary: found.hit, fromCache: join(root, key) };
    if (found.miss.startsWith('corrupt')) process.stderr.write(`warning: cache ${join(root, key)}: ${found.miss}; rewriting\n`);
  }
  // The rewrite pipeline's modules load only on a miss: a hit is mostly start-up (issue 23).
  const { instrumentProgram } = await import('../../instrument/program.js');
  const bar = progressBar('instrumenting');
  let deps: string[] = [];
  const summary = await instrumentProgram({ ...req, progress: bar?.update, extraClasspath: (p) => (deps = p) });
  bar?.done();
  if (key !== null) {
    await store(root, key, req, summary, deps).catch((e: Error) => {
      // The outputs are written; a cache that cannot be written only costs the next run its speed.
      process.stderr.write(`warning: cache ${root} not written: ${e.message}\n`);
    });
  }
  return { summary, fromCache: null };
}
