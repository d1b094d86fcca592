/**
 * The class model (JVMS 4.1) that komorium-ts works on. Structure comes from class-io.ts;
 * attributes stay raw bytes here, and only the code that needs an attribute decodes it
 * (bytecode/code-reader.ts for Code), so unknown and malformed-but-unused attributes pass through
 * unchanged and cheaply.
 */
export interface RawAttribute {
  /** attribute_name_index */
  nameIndex: number;
  /** The decoded name (modified UTF-8 of the Utf8 entry). */
  name: string;
  /** The attribute's bytes after attribute_length. */
  info: Uint8Array;
}

/** field_info / method_info */
export interface MemberInfo {
  access: number;
  nameIndex: number;
  descIndex: number;
  /** Decoded name and descriptor, kept in step with the indices by whoever changes them. */
  name: string;
  desc: string;
  attributes: RawAttribute[];
}

export const ACC = {
  PUBLIC: 0x0001,
  PRIVATE: 0x0002,
  PROTECTED: 0x0004,
  STATIC: 0x0008,
  FINAL: 0x0010,
  SYNCHRONIZED: 0x0020,
  SUPER: 0x0020,
  VOLATILE: 0x0040,
  BRIDGE: 0x0040,
  TRANSIENT: 0x0080,
  VARARGS: 0x0080,
  NATIVE: 0x0100,
  INTERFACE: 0x0200,
  ABSTRACT: 0x0400,
  STRICT: 0x0800,
  SYNTHETIC: 0x1000,
  ANNOTATION: 0x2000,
  ENUM: 0x4000,
  MODULE: 0x8000,
} as const;

/** Constant pool tags (JVMS 4.4). */
export const CONSTANT = {
  Utf8: 1,
  Integer: 3,
  Float: 4,
  Long: 5,
  Double: 6,
  Class: 7,
  String: 8,
  Fieldref: 9,
  Methodref: 10,
  InterfaceMethodref: 11,
  NameAndType: 12,
  MethodHandle: 15,
  MethodType: 16,
  Dynamic: 17,
  InvokeDynamic: 18,
  Module: 19,
  Package: 20,
} as const;
