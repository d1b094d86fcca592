/**
 * The tree IR of one Code attribute (JVMS 4.7.3), after ASM's MethodNode: an instruction list in
 * which Label objects mark positions, and every table that refers to a bytecode offset refers to
 * Labels (or, for uninitialized verification types, to the `new` instruction itself) instead.
 * Only the encoder (code-writer.ts) turns labels back into offsets, so a transform can insert or
 * remove nodes freely.
 */
import type { RawAttribute } from '../classfile/model.js';

/** A position in the instruction list. The encoder assigns `offset`; `origOffset` is where it was read. */
export class Label {
  private static nextId = 0;
  readonly id = Label.nextId++;
  /** Offset in the code array as read, or -1 for labels a transform created. */
  origOffset: number;
  /** Offset assigned by the last encoding, or -1. */
  offset = -1;
  constructor(origOffset = -1) {
    this.origOffset = origOffset;
  }
}

/**
 * One instruction. `op` is the canonical JVMS opcode:
 *  - the short local forms (iload_0 … astore_3) are ILOAD … ASTORE with `var`;
 *  - wide-prefixed forms are the plain opcode with `var` (and `inc`), `form` = WIDE (0xc4);
 *  - goto_w and jsr_w are GOTO and JSR with `form` = GOTO_W / JSR_W;
 *  - ldc_w is LDC with `form` = LDC_W (ldc2_w stays LDC2_W).
 * `form` records the encoding that was read, so that an unchanged method encodes byte-identically;
 * the encoder keeps it while it can still encode the operand and otherwise picks the shortest form
 * (and widens branches that no longer fit 16 bits). Transforms leave `form` undefined.
 */
export interface Insn {
  op: number;
  /** Local variable index: xLOAD, xSTORE, RET, IINC. */
  var?: number;
  /** IINC increment. */
  inc?: number;
  /** BIPUSH/SIPUSH value, NEWARRAY atype, MULTIANEWARRAY dimensions, INVOKEINTERFACE count as read. */
  n?: number;
  /** Constant-pool index: LDC*, field and method instructions, INVOKEDYNAMIC, NEW, ANEWARRAY, CHECKCAST, INSTANCEOF, MULTIANEWARRAY. */
  cp?: number;
  /** Branch target: IFxx, IF_xCMPxx, IFNULL, IFNONNULL, GOTO, JSR. */
  target?: Label;
  /** TABLESWITCH / LOOKUPSWITCH default target. */
  dflt?: Label;
  /** TABLESWITCH low value (high = low + targets.length - 1). */
  low?: number;
  /** LOOKUPSWITCH match keys, sorted ascending, parallel to `targets`. */
  keys?: number[];
  /** TABLESWITCH / LOOKUPSWITCH targets. */
  targets?: Label[];
  /** Original encoding, see above. */
  form?: number;
}

export type Node = Label | Insn;

export function isLabel(n: Node): n is Label {
  return n instanceof Label;
}

/** exception_table entry. `catchType` is an internal class name, or null for "any" (finally). */
export interface TryCatch {
  start: Label;
  end: Label;
  handler: Label;
  catchType: string | null;
  /** The constant-pool index as read (0 for any); the encoder reuses it when catchType is unchanged. */
  catchTypeIndex: number;
}

export interface LineNumber {
  start: Label;
  line: number;
}

/** LocalVariableTable / LocalVariableTypeTable entry (same layout; `descIndex` is the signature for LVTT). */
export interface LocalVar {
  start: Label;
  /** Exclusive end; may be the label at the very end of the code. */
  end: Label;
  nameIndex: number;
  descIndex: number;
  index: number;
}

/**
 * Verification types (JVMS 4.10.1.2), as:
 *   'T' top, 'I' int, 'F' float, 'J' long, 'D' double, 'N' null, 'U' uninitializedThis,
 *   an object type in field-descriptor form ('Ljava/lang/String;', '[I', '[Ljava/lang/Object;'),
 *   or the NEW instruction whose result it is, for uninitialized(offset).
 */
export type VType = string | Insn;

/**
 * A stack map frame, fully expanded. `locals` has one entry per local slot: a long or double is
 * followed by 'T' for its second slot. Trailing 'T' locals are allowed and ignored when encoding.
 * `stack` has one entry per value: a long or double is a single entry.
 */
export interface Frame {
  locals: VType[];
  stack: VType[];
}

/** A type annotation inside Code (JVMS 4.7.20) whose target refers to code offsets. */
export interface CodeTypeAnnotation {
  /** target_type byte (0x40..0x4B). */
  targetType: number;
  /** offset_target / type_argument_target / catch_target: the instruction (or for catch_target, exception_table index in `index`). */
  insn?: Insn;
  /** localvar_target table. */
  ranges?: { start: Label; end: Label; index: number }[];
  /** exception_table index (catch_target, 0x42) or type_argument_index (0x47..0x4B). */
  index?: number;
  /** Everything after target_info (type_path, type_index, element_value_pairs), kept raw. */
  rest: Uint8Array;
}

/**
 * Sub-attributes of Code, in the order they were read, so that an unchanged method encodes
 * byte-identically. The encoder regenerates the ones it understands from the fields of MethodCode.
 * `nameIndex` is the attribute_name_index as read: a pool may hold the same Utf8 twice, and reusing the
 * index read (instead of a find-or-add) keeps such classes byte-identical; when absent the encoder
 * uses cp.utf8Index(kind).
 */
export type CodeAttributeSlot =
  | { kind: 'LineNumberTable'; entries: LineNumber[]; nameIndex?: number }
  | { kind: 'LocalVariableTable'; entries: LocalVar[]; nameIndex?: number }
  | { kind: 'LocalVariableTypeTable'; entries: LocalVar[]; nameIndex?: number }
  | { kind: 'StackMapTable'; nameIndex?: number }
  | { kind: 'RuntimeVisibleTypeAnnotations'; annotations: CodeTypeAnnotation[]; nameIndex?: number }
  | { kind: 'RuntimeInvisibleTypeAnnotations'; annotations: CodeTypeAnnotation[]; nameIndex?: number }
  | { kind: 'raw'; attribute: RawAttribute };

export interface MethodCode {
  maxStack: number;
  maxLocals: number;
  nodes: Node[];
  tryCatch: TryCatch[];
  attributes: CodeAttributeSlot[];
  /**
   * Stack map frames by position, or null when the method has no StackMapTable. The encoder writes
   * a StackMapTable when this map is non-empty (creating the attribute slot if there was none).
   */
  frames: Map<Label, Frame> | null;
  /**
   * frame_type byte of each frame as read. The encoder reuses that kind of frame where it is still
   * valid (so that unchanged methods round-trip) and otherwise picks the most compact kind.
   */
  frameKinds: Map<Label, number>;
  /** Each instruction's offset as read (readCode with offsets); absent otherwise. Not used by the encoder. */
  offsets?: Map<Insn, number>;
}

/** The labels an instruction may transfer control to (not the fall-through). */
export function branchTargets(insn: Insn): Label[] {
  if (insn.targets !== undefined) return [insn.dflt!, ...insn.targets];
  return insn.target !== undefined ? [insn.target] : [];
}

/** Node index of every label of the code. */
export function labelIndices(code: MethodCode): Map<Label, number> {
  const m = new Map<Label, number>();
  code.nodes.forEach((n, i) => {
    if (isLabel(n)) m.set(n, i);
  });
  return m;
}
