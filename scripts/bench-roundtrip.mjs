#!/usr/bin/env node
// Issue 2's speed figure: read, decode, encode and write every class (and every method's Code
// attribute) of guava.jar with the class-file layer, in one process; then JaCoCo's offline
// instrumentation of the same jar as a whole process, for the ratio. Not a test: run it on a quiet machine.
//   node scripts/bench-roundtrip.mjs [jar] [runs]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const jar = process.argv[2] ?? '/usr/share/java/guava.jar';
const runs = Number(process.argv[3] ?? 5);
const work = mkdtempSync(join(tmpdir(), 'komorium-roundtrip-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv[4] === '--child') {
  const { readInput, writeJar } = await import(join(root, 'dist/jar/index.js'));
  const { ClassFile } = await import(join(root, 'dist/classfile/classfile.js'));
  const { readCode } = await import(join(root, 'dist/bytecode/code-reader.js'));
  const { writeCode } = await import(join(root, 'dist/bytecode/code-writer.js'));
  const t0 = performance.now();
  const input = await readInput(jar);
  let classes = 0;
  let methods = 0;
  const out = input.entries.map((e) => {
    if (!e.isClass) return e;
    const cf = ClassFile.parse(e.data, e.name);
    for (const m of cf.methods) {
      const i = m.attributes.findIndex((a) => a.name === 'Code');
      if (i < 0) continue;
      m.attributes[i] = writeCode(cf, m, readCode(cf, m, m.attributes[i]));
      methods++;
    }
    classes++;
    return { ...e, data: cf.toBytes() };
  });
  await writeJar(join(work, 'out.jar'), out);
  const ms = performance.now() - t0;
  writeFileSync(process.argv[5], JSON.stringify({ classes, methods, ms }));
  process.exit(0);
}

const jacocoCp = ['org.jacoco.core.jar', 'asm.jar', 'asm-commons.jar', 'asm-tree.jar'].map((j) => `/usr/share/java/${j}`);
if (!jacocoCp.every(existsSync)) {
  console.error('bench-roundtrip: needs Debian libjacoco-java and libasm-java: run bash scripts/install-deps.sh');
  process.exit(2);
}
const driver = join(work, 'JacocoInstrument.java');
writeFileSync(
  driver,
  `import java.io.*;
public class JacocoInstrument {
  public static void main(String[] a) throws Exception {
    org.jacoco.core.instr.Instrumenter ins = new org.jacoco.core.instr.Instrumenter(new org.jacoco.core.runtime.OfflineInstrumentationAccessGenerator());
    try (InputStream in = new BufferedInputStream(new FileInputStream(a[0])); OutputStream out = new BufferedOutputStream(new FileOutputStream(a[1]))) {
      ins.instrumentAll(in, out, a[0]);
    }
  }
}
`,
);
execFileSync('javac', ['-cp', jacocoCp.join(':'), '-d', work, driver]);

function timed(cmd, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const [secs, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { secs, mib: kb / 1024 };
}

const ours = [];
const jacoco = [];
let counts;
for (let i = 0; i < runs; i++) {
  // Interleaved A/B: the machine is shared and noisy.
  const stats = join(work, 'stats.json');
  ours.push(timed(process.execPath, [fileURLToPath(import.meta.url), jar, '1', '--child', stats]));
  counts = JSON.parse(readFileSync(stats, 'utf8'));
  jacoco.push(timed('java', ['-cp', [work, ...jacocoCp].join(':'), 'JacocoInstrument', jar, join(work, 'jacoco.jar')]));
}
const o = median(ours.map((r) => r.secs));
const j = median(jacoco.map((r) => r.secs));
console.log(`${jar}: ${counts.classes} classes, ${counts.methods} methods with code`);
console.log(`komorium-ts read+decode+encode+write (whole process): median ${o.toFixed(2)} s of ${runs}, ` +
  `${Math.round(counts.classes / o)} classes/s, peak ${median(ours.map((r) => r.mib)).toFixed(0)} MiB`);
console.log(`JaCoCo offline instrumentAll (whole process):          median ${j.toFixed(2)} s, peak ${median(jacoco.map((r) => r.mib)).toFixed(0)} MiB`);
console.log(`ratio komorium-ts / JaCoCo: ${(o / j).toFixed(2)}`);
