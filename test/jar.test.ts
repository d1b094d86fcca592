import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClassFile } from '../src/classfile/classfile.js';
import { KomoriumError, UsageError } from '../src/errors.js';
import {
  assertSafeOutput, FIXED_DATE, isClassName, isSigned, jarBytes, readInput, stripManifestDigests, stripSignature,
  writeDir, writeError, writeJar,
} from '../src/jar/index.js';
import type { Entry } from '../src/jar/index.js';
import { writeZip } from '../src/jar/zip.js';
import { debianJar, javaBin, listZipEntries } from './support/corpus.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'komorium-jar-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(name: string, text: string): Entry {
  return { name, data: new TextEncoder().encode(text), isClass: isClassName(name), isDirectory: false, date: new Date() };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

/** Files of a folder other than the ones named, to catch stray temporary files. */
function strays(dir: string, expected: string[]): string[] {
  return readdirSync(dir).filter((n) => !expected.includes(n));
}

describe('entries', () => {
  it('marks classes, including multi-release ones, but not module-info', () => {
    expect(isClassName('a/B.class')).toBe(true);
    expect(isClassName('META-INF/versions/11/a/B.class')).toBe(true);
    expect(isClassName('module-info.class')).toBe(false);
    expect(isClassName('META-INF/versions/9/module-info.class')).toBe(false);
    expect(isClassName('a/B.class/')).toBe(false);
    expect(isClassName('a/B.java')).toBe(false);
  });
});

describe('jar input and output', () => {
  it('reads a jar in central directory order and writes it back with every entry byte-identical', async () => {
    const jar = debianJar('jflex');
    const input = await readInput(jar);
    expect(input.kind).toBe('jar');
    expect(input.entries.map((e) => e.name)).toEqual(listZipEntries(jar));
    const classes = input.entries.filter((e) => e.isClass).length;
    const others = input.entries.filter((e) => !e.isClass && !e.isDirectory).length;
    console.log(`jflex.jar: ${input.entries.length} entries, ${classes} classes, ${others} other files`);
    expect(classes).toBeGreaterThan(50);
    expect(others).toBeGreaterThan(0);

    const out = join(tmp, 'jflex-copy.jar');
    await writeJar(out, input.entries);
    const again = await readInput(out);
    expect(again.entries.map((e) => e.name)).toEqual(input.entries.map((e) => e.name));
    expect(listZipEntries(out)).toEqual(listZipEntries(jar));
    for (let i = 0; i < input.entries.length; i++) {
      expect(sameBytes(again.entries[i].data, input.entries[i].data), input.entries[i].name).toBe(true);
      // The times the jar recorded are kept (Clojure compares a namespace's class with its source's).
      expect(again.entries[i].date?.getTime(), input.entries[i].name).toBe(input.entries[i].date?.getTime());
    }
    const manifest = (es: Entry[]) => es.find((e) => e.name === 'META-INF/MANIFEST.MF')!.data;
    expect(sameBytes(manifest(again.entries), manifest(input.entries))).toBe(true);
    expect(strays(tmp, ['jflex-copy.jar'])).toEqual([]);

    // The manifest's Main-Class and Class-Path (cup.jar) still work.
    const r = spawnSync(javaBin('java'), ['-jar', out, '--version'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stdout).toContain('This is JFlex');
  });

  it('drops repeated folders and identical repeated files, and refuses a name repeated with other bytes', async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    const zip = (entries: { name: string; data: Uint8Array; isDirectory: boolean }[], name: string) => {
      const path = join(tmp, name);
      writeFileSync(path, writeZip(entries, FIXED_DATE));
      return path;
    };
    const dir = (name: string) => ({ name, data: new Uint8Array(0), isDirectory: true });
    const f = (name: string, text: string) => ({ name, data: enc(text), isDirectory: false });
    const merged = zip([dir('com/'), f('com/a.txt', 'a'), dir('com/'), f('com/a.txt', 'a'), f('com/b.txt', 'b')], 'repeats.jar');
    expect((await readInput(merged)).entries.map((e) => e.name)).toEqual(['com/', 'com/a.txt', 'com/b.txt']);
    const clash = zip([f('com/a.txt', 'a'), f('com/a.txt', 'other')], 'clash.jar');
    await expect(readInput(clash)).rejects.toThrow(`${clash}: two entries named com/a.txt with different contents`);
  });

  it('gives the same bytes for the same entries, in any time zone', async () => {
    const input = await readInput(debianJar('asm'));
    const saved = process.env.TZ;
    const bytesIn = async (tz: string): Promise<Uint8Array> => {
      process.env.TZ = tz;
      // A fresh copy of the module, so that anything it computes at load time sees this zone too.
      vi.resetModules();
      const fresh = await import('../src/jar/write.js');
      return fresh.jarBytes(input.entries);
    };
    try {
      const utc = await bytesIn('UTC');
      expect(new Date(0).getTimezoneOffset()).toBe(0);
      const tokyo = await bytesIn('Asia/Tokyo');
      expect(new Date(0).getTimezoneOffset()).toBe(-540); // the switch took effect
      const la = await bytesIn('America/Los_Angeles');
      expect(sameBytes(utc, await jarBytes(input.entries))).toBe(true);
      expect(sameBytes(utc, tokyo)).toBe(true);
      expect(sameBytes(utc, la)).toBe(true);
      // DOS time and date of the first local header: the ones asm.jar recorded for its first entry.
      const original = readFileSync(debianJar('asm'));
      expect(original.readUInt32LE(0)).toBe(0x04034b50);
      expect(Buffer.from(utc).readUInt16LE(10)).toBe(original.readUInt16LE(10));
      expect(Buffer.from(utc).readUInt16LE(12)).toBe(original.readUInt16LE(12));
      // An entry with no time of its own (added, or read from a folder) gets 00:00:00, 1980-02-01.
      const added = await jarBytes([{ name: 'a.txt', data: new Uint8Array([1]), isClass: false }]);
      expect(Buffer.from(added).readUInt16LE(10)).toBe(0);
      expect(Buffer.from(added).readUInt16LE(12)).toBe((2 << 5) | 1);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
      vi.resetModules();
    }
  });

  it('keeps the order of names JavaScript objects would reorder ("10" before "b")', async () => {
    const entries = [file('b.txt', 'b'), file('10', 'ten'), { ...file('dir/', ''), isDirectory: true }, file('2', 'two'), file('a.txt', 'a')];
    entries[0].comment = 'a comment';
    const out = join(tmp, 'numeric.jar');
    await writeJar(out, entries);
    expect(listZipEntries(out)).toEqual(['b.txt', '10', 'dir/', '2', 'a.txt']);
    const back = await readInput(out);
    expect(back.entries.map((e) => e.name)).toEqual(['b.txt', '10', 'dir/', '2', 'a.txt']);
    expect(new TextDecoder().decode(back.entries[1].data)).toBe('ten');
    expect(back.entries[2].isDirectory).toBe(true);
    expect(back.entries[0].comment).toBe('a comment');
    rmSync(out);
  });

  it('rejects duplicate entry names', async () => {
    await expect(jarBytes([file('a', '1'), file('a', '2')])).rejects.toThrow(/duplicate entry a/);
  });

  it('says when the input is not a jar, or missing', async () => {
    const notZip = join(tmp, 'not-a.jar');
    writeFileSync(notZip, 'this is text, not a zip');
    await expect(readInput(notZip)).rejects.toThrow(KomoriumError);
    await expect(readInput(notZip)).rejects.toThrow(`${notZip}: not a jar (zip) file: `);
    const missing = join(tmp, 'no-such.jar');
    await expect(readInput(missing)).rejects.toThrow(KomoriumError);
    await expect(readInput(missing)).rejects.toThrow(`${missing}: no such file or folder`);
    rmSync(notZip);
  });
});

describe('class folders', () => {
  it('reads a folder depth-first in name order and writes it elsewhere', async () => {
    const src = join(tmp, 'classes');
    mkdirSync(join(src, 'b'), { recursive: true });
    mkdirSync(join(src, 'META-INF', 'versions', '11', 'a'), { recursive: true });
    writeFileSync(join(src, 'b', 'Z.class'), 'z');
    writeFileSync(join(src, 'b', 'A.class'), 'a');
    writeFileSync(join(src, 'module-info.class'), 'm');
    writeFileSync(join(src, 'META-INF', 'versions', '11', 'a', 'C.class'), 'c');
    writeFileSync(join(src, 'Res.txt'), 'r');
    const input = await readInput(src);
    expect(input.kind).toBe('dir');
    expect(input.entries.map((e) => e.name)).toEqual([
      'META-INF/', 'META-INF/versions/', 'META-INF/versions/11/', 'META-INF/versions/11/a/', 'META-INF/versions/11/a/C.class',
      'Res.txt', 'b/', 'b/A.class', 'b/Z.class', 'module-info.class',
    ]);
    expect(input.entries.filter((e) => e.isClass).map((e) => e.name)).toEqual([
      'META-INF/versions/11/a/C.class', 'b/A.class', 'b/Z.class',
    ]);

    const out = join(tmp, 'out-classes');
    await writeDir(out, input.entries);
    expect(readFileSync(join(out, 'META-INF', 'versions', '11', 'a', 'C.class'), 'utf8')).toBe('c');
    expect(readFileSync(join(out, 'b', 'Z.class'), 'utf8')).toBe('z');
    expect(strays(join(out, 'b'), ['A.class', 'Z.class'])).toEqual([]);
    const again = await readInput(out);
    expect(again.entries.map((e) => e.name)).toEqual(input.entries.map((e) => e.name));
  });

  it('refuses entry names that escape the output folder', async () => {
    const out = join(tmp, 'slip');
    await expect(writeDir(out, [file('../escaped.txt', 'x')])).rejects.toThrow(/points outside the output folder/);
    await expect(writeDir(out, [file('/etc/escaped.txt', 'x')])).rejects.toThrow(KomoriumError);
    expect(existsSync(join(tmp, 'escaped.txt'))).toBe(false);
  });
});

describe('write failures', () => {
  it('names a missing output folder', async () => {
    const out = join(tmp, 'no', 'such', 'folder', 'out.jar');
    await expect(writeJar(out, [file('a.txt', 'a')])).rejects.toThrow(KomoriumError);
    await expect(writeJar(out, [file('a.txt', 'a')])).rejects.toThrow(`cannot write ${out}: the folder ${join(tmp, 'no', 'such', 'folder')} does not exist`);
  });

  it('removes the temporary file when the rename fails, and leaves the target alone', async () => {
    const dir = join(tmp, 'rename-fails');
    mkdirSync(join(dir, 'out.jar', 'inside'), { recursive: true });
    await expect(writeJar(join(dir, 'out.jar'), [file('a.txt', 'a')])).rejects.toThrow(/a folder of that name is in the way/);
    expect(readdirSync(dir)).toEqual(['out.jar']);
    expect(statSync(join(dir, 'out.jar')).isDirectory()).toBe(true);
  });

  it('replaces an existing jar atomically', async () => {
    const out = join(tmp, 'replace.jar');
    writeFileSync(out, 'old contents');
    await writeJar(out, [file('a.txt', 'new')]);
    const back = await readInput(out);
    expect(back.entries.map((e) => e.name)).toEqual(['a.txt']);
    expect(readdirSync(tmp).filter((n) => n.startsWith('replace.jar'))).toEqual(['replace.jar']);
  });

  it('explains disk full, permission and read-only errors with the path', () => {
    const err = (code: string) => Object.assign(new Error(`${code}: system message`), { code });
    expect(writeError('/o/x.jar', err('ENOSPC')).message).toBe('cannot write /o/x.jar: no space left on the device (disk full)');
    expect(writeError('/o/x.jar', err('EACCES')).message).toBe('cannot write /o/x.jar: permission denied');
    expect(writeError('/o/x.jar', err('EROFS')).message).toMatch(/read-only/);
    expect(writeError('/o/x.jar', err('ENOSPC'))).toBeInstanceOf(KomoriumError);
    // Not a file-system condition: a bug, passed on as it is.
    const bug = new TypeError('boom');
    expect(writeError('/o/x.jar', bug)).toBe(bug);
  });
});

describe('assertSafeOutput', () => {
  it('refuses the input itself, through a symlink too', () => {
    const jar = join(tmp, 'in.jar');
    writeFileSync(jar, 'x');
    expect(() => assertSafeOutput(jar, jar)).toThrow(UsageError);
    expect(() => assertSafeOutput(jar, join(tmp, '.', 'in.jar'))).toThrow(/is the input/);
    symlinkSync(jar, join(tmp, 'link.jar'));
    expect(() => assertSafeOutput(jar, join(tmp, 'link.jar'))).toThrow(/is the input/);
    expect(() => assertSafeOutput(jar, join(tmp, 'other.jar'))).not.toThrow();
  });

  it('refuses an output inside the input folder, or an output folder holding the input', () => {
    const dir = join(tmp, 'safe-in');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    expect(() => assertSafeOutput(dir, join(dir, 'sub', 'out'))).toThrow(/inside the input folder/);
    expect(() => assertSafeOutput(dir, join(dir, 'new', 'deeper'))).toThrow(/inside the input folder/);
    expect(() => assertSafeOutput(join(dir, 'sub'), dir)).toThrow(/inside the output folder/);
    expect(() => assertSafeOutput(dir, join(tmp, 'safe-out'))).not.toThrow();
  });

  it('refuses outputs of the wrong kind and a missing input', () => {
    const jar = join(tmp, 'kind.jar');
    writeFileSync(jar, 'x');
    mkdirSync(join(tmp, 'a-folder'), { recursive: true });
    expect(() => assertSafeOutput(jar, join(tmp, 'a-folder'))).toThrow(/is a folder/);
    const text = join(tmp, 'kind.txt');
    writeFileSync(text, 'x');
    expect(() => assertSafeOutput(join(tmp, 'a-folder'), text)).toThrow(/is a file/);
    // A class folder is written as a jar to a name ending in .jar (instrument classes -o app.jar).
    expect(() => assertSafeOutput(join(tmp, 'a-folder'), jar)).not.toThrow();
    expect(() => assertSafeOutput(join(tmp, 'missing.jar'), join(tmp, 'o.jar'))).toThrow(/does not exist/);
  });
});

describe('jar signatures', () => {
  const MAIN = 'Manifest-Version: 1.0\r\nMain-Class: Hello\r\nClass-Path: a.jar\r\n  b.jar\r\n\r\n';

  it('removes per-entry digests and keeps the main section byte for byte', () => {
    const manifest =
      MAIN +
      'Name: Hello.class\r\nSHA-256-Digest: abc=\r\n\r\n' +
      'Name: very/long/name/that/conti\r\n nues/Foo.class\r\nSHA1-Digest: def=\r\nMD5-Digest: x\r\n\r\n' +
      'Name: data/\r\nSealed: true\r\nSHA-256-Digest: ghi=\r\n\r\n';
    const out = stripManifestDigests(new TextEncoder().encode(manifest));
    expect(out).not.toBeNull();
    expect(out!.removed).toBe(4);
    expect(Buffer.from(out!.data).toString('latin1')).toBe(MAIN + 'Name: data/\r\nSealed: true\r\n\r\n');
    // Nothing to remove: null, so the caller keeps the original bytes.
    expect(stripManifestDigests(new TextEncoder().encode(MAIN))).toBeNull();
    // LF-only manifests and bytes above 0x7f pass through exactly.
    const lf = 'Manifest-Version: 1.0\nImplementation-Title: caf\u00e9\n\nName: A.class\nSHA-256-Digest: x\n\n';
    const lfBytes = Buffer.from(lf, 'latin1');
    expect(Buffer.from(stripManifestDigests(lfBytes)!.data).toString('latin1')).toBe('Manifest-Version: 1.0\nImplementation-Title: caf\u00e9\n\n');
  });

  it('makes a signed jar whose class changed run again', async () => {
    const work = join(tmp, 'signed');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'Hello.java'), 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n');
    execFileSync(javaBin('javac'), ['-d', work, join(work, 'Hello.java')]);
    const plain = join(work, 'plain.jar');
    await writeJar(plain, [
      file('META-INF/MANIFEST.MF', MAIN),
      { ...file('Hello.class', ''), data: new Uint8Array(readFileSync(join(work, 'Hello.class'))) },
    ]);
    const store = join(work, 'keystore.p12');
    execFileSync(javaBin('keytool' as 'java'), [
      '-genkeypair', '-keystore', store, '-storepass', 'secret', '-keypass', 'secret', '-alias', 'k', '-keyalg', 'EC',
      '-dname', 'CN=komorium test', '-validity', '2',
    ], { stdio: 'ignore' });
    const signed = join(work, 'signed.jar');
    execFileSync(javaBin('jarsigner' as 'java'), ['-keystore', store, '-storepass', 'secret', '-signedjar', signed, plain, 'k'], { stdio: 'ignore' });

    const input = await readInput(signed);
    expect(isSigned(input.entries)).toBe(true);
    // Change the class (an extra attribute), as instrumentation would.
    const changed = input.entries.map((e) => {
      if (!e.isClass) return e;
      const cf = ClassFile.parse(e.data, e.name);
      cf.setAttribute(cf.attributes, 'komorium.Changed', new Uint8Array([1]));
      return { ...e, data: cf.toBytes() };
    });
    const run = (jar: string) => spawnSync(javaBin('java'), ['-cp', jar, 'Hello'], { encoding: 'utf8', timeout: 120_000 });

    const broken = join(work, 'broken.jar');
    await writeJar(broken, changed);
    const r1 = run(broken);
    expect(r1.status).not.toBe(0);
    expect(r1.stderr).toMatch(/SecurityException|digest/i);

    const stripped = stripSignature(changed);
    expect(stripped.removed.sort()).toEqual(['META-INF/K.EC', 'META-INF/K.SF']);
    expect(stripped.digestsRemoved).toBe(1);
    expect(isSigned(stripped.entries)).toBe(false);
    const mf = stripped.entries.find((e) => e.name === 'META-INF/MANIFEST.MF')!;
    expect(Buffer.from(mf.data).toString('latin1')).toBe(
      Buffer.from(input.entries.find((e) => e.name === 'META-INF/MANIFEST.MF')!.data).toString('latin1').slice(0, mf.data.length),
    );
    const fixed = join(work, 'fixed.jar');
    await writeJar(fixed, stripped.entries);
    const r2 = run(fixed);
    expect(r2.stderr).toBe('');
    expect(r2.stdout.trim()).toBe('hello');
  });
});
