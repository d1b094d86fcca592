/** Class files made from nothing: the holder classes beside instrumented ones. */
import { encodeMutf8 } from './mutf8.js';

/** The smallest valid class file: a name, a superclass, nothing else. */
export function minimalClassBytes(name: string, superName: string, major: number, minor: number, access: number): Uint8Array {
  const out: number[] = [];
  const u1 = (v: number) => out.push(v & 0xff);
  const u2 = (v: number) => out.push((v >> 8) & 0xff, v & 0xff);
  const utf8 = (s: string) => {
    const b = encodeMutf8(s);
    u1(1);
    u2(b.length);
    for (const x of b) out.push(x);
  };
  u2(0xcafe);
  u2(0xbabe);
  u2(minor);
  u2(major);
  u2(5);
  utf8(name);
  u1(7);
  u2(1);
  utf8(superName);
  u1(7);
  u2(3);
  u2(access);
  u2(2);
  u2(4);
  u2(0);
  u2(0);
  u2(0);
  u2(0);
  return Uint8Array.from(out);
}
