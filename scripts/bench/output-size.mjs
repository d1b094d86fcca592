#!/usr/bin/env node
// What `instrument` writes, part by part, beside the input and JaCoCo's offline output of the same
// jar (issue 23, target 4: how much of `instrument`'s time is the amount it writes). Every class
// file is walked by hand (JVMS 4.1, 4.4, 4.7), not through src/, so the count does not depend on
// the code it measures.
//
//   node scripts/bench/output-size.mjs [JAR]... [--markdown]
//
// JAR defaults to guava, ecj and Rhino. Each is instrumented with the built CLI (default options,
// --no-cache) and with JaCoCo (scripts/bench/java/JacocoInstrument.java) into a temporary folder.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JACOCO_OFFLINE_RUNTIME, driversDir, jacocoRuntimeClasspath, javaBin } from './workloads.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { readZip } = await import(join(REPO, 'dist/jar/zip.js'));

const args = process.argv.slice(2);
const markdown = args.includes('--markdown');
const jars = args.filter((a) => !a.startsWith('--'));
if (jars.length === 0) jars.push(...['guava', 'ecj', 'js'].map((j) => `/usr/share/java/${j}.jar`));

/** Byte counts of one jar's classes, by part. */
function emptyParts() {
  return { classes: 0, total: 0, pool: 0, utf8: 0, methodTables: 0, fields: 0, methods: 0, code: 0, extendedCode: 0, frames: 0, debug: 0, other: 0 };
}

const u2 = (b, p) => (b[p] << 8) | b[p + 1];
const u4 = (b, p) => ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
// Bytes after the tag of each fixed-size constant (JVMS 4.4), by tag; Utf8 (1) is sized by its length.
const FIXED = { 3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2 };
const latin = new TextDecoder('latin1');

function countClass(b, parts) {
  parts.classes++;
  parts.total += b.length;
  const count = u2(b, 8);
  const utf8 = new Array(count);
  let p = 10;
  for (let i = 1; i < count; i++) {
    const tag = b[p];
    if (tag === 1) {
      const len = u2(b, p + 1);
      utf8[i] = latin.decode(b.subarray(p + 3, p + 3 + len));
      parts.utf8 += 3 + len;
      // Komorium's method tables (MID.forClass, Sites.forClass): "name TAB descriptor TAB line NEWLINE"….
      if (utf8[i].includes('\t') && utf8[i].includes('\n')) parts.methodTables += 3 + len;
      p += 3 + len;
    } else {
      if (FIXED[tag] === undefined) throw new Error(`constant pool tag ${tag} at ${p}`);
      p += 1 + FIXED[tag];
      if (tag === 5 || tag === 6) i++;
    }
  }
  parts.pool += p - 10;
  p += 6;
  p += 2 + 2 * u2(b, p);
  const skipAttributes = (q) => {
    let n = u2(b, q);
    q += 2;
    while (n-- > 0) q += 6 + u4(b, q + 2);
    return q;
  };
  const fieldsAt = p;
  let n = u2(b, p);
  p += 2;
  while (n-- > 0) p = skipAttributes(p + 6);
  parts.fields += p - fieldsAt;
  const methodsAt = p;
  n = u2(b, p);
  p += 2;
  while (n-- > 0) {
    const extended = utf8[u2(b, p + 2)].endsWith('$komorium');
    let a = u2(b, p + 6);
    p += 8;
    while (a-- > 0) {
      const len = u4(b, p + 2);
      if (utf8[u2(b, p)] === 'Code') countCode(b, p + 6, len, utf8, extended, parts);
      p += 6 + len;
    }
  }
  parts.methods += p - methodsAt;
}

function countCode(b, at, len, utf8, extended, parts) {
  const codeLength = u4(b, at + 4);
  parts.code += codeLength;
  if (extended) parts.extendedCode += codeLength;
  let q = at + 8 + codeLength;
  q += 2 + 8 * u2(b, q);
  let n = u2(b, q);
  q += 2;
  while (n-- > 0) {
    const name = utf8[u2(b, q)];
    const size = 6 + u4(b, q + 2);
    if (name === 'StackMapTable') parts.frames += size;
    else if (/^(LineNumberTable|LocalVariableTable|LocalVariableTypeTable)$/.test(name)) parts.debug += size;
    else parts.other += size;
    q += size;
  }
}

function measure(jar) {
  const parts = emptyParts();
  for (const e of readZip(jar, readFileSync(jar))) if (e.name.endsWith('.class') && !e.name.startsWith('komorium/')) countClass(e.data, parts);
  return parts;
}

function run(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
}

const work = mkdtempSync(join(tmpdir(), 'output-size-'));
const MB = (x) => (x / 1e6).toFixed(2);
try {
  const drivers = driversDir();
  for (const jar of jars) {
    const name = basename(jar, '.jar');
    const kom = join(work, `${name}-komorium.jar`);
    const jac = join(work, `${name}-jacoco.jar`);
    run(process.execPath, [join(REPO, 'bin/komorium-ts.js'), 'instrument', jar, '-o', kom, '--no-cache', '-q']);
    run(javaBin(), [`-Djacoco.offline.runtime=${JACOCO_OFFLINE_RUNTIME}`, '-cp', [drivers, ...jacocoRuntimeClasspath()].join(':'), 'JacocoInstrument', jar, jac]);
    const rows = [['input', measure(jar)], ['JaCoCo', measure(jac)], ['komorium-ts', measure(kom)]];
    const input = rows[0][1].total;
    const keys = Object.keys(emptyParts()).filter((k) => k !== 'classes');
    if (markdown) {
      console.log(`\n${name}.jar, MB of class files (the runtime's own classes left out)\n`);
      console.log(`| | classes | ${keys.join(' | ')} | × input |`);
      console.log(`| --- | ---: | ${keys.map(() => '---:').join(' | ')} | ---: |`);
      for (const [label, p] of rows) console.log(`| ${label} | ${p.classes} | ${keys.map((k) => MB(p[k])).join(' | ')} | ${(p.total / input).toFixed(2)}× |`);
    } else {
      console.log(`\n${name}.jar (MB)`);
      for (const [label, p] of rows) console.log(`${label.padEnd(12)} classes ${p.classes} ${keys.map((k) => `${k} ${MB(p[k])}`).join(', ')}  (${(p.total / input).toFixed(2)}× input)`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
