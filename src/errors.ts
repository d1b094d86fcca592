/**
 * Every error a user can cause is a KomoriumError: the CLI prints its message (which names the
 * entry, class or method) and exits 2, without a stack trace. Anything else is a bug in komorium-ts.
 */
import { javaName } from './classfile/names.js';

export class KomoriumError extends Error {
  override name = 'KomoriumError';
}

/** Bytes that are not a valid class file (JVMS 4). `entry` is the jar entry or file path. */
export class ClassFormatError extends KomoriumError {
  override name = 'ClassFormatError';
  constructor(readonly entry: string, readonly detail: string) {
    super(`${entry}: ${detail}`);
  }
}

/** A Code attribute that cannot be encoded because it would exceed 65,535 bytes (JVMS 4.7.3). */
export class MethodTooLargeError extends KomoriumError {
  override name = 'MethodTooLargeError';
  constructor(readonly className: string, readonly method: string, readonly codeLength: number) {
    super(`${javaName(className)}.${method}: code would be ${codeLength} bytes, over the 65535-byte limit`);
  }
}

/** A type the class hierarchy cannot resolve, where a decision (frame merge, call target) needs it. */
export class UnresolvedTypeError extends KomoriumError {
  override name = 'UnresolvedTypeError';
  constructor(readonly className: string, readonly method: string, readonly missingType: string, readonly why: string) {
    super(
      `${javaName(className)}.${method}: ${why} needs type ${javaName(missingType)}, ` +
        `which is neither in the input nor on the --classpath (add the jar that holds it with --classpath)`,
    );
  }
}

/** Bad command-line usage or unusable files (missing input, output equal to input, ...). */
export class UsageError extends KomoriumError {
  override name = 'UsageError';
}
