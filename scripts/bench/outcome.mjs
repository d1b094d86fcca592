// What a benchmark run is compared on, against the uninstrumented run: exit code, stdout, stderr
// and every file it wrote in its working folder, byte for byte.
import { collectFiles } from './util.mjs';

/** The outcome a run is compared on: exit code, stdout, stderr, every file it wrote in its cwd. */
export function outcomeOf(r, cwd) {
  // JFR announces its recording on stdout through unified logging, and the komorium runtime reports
  // on stderr (e.g. that komorium.maxContexts was reached, even with komorium.quiet=true): that is
  // the tool, not the program. Such lines are set aside (and reported), not compared.
  const toolMessages = [];
  const strip = (b) =>
    Buffer.from(
      b.toString('latin1').replace(/^(\[[\d.]+s\]\[info\]\[jfr,startup\].*|komorium: .*)\n/gm, (line) => {
        if (line.startsWith('komorium: ')) toolMessages.push(Buffer.from(line.trim(), 'latin1').toString('utf8'));
        return '';
      }),
      'latin1',
    );
  return { code: r.code, stdout: strip(r.stdout), stderr: strip(r.stderr), files: collectFiles(cwd), toolMessages };
}

export function compareOutcome(ref, got) {
  const diffs = [];
  if (ref.code !== got.code) diffs.push(`exit code ${got.code} instead of ${ref.code}`);
  if (!ref.stdout.equals(got.stdout)) diffs.push(`stdout differs (${got.stdout.length} bytes vs ${ref.stdout.length})`);
  if (!ref.stderr.equals(got.stderr)) {
    const tail = got.stderr.toString('utf8').trim().split('\n').slice(-3).join(' | ');
    diffs.push(`stderr differs (${got.stderr.length} bytes vs ${ref.stderr.length}): …${tail.slice(-300)}`);
  }
  const names = new Set([...ref.files.keys(), ...got.files.keys()]);
  for (const n of names) {
    const a = ref.files.get(n);
    const b = got.files.get(n);
    if (!a) diffs.push(`extra file ${n}`);
    else if (!b) diffs.push(`missing file ${n}`);
    else if (!a.equals(b)) diffs.push(`file ${n} differs`);
  }
  return diffs;
}
