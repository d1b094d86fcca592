// The input of the accuracy runs of `bench --subpaths`. The exact mode counts every subpath of 2 to
// 32 blocks at every block (1–2 µs a block on the shared bench machine), so a workload of billions of
// blocks would take hours, as the thesis' full counts did (§4: "more than an hour for FFT", 100 hours
// for JLex at 65,536); on the shared bench machine a JVM gets a tenth of a core. Each workload is
// therefore compared on an input of some tens of millions of blocks, sampled with the same default
// settings: fewer blocks give fewer samples, so the errors measured this way are if anything larger
// than on the timed input.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CACHE } from '../workloads.mjs';

const DIR = join(CACHE, 'inputs', 'subpaths');

function derived(name, make) {
  const p = join(DIR, name);
  if (!existsSync(p)) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(p, make());
  }
  return p;
}

/** The first lodash modules of the npm package, concatenated to `bytes` (parsed, never run). */
function lodashPart(lodashJs, bytes) {
  return derived(`lodash-part-${bytes}.js`, () => {
    const dir = dirname(lodashJs);
    let out = '';
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.js') && x !== 'lodash.js').sort()) {
      if (out.length >= bytes) break;
      out += readFileSync(join(dir, f), 'utf8') + '\n';
    }
    return out;
  });
}

/** The first `share` of the <mime-type> elements of freedesktop.org.xml, still a valid document. */
function mimePart(xml, share) {
  return derived(`freedesktop-part-${share}.xml`, () => {
    const text = readFileSync(xml, 'utf8');
    const close = '</mime-type>';
    const end = text.indexOf(close, Math.floor(text.length * share)) + close.length;
    return `${text.slice(0, end)}\n</mime-info>\n`;
  });
}

export function accuracySpec(id, spec) {
  const replaceArg = (from, to) => spec.args.map((a) => (a === from ? to : a));
  switch (id) {
    case 'jflex': {
      const flex = '/usr/share/doc/jflex/examples/interpreter/scanner.flex';
      return { spec: { ...spec, args: ['--nobak', '-d', 'out', flex] }, note: 'examples/interpreter/scanner.flex (timed: java.flex 16 times)' };
    }
    case 'ecj': {
      const opts = spec.args.filter((a) => !a.endsWith('.java'));
      const files = spec.args.filter((a) => a.endsWith('.java'));
      return { spec: { ...spec, args: [...opts, ...files.slice(0, 6)] }, note: `the first 6 of the ${files.length} java.util sources (timed: all)` };
    }
    case 'rhino': {
      const lodash = spec.args[spec.args.length - 1];
      return { spec: { ...spec, args: replaceArg(lodash, lodashPart(lodash, 15_000)) }, note: 'esprima parsing 15 KB of lodash modules (timed: lodash.js, 540 KB)' };
    }
    case 'xalan': {
      const xml = spec.args[spec.args.indexOf('-IN') + 1];
      return { spec: { ...spec, args: replaceArg(xml, mimePart(xml, 0.025)) }, note: 'the first 2.5% of freedesktop.org.xml (timed: all of it)' };
    }
    case 'h2': {
      const sql = spec.args[spec.args.indexOf('-script') + 1];
      const small = derived('h2-workload-40th.sql', () => readFileSync(sql, 'utf8').replaceAll('50000', '1250').replaceAll('20000', '500'));
      return { spec: { ...spec, args: replaceArg(sql, small) }, note: 'the SQL workload with a 40th of the orders and parts (timed: all)' };
    }
    case 'sunflow': {
      const scene = spec.args[0];
      // The photon map and the light sets are built whatever the resolution: 48×36 still ran 266 million blocks.
      const small = derived('sunflow-scene-32x24.sc', () =>
        readFileSync(scene, 'utf8').replace('resolution 320 240', 'resolution 32 24').replace('caustics 200000', 'caustics 20000').replace(/samples 32$/m, 'samples 8'),
      );
      return { spec: { ...spec, args: replaceArg(scene, small) }, note: 'the scene at 32×24 with 20,000 caustic photons and 8 IGI samples (timed: 320×240, 200,000, 32)' };
    }
    default:
      return { spec, note: 'the same as the timed runs' };
  }
}
