/**
 * The JDK that instrument-jdk rewrites: its java home checked, its build identified, its java.base
 * classes read from the run-time image (lib/modules), which is only ever read.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KomoriumError } from '../errors.js';
import { JImage, JImageUnsupportedError } from '../hierarchy/jimage.js';

export interface JdkImage {
  javaHome: string;
  /** JAVA_RUNTIME_VERSION (else JAVA_VERSION) of the release file. */
  version: string;
  /** The release file and lib/modules' size, date and first bytes, hashed: another build, another cache. */
  identity: string;
  image: JImage;
}

/** Opens a JDK 9+ java home for instrument-jdk; a KomoriumError names what is missing or unreadable. */
export function openJdkImage(javaHome: string): JdkImage {
  if (!existsSync(javaHome) || !statSync(javaHome).isDirectory()) throw new KomoriumError(`${javaHome}: no such java home (a folder)`);
  const modules = join(javaHome, 'lib', 'modules');
  if (!existsSync(modules)) {
    const rt = [join(javaHome, 'jre', 'lib', 'rt.jar'), join(javaHome, 'lib', 'rt.jar')].find((p) => existsSync(p));
    throw new KomoriumError(
      rt
        ? `${javaHome}: a JDK 8 or older (${rt}, no lib/modules): instrument-jdk needs a JDK 9 or newer, whose java.base can be patched (--patch-module)`
        : `${javaHome}: no lib/modules (the JDK's run-time image): not a JDK 9 or newer java home`,
    );
  }
  let image: JImage;
  try {
    image = new JImage(modules);
  } catch (e) {
    const why = e instanceof JImageUnsupportedError ? e.message : `${modules}: cannot be read: ${(e as Error).message}`;
    throw new KomoriumError(why);
  }
  try {
    if (image.readClass('java/lang/Object') === null) throw new KomoriumError(`${modules}: holds no java.base module (java/lang/Object is missing)`);
  } catch (e) {
    image.close();
    if (e instanceof JImageUnsupportedError) throw new KomoriumError(e.message);
    throw e;
  }
  const release = join(javaHome, 'release');
  const releaseText = existsSync(release) ? readFileSync(release, 'utf8') : '';
  const version = /^JAVA_RUNTIME_VERSION="?([^"\n]*)"?/m.exec(releaseText)?.[1] ?? /^JAVA_VERSION="?([^"\n]*)"?/m.exec(releaseText)?.[1] ?? 'unknown';
  const st = statSync(modules);
  const identity = createHash('sha256').update(releaseText).update(`\n${st.size} ${st.mtimeMs}\n`).update(image.headerBytes()).digest('hex');
  return { javaHome, version, identity, image };
}
