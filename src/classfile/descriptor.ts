/**
 * Field and method descriptors (JVMS 4.3). Arguments and return types are kept as field
 * descriptors ('I', 'Ljava/lang/String;', '[[J'), the form VType and the constant pool use.
 */
import { KomoriumError } from '../errors.js';

/** JVMS 4.3.2: an array type may have at most 255 dimensions. */
const MAX_DIMS = 255;

/**
 * End (exclusive) of the field descriptor starting at `start`, or -1 if there is none there.
 * Class names must be non-empty binary names in internal form: no '.', ';' or '[' and no empty
 * segment between '/'s (JVMS 4.2.1).
 */
function fieldEnd(desc: string, start: number): number {
  let i = start;
  while (i < desc.length && desc.charCodeAt(i) === 0x5b /* [ */) i++;
  if (i - start > MAX_DIMS || i >= desc.length) return -1;
  switch (desc[i]) {
    case 'B':
    case 'C':
    case 'D':
    case 'F':
    case 'I':
    case 'J':
    case 'S':
    case 'Z':
      return i + 1;
    case 'L': {
      const semi = desc.indexOf(';', i + 1);
      if (semi < 0) return -1;
      let segStart = i + 1;
      for (let j = i + 1; j <= semi; j++) {
        const c = desc[j];
        if (c === '/' || j === semi) {
          if (j === segStart) return -1; // empty name or empty segment
          segStart = j + 1;
        } else if (c === '.' || c === '[') {
          return -1;
        }
      }
      return semi + 1;
    }
    default:
      return -1;
  }
}

export function isValidFieldDescriptor(desc: string): boolean {
  return desc.length > 0 && fieldEnd(desc, 0) === desc.length;
}

/** Syntax per JVMS 4.3.3 and at most 255 argument slots (before counting `this`). */
export function isValidMethodDescriptor(desc: string): boolean {
  const parsed = parsedMethod(desc);
  return parsed !== null && parsed.slots <= 255;
}

function tryParse(desc: string): { args: string[]; ret: string } | null {
  if (desc.charCodeAt(0) !== 0x28 /* ( */) return null;
  const args: string[] = [];
  let i = 1;
  while (i < desc.length && desc[i] !== ')') {
    const end = fieldEnd(desc, i);
    if (end < 0) return null;
    args.push(desc.slice(i, end));
    i = end;
  }
  if (i >= desc.length) return null;
  i++;
  if (desc[i] === 'V' && i + 1 === desc.length) return { args, ret: 'V' };
  if (fieldEnd(desc, i) !== desc.length) return null;
  return { args, ret: desc.slice(i) };
}

/** A valid method descriptor, split, with its argument slots. */
interface ParsedMethod {
  readonly split: { readonly args: readonly string[]; readonly ret: string };
  readonly slots: number;
}

/**
 * Descriptors repeat across a program (a jar has a few thousand distinct ones and parses each
 * many times), so parses are kept; the cache is dropped whole when it grows past a bound.
 */
const parsedMethods = new Map<string, ParsedMethod>();
const MAX_CACHED = 100_000;

function parsedMethod(desc: string): ParsedMethod | null {
  let p = parsedMethods.get(desc);
  if (p !== undefined) return p;
  const parsed = tryParse(desc);
  if (parsed === null) return null;
  if (parsedMethods.size >= MAX_CACHED) parsedMethods.clear();
  p = { split: Object.freeze({ args: Object.freeze(parsed.args), ret: parsed.ret }), slots: parsed.args.reduce((n, a) => n + typeSize(a), 0) };
  parsedMethods.set(desc, p);
  return p;
}

/** Splits a method descriptor. `ret` is 'V' for void. Throws KomoriumError on a malformed descriptor. */
export function parseMethodDescriptor(desc: string): { readonly args: readonly string[]; readonly ret: string } {
  const parsed = parsedMethod(desc);
  if (parsed === null) throw new KomoriumError(`invalid method descriptor '${desc}'`);
  return parsed.split;
}

/** 0 for V, 2 for J and D, 1 otherwise (also for arrays of longs). */
export function typeSize(fieldDesc: string): number {
  const c = fieldDesc[0];
  return c === 'V' ? 0 : c === 'J' || c === 'D' ? 2 : 1;
}

/** Local variable slots the arguments take, without `this`. Throws KomoriumError on a malformed descriptor. */
export function argSlots(desc: string): number {
  const parsed = parsedMethod(desc);
  if (parsed === null) throw new KomoriumError(`invalid method descriptor '${desc}'`);
  return parsed.slots;
}

/** The return type of a method descriptor ('V' for void), without validating the arguments. */
export function returnType(desc: string): string {
  return desc.slice(desc.lastIndexOf(')') + 1);
}
