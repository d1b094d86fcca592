/** A growable big-endian byte buffer for encoding attributes. */
export class ByteWriter {
  private buf: Uint8Array;
  private dv: DataView;
  length = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.dv = new DataView(this.buf.buffer);
  }

  private ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.length));
    this.buf = b;
    this.dv = new DataView(b.buffer);
  }

  u1(v: number): void {
    this.ensure(1);
    this.buf[this.length++] = v;
  }

  u2(v: number): void {
    this.ensure(2);
    this.dv.setUint16(this.length, v);
    this.length += 2;
  }

  u4(v: number): void {
    this.ensure(4);
    this.dv.setUint32(this.length, v >>> 0);
    this.length += 4;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** Overwrites a u2 written earlier (for counts known only after the entries). */
  patchU2(at: number, v: number): void {
    this.dv.setUint16(at, v);
  }

  /** A copy of the bytes written so far. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
