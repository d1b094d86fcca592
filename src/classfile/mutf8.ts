/**
 * Modified UTF-8 (JVMS 4.4.7): like UTF-8, except that U+0000 is the two bytes C0 80 (so no
 * encoded string contains a zero byte) and a supplementary character is its UTF-16 surrogate
 * pair, each surrogate encoded as its own 3-byte sequence. Four-byte forms do not exist.
 */

/** Bytes that are not modified UTF-8. `offset` is relative to the start of the whole array. */
export class Mutf8Error extends Error {
  override name = 'Mutf8Error';
  constructor(readonly offset: number, detail: string) {
    super(`invalid modified UTF-8 at byte ${offset}: ${detail}`);
  }
}

// String.fromCharCode.apply takes its arguments on the stack; stay well below engine limits.
const CHUNK = 8192;

function asciiString(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= CHUNK) {
    return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
  }
  let s = '';
  for (let i = start; i < end; i += CHUNK) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + CHUNK)) as unknown as number[]);
  }
  return s;
}

/**
 * Decodes bytes[start, end). Throws Mutf8Error on a zero byte, a 4-byte lead, a bad continuation
 * byte or a sequence cut off by `end`. Lone surrogates are accepted, as the JVM accepts them.
 */
export function decodeMutf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let i = start;
  // Nearly every constant in real class files is ASCII: decode those in one call.
  while (i < end) {
    const b = bytes[i];
    if (b === 0 || b >= 0x80) break;
    i++;
  }
  if (i === end) return asciiString(bytes, start, end);

  const units: number[] = [];
  let out = i > start ? asciiString(bytes, start, i) : '';
  while (i < end) {
    const b = bytes[i];
    if (b !== 0 && b < 0x80) {
      units.push(b);
      i++;
    } else if ((b & 0xe0) === 0xc0) {
      if (i + 1 >= end) throw new Mutf8Error(i, 'truncated 2-byte sequence');
      const b2 = bytes[i + 1];
      if ((b2 & 0xc0) !== 0x80) throw new Mutf8Error(i + 1, `bad continuation byte 0x${b2.toString(16)}`);
      units.push(((b & 0x1f) << 6) | (b2 & 0x3f));
      i += 2;
    } else if ((b & 0xf0) === 0xe0) {
      if (i + 2 >= end) throw new Mutf8Error(i, 'truncated 3-byte sequence');
      const b2 = bytes[i + 1];
      const b3 = bytes[i + 2];
      if ((b2 & 0xc0) !== 0x80) throw new Mutf8Error(i + 1, `bad continuation byte 0x${b2.toString(16)}`);
      if ((b3 & 0xc0) !== 0x80) throw new Mutf8Error(i + 2, `bad continuation byte 0x${b3.toString(16)}`);
      units.push(((b & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f));
      i += 3;
    } else {
      throw new Mutf8Error(i, b === 0 ? 'zero byte' : `bad lead byte 0x${b.toString(16)}`);
    }
    if (units.length >= CHUNK) {
      out += String.fromCharCode.apply(null, units);
      units.length = 0;
    }
  }
  return out + String.fromCharCode.apply(null, units);
}

/** Number of bytes encodeMutf8(s) produces, without producing them. */
export function mutf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c !== 0 && c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return n;
}

export function encodeMutf8(s: string): Uint8Array {
  const out = new Uint8Array(mutf8Length(s));
  encodeMutf8Into(s, out, 0);
  return out;
}

/**
 * Writes the modified UTF-8 of `s` at out[at..] and returns how many bytes it took; `out` must have
 * room for 3 bytes per UTF-16 unit. For callers that encode into a scratch buffer they reuse.
 */
export function encodeMutf8Into(s: string, out: Uint8Array, at: number): number {
  let o = at;
  for (let i = 0; i < s.length; i++) {
    // charCodeAt, not codePointAt: surrogates are encoded one by one.
    const c = s.charCodeAt(i);
    if (c !== 0 && c < 0x80) {
      out[o++] = c;
    } else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 0x3f);
    } else {
      out[o++] = 0xe0 | (c >> 12);
      out[o++] = 0x80 | ((c >> 6) & 0x3f);
      out[o++] = 0x80 | (c & 0x3f);
    }
  }
  return o - at;
}
