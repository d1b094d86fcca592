/**
 * The JDK in a profile: which frames are the JDK's (the flame graph colours them apart), and whether
 * the run counted the JDK's bytecodes at all (the report's header says so plainly when it did not).
 */
import type { Profile } from '../profile/model.js';

/** Packages of the Java class library, as internal-name prefixes: java.*, javax.*, jdk.*, sun.*, com.sun.*. */
const JDK_PREFIXES = ['java/', 'javax/', 'jdk/', 'sun/', 'com/sun/'];

/** `internalName` as in the class file (`java/util/HashMap`). */
export function isJdkClass(internalName: string): boolean {
  return JDK_PREFIXES.some((p) => internalName.startsWith(p));
}

/**
 * The runtime writes `header jdk instrumented` when java.base ran instrumented (`run --jdk`), and
 * `header jdk not instrumented` otherwise; a profile without the header (written before it
 * existed) did not count the JDK either.
 */
export function jdkInstrumented(p: Pick<Profile, 'headers'>): boolean {
  return p.headers.some((h) => h.key === 'jdk' && h.value === 'instrumented');
}

/**
 * The header row about the JDK. Not instrumented, a call into the JDK is the caller's invoke
 * instruction, one bytecode of the caller's block, and nothing of what the JDK runs inside it
 * (test/report-jdk.test.ts measures it with the exact agent).
 */
export function jdkRow(p: Pick<Profile, 'headers'>): [string, string] {
  return jdkInstrumented(p)
    ? ['jdk', 'instrumented: the JDK\'s bytecodes are counted too']
    : ['jdk', 'not instrumented: JDK bytecodes are not counted; a call into the JDK counts as its caller\'s invoke instruction only (komorium-ts run --jdk counts them)'];
}
