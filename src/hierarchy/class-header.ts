/**
 * Reads only what the class hierarchy needs from class-file bytes: names, flags, supertypes and
 * method signatures. The hierarchy reads hundreds of JDK and classpath classes per run, and it does
 * so synchronously in the middle of frame computation, so it skips every attribute and never
 * builds the full model that ClassFile.parse gives (which the pipeline needs for the classes it
 * rewrites, not for the ones it merely asks about).
 */
import { ClassFormatError } from '../errors.js';
import { isValidMethodDescriptor } from '../classfile/descriptor.js';
import { ACC } from '../classfile/model.js';
import { javaName } from '../classfile/names.js';

export interface HierarchyMethod {
  name: string;
  desc: string;
  access: number;
}

/** What the hierarchy knows of one class. Names are internal names (java/lang/String). */
export interface HierarchyClass {
  name: string;
  /** null only for java/lang/Object (and module-info). */
  superName: string | null;
  interfaces: string[];
  isInterface: boolean;
  access: number;
  methods: HierarchyMethod[];
  /** Declared fields (name, descriptor, flags), for field resolution (JVMS 5.4.3.2). */
  fields: HierarchyMethod[];
  /** Where it was found: 'input', a classpath element, or 'jdk'. */
  source: string;
}


export function readClassHeader(bytes: Uint8Array, entry: string, source: string): HierarchyClass {
  const fail = (detail: string): never => {
    throw new ClassFormatError(entry, detail);
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > bytes.length) fail(`truncated class file at byte ${pos}`);
  };
  const u1 = () => (need(1), view.getUint8(pos++));
  const u2 = () => {
    need(2);
    const v = view.getUint16(pos);
    pos += 2;
    return v;
  };
  const u4 = () => {
    need(4);
    const v = view.getUint32(pos);
    pos += 4;
    return v;
  };
  if (u4() !== 0xcafebabe) fail('bad magic (not a class file)');
  pos += 4; // minor, major
  const count = u2();
  // Offsets of Utf8 entries and the name index of Class entries; everything else is skipped.
  const utf8Start = new Int32Array(count).fill(-1);
  const utf8Len = new Uint16Array(count);
  const classNameIndex = new Uint16Array(count);
  for (let i = 1; i < count; i++) {
    const tag = u1();
    switch (tag) {
      case 1: {
        const len = u2();
        need(len);
        utf8Start[i] = pos;
        utf8Len[i] = len;
        pos += len;
        break;
      }
      case 7:
        classNameIndex[i] = u2();
        break;
      case 8: case 16: case 19: case 20:
        pos += 2;
        break;
      case 15:
        pos += 3;
        break;
      case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
        pos += 4;
        break;
      case 5: case 6:
        pos += 8;
        i++; // 8-byte constants take two entries (JVMS 4.4.5)
        break;
      default:
        fail(`unknown constant pool tag ${tag} at entry ${i}`);
    }
  }
  const utf8 = (i: number): string => {
    if (i <= 0 || i >= count || utf8Start[i]! < 0) fail(`constant pool index ${i} is not a Utf8 entry`);
    return decodeMutf8(bytes, utf8Start[i]!, utf8Start[i]! + utf8Len[i]!);
  };
  const className = (i: number): string => {
    if (i <= 0 || i >= count || classNameIndex[i] === 0) fail(`constant pool index ${i} is not a Class entry`);
    return utf8(classNameIndex[i]!);
  };
  const access = u2();
  const name = className(u2());
  const superIndex = u2();
  const superName = superIndex === 0 ? null : className(superIndex);
  const interfaces: string[] = [];
  for (let n = u2(); n > 0; n--) interfaces.push(className(u2()));
  const skipAttributes = () => {
    for (let n = u2(); n > 0; n--) {
      pos += 2;
      const len = u4();
      need(len);
      pos += len;
    }
  };
  const fields: HierarchyMethod[] = [];
  for (let n = u2(); n > 0; n--) {
    const facc = u2();
    const fname = utf8(u2());
    const fdesc = utf8(u2());
    fields.push({ name: fname, desc: fdesc, access: facc });
    skipAttributes();
  }
  const methods: HierarchyMethod[] = [];
  for (let n = u2(); n > 0; n--) {
    const macc = u2();
    const mname = utf8(u2());
    const mdesc = utf8(u2());
    // Plans and call decisions split every descriptor: a malformed one is a broken class, and it is
    // caught here, where the entry, class and method are known.
    if (!isValidMethodDescriptor(mdesc)) fail(`class ${javaName(name)}, method ${mname}: invalid descriptor '${mdesc}'`);
    methods.push({ name: mname, desc: mdesc, access: macc });
    skipAttributes();
  }
  return { name, superName, interfaces, isInterface: (access & ACC.INTERFACE) !== 0, access, methods, fields, source };
}

/** Modified UTF-8 (JVMS 4.4.7); class and member names are nearly always ASCII, so that is the fast path. */
function decodeMutf8(b: Uint8Array, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) if (b[i]! >= 0x80) { ascii = false; break; }
  if (ascii) return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1');
  let s = '';
  for (let i = start; i < end; ) {
    const c = b[i++]!;
    if (c < 0x80) s += String.fromCharCode(c);
    else if ((c & 0xe0) === 0xc0) s += String.fromCharCode(((c & 0x1f) << 6) | (b[i++]! & 0x3f));
    else {
      const c2 = b[i++]!;
      const c3 = b[i++]!;
      s += String.fromCharCode(((c & 0x0f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f));
    }
  }
  return s;
}
