/**
 * `komorium-ts inspect`: a javap-like view of what komorium-ts sees — instructions, Komorium's
 * basic blocks (seed 002 §4.2) and stack map frames — for debugging, tests and users.
 */
import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { ClassFile } from '../../classfile/classfile.js';
import { readInput } from '../../jar/index.js';
import { computeBlocks } from '../../analysis/blocks.js';
import { listClass } from '../../inspect/listing.js';
import { KomoriumError } from '../../errors.js';
import type { MemberInfo } from '../../classfile/model.js';
import { extendDescriptor, extendedName } from '../../kinds/komorium/runtime-names.js';
import { javaName } from '../../classfile/names.js';

interface InspectArgs {
  input: string;
  class?: string;
  method?: string;
  frames: boolean;
  'debug-tables': boolean;
  'max-path': number;
}

export const inspectCommand: CommandModule<object, InspectArgs> = {
  command: 'inspect <input> [class]',
  describe: 'List classes, or one class with its instructions, basic blocks and frames',
  builder: (y: Argv) =>
    y
      .positional('input', { type: 'string', demandOption: true, describe: 'a jar, a class folder, or a .class file' })
      .positional('class', { type: 'string', describe: 'class to list (com.foo.Bar or com/foo/Bar)' })
      .option('method', { alias: 'm', type: 'string', describe: 'only methods with this name (or name+descriptor)' })
      .option('frames', { type: 'boolean', default: true, describe: 'show stack map frames (--no-frames to hide)' })
      .option('debug-tables', { type: 'boolean', default: true, describe: 'show line number and local variable tables' })
      .option('max-path', { type: 'number', default: 0, describe: 'show blocks split at MaxPath, as instrument does' })
      .example('$0 inspect app.jar', 'list the classes')
      .example('$0 inspect app.jar com.foo.Bar -m baz', 'instructions, blocks and frames of Bar.baz') as unknown as Argv<InspectArgs>,
  handler: async (a) => {
    const classes: { entry: string; data: Uint8Array }[] = [];
    if (a.input.endsWith('.class')) {
      let data: Uint8Array;
      try {
        data = readFileSync(a.input);
      } catch (e) {
        throw new KomoriumError(`${a.input}: cannot read: ${(e as Error).message}`);
      }
      classes.push({ entry: a.input, data });
    } else {
      for (const e of (await readInput(a.input)).entries) if (e.isClass) classes.push({ entry: e.name, data: e.data });
    }
    if (!a.class && !a.input.endsWith('.class')) {
      for (const c of classes) {
        const cf = ClassFile.parse(c.data, c.entry);
        process.stdout.write(
          `${javaName(cf.thisClass)}  (${c.entry}, version ${cf.major}.${cf.minor}, ${cf.methods.length} methods, ${cf.fields.length} fields)\n`,
        );
      }
      return;
    }
    const wanted = a.class?.replace(/\./g, '/');
    const match = classes.find((c) => !wanted || c.entry === `${wanted}.class` || c.entry.endsWith(`/${wanted}.class`));
    const cf = match ? ClassFile.parse(match.data, match.entry) : null;
    if (!cf || (wanted && cf.thisClass !== wanted)) {
      throw new KomoriumError(`${a.input}: no class ${a.class}`);
    }
    const select = a.method === undefined ? undefined : methodSelection(cf, a.method, a.input);
    if (select?.note) process.stdout.write(`// ${select.note}\n`);
    process.stdout.write(
      listClass(cf, {
        blocks: (code) => computeBlocks(code, { maxPath: a['max-path'] }),
        methods: select?.accepts,
        frames: a.frames,
        debugTables: a['debug-tables'],
      }),
    );
  },
};

/**
 * The methods `-m name` (or `-m name(desc)`) lists. In an instrumented class the method of that
 * name is the wrapper, and its instrumented body is `name$komorium` with three more arguments:
 * both are listed, with a note saying which is which. No match is bad input.
 */
function methodSelection(cf: ClassFile, wanted: string, input: string): { accepts: (m: MemberInfo) => boolean; note?: string } {
  const paren = wanted.indexOf('(');
  const name = paren < 0 ? wanted : wanted.slice(0, paren);
  const desc = paren < 0 ? undefined : wanted.slice(paren);
  const plain = (m: MemberInfo) => m.name === name && (desc === undefined || m.desc === desc);
  const extended = (m: MemberInfo) =>
    name !== extendedName(name) && m.name === extendedName(name) && (desc === undefined || m.desc === extendDescriptor(desc));
  const found = cf.methods.filter(plain);
  const className = javaName(cf.thisClass);
  if (found.length === 0) {
    const names = [...new Set(cf.methods.map((m) => m.name))];
    throw new KomoriumError(
      `${input}: class ${className} has no method ${wanted} (it has ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''})`,
    );
  }
  const bodies = cf.methods.filter(extended);
  if (bodies.length === 0) return { accepts: plain };
  const listed = bodies.map((m) => `${m.name}${m.desc}`).join(', ');
  return {
    accepts: (m) => plain(m) || extended(m),
    note: `${className} is instrumented: ${name} is the wrapper that keeps its signature; its instrumented body is ${listed}, listed below it`,
  };
}
