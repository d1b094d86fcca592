/** A growable big-endian byte buffer for encoding attributes. */

/**
 * Buffers of finished writers, reused by the next ones: writeCode makes several writers per
 * method, and allocating a fresh ArrayBuffer each time was a visible share of `instrument`.
 */
const spares: Uint8Array[] = [];
const MAX_SPARES = 8;

export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(initial = 256) {
    let b: Uint8Array | undefined;
    for (let i = spares.length - 1; i >= 0; i--) {
      if (spares[i]!.length >= initial) {
        b = spares[i]!;
        spares[i] = spares[spares.length - 1]!;
        spares.pop();
        break;
      }
    }
    this.buf = b ?? new Uint8Array(Math.max(initial, 16));
  }

  private ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.length));
    this.buf = b;
  }

  u1(v: number): void {
    this.ensure(1);
    this.buf[this.length++] = v;
  }

  u2(v: number): void {
    this.ensure(2);
    const b = this.buf;
    const o = this.length;
    b[o] = v >>> 8;
    b[o + 1] = v;
    this.length = o + 2;
  }

  u4(v: number): void {
    this.ensure(4);
    const b = this.buf;
    const o = this.length;
    b[o] = v >>> 24;
    b[o + 1] = v >>> 16;
    b[o + 2] = v >>> 8;
    b[o + 3] = v;
    this.length = o + 4;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /**
   * Room for `n` bytes, written in place through `buffer`: their offset. (A view of them would be
   * one more object per write; encoders that fill a known size write straight into the buffer.)
   */
  reserve(n: number): number {
    this.ensure(n);
    const at = this.length;
    this.length += n;
    return at;
  }

  /** The buffer written so far; valid until the next write that grows it. */
  get buffer(): Uint8Array {
    return this.buf;
  }

  /** Overwrites a u4 written earlier (an attribute's length, known after its body). */
  patchU4(at: number, v: number): void {
    this.buf[at] = v >>> 24;
    this.buf[at + 1] = v >>> 16;
    this.buf[at + 2] = v >>> 8;
    this.buf[at + 3] = v;
  }

  /** Overwrites a u2 written earlier (for counts known only after the entries). */
  patchU2(at: number, v: number): void {
    this.buf[at] = v >>> 8;
    this.buf[at + 1] = v;
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }

  /** A copy of the bytes written; the writer must not be used afterwards (its buffer is reused). */
  finish(): Uint8Array {
    const out = this.buf.slice(0, this.length);
    if (spares.length < MAX_SPARES) spares.push(this.buf);
    this.buf = EMPTY;
    this.length = 0;
    return out;
  }
}

const EMPTY = new Uint8Array(0);
