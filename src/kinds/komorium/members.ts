/**
 * Methods the transform adds or replaces whole (seed 002 §4.3): wrappers that keep the original
 * signature, reverse wrappers for natives, forwarders for abstract methods and for bodies that
 * could not be rewritten, and the initialisation of method identifiers (§4.4).
 */
import type { ClassFile } from '../../classfile/classfile.js';
import type { MemberInfo } from '../../classfile/model.js';
import { ACC } from '../../classfile/model.js';
import { argSlots, parseMethodDescriptor, typeSize } from '../../classfile/descriptor.js';
import { Label, type Frame, type Insn, type MethodCode, type Node } from '../../bytecode/ir.js';
import { OP } from '../../bytecode/opcodes.js';
import { RT, extendDescriptor, extendedName, factoryDescriptor } from './runtime-names.js';
import { hasFactory, type ClassPlan } from './plan.js';
import { field, invoke, load, loadOpFor, op, pushInt, pushString, returnOpFor } from '../../bytecode/emit.js';
import { entryFrame } from '../../analysis/frames.js';
import { writeCode } from '../../bytecode/code-writer.js';

export function emptyCode(nodes: Node[]): MethodCode {
  return { maxStack: 0, maxLocals: 0, nodes, tryCatch: [], attributes: [], frames: null, frameKinds: new Map() };
}

/** Loads `this` (if any) and every argument of `desc`. */
export function loadArgs(desc: string, isStatic: boolean): Insn[] {
  const out: Insn[] = [];
  let slot = 0;
  if (!isStatic) out.push(load(OP.ALOAD, slot++));
  for (const t of parseMethodDescriptor(desc).args) {
    out.push(load(loadOpFor(t), slot));
    slot += typeSize(t);
  }
  return out;
}

function selfInvoke(cf: ClassFile, m: MemberInfo, name: string, desc: string, virtual: boolean): Insn {
  const isStatic = (m.access & ACC.STATIC) !== 0;
  const isInterface = (cf.access & ACC.INTERFACE) !== 0;
  const opcode = isStatic ? OP.INVOKESTATIC : virtual ? (isInterface ? OP.INVOKEINTERFACE : OP.INVOKEVIRTUAL) : OP.INVOKESPECIAL;
  return invoke(cf.cp, opcode, cf.thisClass, name, desc, isInterface);
}

/**
 * The original-signature method: `tc = TC.getTC(); stack = tc.enter(); sp = tc.enterSp;
 * r = ext(args…, tc, stack, sp); tc.exit(stack, sp); return r`. Called by native code,
 * reflection, the JDK and uninstrumented code exactly as before (§4.3).
 */
export function wrapperCode(cf: ClassFile, m: MemberInfo, direct = false, tcGetter = 'getTC'): MethodCode {
  const cp = cf.cp;
  const isStatic = (m.access & ACC.STATIC) !== 0;
  const k = argSlots(m.desc) + (isStatic ? 0 : 1);
  const [T, S, P] = [k, k + 1, k + 2];
  const nodes: Node[] = [
    invoke(cp, OP.INVOKESTATIC, RT.TC, tcGetter, `()${RT.TC_DESC}`),
    load(OP.ASTORE, T),
    load(OP.ALOAD, T),
    invoke(cp, OP.INVOKEVIRTUAL, RT.TC, 'enter', `()${RT.STACK_DESC}`),
    load(OP.ASTORE, S),
    load(OP.ALOAD, T),
    field(cp, OP.GETFIELD, RT.TC, 'enterSp', 'I'),
    load(OP.ISTORE, P),
    ...loadArgs(m.desc, isStatic),
    load(OP.ALOAD, T),
    load(OP.ALOAD, S),
    load(OP.ILOAD, P),
    // A method that guards virtual dispatch takes ~sp on a direct entry (plan.ts dispatchChecked).
    ...(direct ? [op(OP.ICONST_M1), op(OP.IXOR)] : []),
    selfInvoke(cf, m, extendedName(m.name), extendDescriptor(m.desc), false),
    load(OP.ALOAD, T),
    load(OP.ALOAD, S),
    load(OP.ILOAD, P),
    invoke(cp, OP.INVOKEVIRTUAL, RT.TC, 'exit', `(${RT.STACK_DESC}I)V`),
    op(returnOpFor(parseMethodDescriptor(m.desc).ret)),
  ];
  const code = emptyCode(nodes);
  code.maxLocals = k + 3;
  return code;
}

/**
 * How a forwarder calls the original method: 'virtual' (abstract methods: subclasses that only
 * know the original signature are reached), 'special' (natives and stand-ins that cannot be
 * overridden), or 'dual' for methods that guard virtual dispatch (plan.ts dispatchChecked): a
 * virtual entry (sp >= 0) calls virtually, so an uninstrumented override is reached (instrumented
 * overrides have their own extended method), and a direct entry (~sp, from super.m()) calls
 * non-virtually, as the caller did.
 */
export type ForwardMode = 'virtual' | 'special' | 'dual';

/**
 * An extended method that drops the extra arguments and calls the original one: the reverse
 * wrapper of a native method, the forwarder of an abstract method, or the stand-in for a body that
 * could not be rewritten. It is a call-out, so callbacks from the callee continue the reified stack.
 */
export function forwarderCode(cf: ClassFile, m: MemberInfo, mode: ForwardMode, callbacks: boolean): MethodCode {
  const cp = cf.cp;
  const isStatic = (m.access & ACC.STATIC) !== 0;
  const k = argSlots(m.desc) + (isStatic ? 0 : 1);
  const [T, S, P] = [k, k + 1, k + 2];
  const nodes: Node[] = [];
  const call = (virtual: boolean) => {
    if (callbacks) {
      nodes.push(
        load(OP.ALOAD, T),
        load(OP.ALOAD, S),
        field(cp, OP.PUTFIELD, RT.TC, 'outStack', RT.STACK_DESC),
        load(OP.ALOAD, T),
        load(OP.ILOAD, P),
        field(cp, OP.PUTFIELD, RT.TC, 'outSp', 'I'),
      );
    }
    nodes.push(...loadArgs(m.desc, isStatic), selfInvoke(cf, m, m.name, m.desc, virtual));
    if (callbacks) nodes.push(load(OP.ALOAD, T), op(OP.ICONST_M1), field(cp, OP.PUTFIELD, RT.TC, 'outSp', 'I'));
    nodes.push(op(returnOpFor(parseMethodDescriptor(m.desc).ret)));
  };
  let frames: Map<Label, Frame> | null = null;
  if (mode === 'dual') {
    const direct = new Label();
    nodes.push(load(OP.ILOAD, P), { op: OP.IFLT, target: direct });
    call(true);
    nodes.push(direct, load(OP.ILOAD, P), op(OP.ICONST_M1), op(OP.IXOR), load(OP.ISTORE, P));
    call(false);
    if (cf.major >= 50) frames = new Map([[direct, extendedEntryFrame(cf, m)]]);
  } else {
    call(mode === 'virtual');
  }
  const code = emptyCode(nodes);
  code.frames = frames;
  code.maxLocals = k + 3;
  return code;
}

/** The frame at the entry of the extended method of `m`: its arguments, then TC, int[] and int. */
export function extendedEntryFrame(cf: ClassFile, m: MemberInfo): Frame {
  const f = entryFrame(cf, m);
  return { locals: [...f.locals, ...RT.EXTRA_VTYPES], stack: [] };
}

/** One `komorium$mid$N` field per entry. */
/**
 * The factories of a class (RT.FACTORY_METHOD): for each constructor `hasFactory` selects,
 * `public static synthetic C komorium$new(A TC int[] int) { return new C(A, tc, stack, sp); }`
 * calling the extended constructor, and once the constant `public static final synthetic int
 * komorium$new = 0` whose getstatic initializes the class where `new` would. Like wrappers they
 * are plumbing: nothing in them is counted.
 */
export function addFactories(cf: ClassFile, plan: ClassPlan): void {
  const made = cf.methods.filter((m) => {
    const planned = plan.methods.get(m.name + m.desc);
    return planned !== undefined && hasFactory(plan, planned);
  });
  if (made.length === 0) return;
  const cp = cf.cp;
  const constant = cp.integerIndex(0);
  cf.fields.push(
    cf.newMember(ACC.PUBLIC | ACC.STATIC | ACC.FINAL | ACC.SYNTHETIC, RT.FACTORY_INIT_FIELD, 'I', [
      { nameIndex: cp.utf8Index('ConstantValue'), name: 'ConstantValue', info: Uint8Array.of(constant >> 8, constant & 0xff) },
    ]),
  );
  for (const ctor of made) {
    const desc = factoryDescriptor(cf.thisClass, ctor.desc);
    const factory = cf.newMember(ACC.PUBLIC | ACC.STATIC | ACC.SYNTHETIC, RT.FACTORY_METHOD, desc);
    const k = argSlots(ctor.desc);
    const code = emptyCode([
      { op: OP.NEW, cp: cp.classIndex(cf.thisClass) },
      op(OP.DUP),
      ...loadArgs(ctor.desc, true),
      load(OP.ALOAD, k),
      load(OP.ALOAD, k + 1),
      load(OP.ILOAD, k + 2),
      invoke(cp, OP.INVOKESPECIAL, cf.thisClass, '<init>', extendDescriptor(ctor.desc)),
      op(OP.ARETURN),
    ]);
    code.maxLocals = k + 3;
    factory.attributes = [writeCode(cf, factory, code)];
    cf.methods.push(factory);
  }
}

export function addMidFields(cf: ClassFile, access: number, mids: readonly MidEntry[]): void {
  for (const e of mids) cf.fields.push(cf.newMember(access, e.field, RT.MID_DESC));
}

/** A synthetic `<clinit>` that runs `nodes()` and returns. */
export function syntheticClinit(cf: ClassFile, nodes: () => Node[]): MemberInfo {
  const clinit = cf.newMember(ACC.STATIC | ACC.SYNTHETIC, '<clinit>', '()V');
  clinit.attributes = [writeCode(cf, clinit, emptyCode([...nodes(), op(OP.RETURN)]))];
  return clinit;
}

export interface MidEntry {
  field: string;
  name: string;
  desc: string;
  line: number;
  /** The line a frame holding this identifier calls from (instrument --call-lines); absent for the method's own. */
  callLine?: number;
}

/**
 * One line of MID.forClass's string. A call line of the method of the line before it in the same
 * string is only `TAB callLine`: repeating the name and descriptor made these strings a quarter of an
 * instrumented Rhino's class bytes, and encoding them a tenth of its rewrite (BENCHMARKS.md).
 */
function midLine(e: MidEntry, before: MidEntry | undefined): string {
  if (e.callLine === undefined) return `${e.name}\t${e.desc}\t${e.line}\n`;
  if (before !== undefined && before.name === e.name && before.desc === e.desc && before.line === e.line) return `\t${e.callLine}\n`;
  return `${e.name}\t${e.desc}\t${e.line}\t${e.callLine}\n`;
}

/** Largest packed string per ldc: a CONSTANT_Utf8 holds at most 65,535 bytes. */
const CHUNK = 60_000;

/** The identifiers `mids[start..end)`, registered by one MID.forClass call with the string `packed`. */
export interface MidChunk {
  start: number;
  end: number;
  packed: string;
}

/** `mids` cut into the strings of MID.forClass calls, each within a CONSTANT_Utf8's size. */
export function midChunks(mids: readonly MidEntry[]): MidChunk[] {
  const chunks: MidChunk[] = [];
  for (let start = 0; start < mids.length; ) {
    let size = 0;
    let end = start;
    let packed = '';
    while (end < mids.length) {
      const line = midLine(mids[end]!, end > start ? mids[end - 1] : undefined);
      if (size + line.length * 3 > CHUNK && end > start) break;
      packed += line;
      size += line.length * 3;
      end++;
    }
    chunks.push({ start, end, packed });
    start = end;
  }
  return chunks;
}

export const FOR_CLASS_DESC = `(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)${RT.MID_DESC}`;

/**
 * `MID.forClass(className, sourceFile, "name\tdesc\tline\n…")` (each line a midLine) registers the
 * methods of a class in one call and returns the first identifier; the others follow in order, and
 * each is stored in its static final field. One ldc per class instead of five per method keeps
 * <clinit> small and the constant pool short. table-fragments.ts midInit writes the same as bytes.
 */
export function midInitCode(cf: ClassFile, owner: string, javaName: string, source: string | null, mids: MidEntry[]): Insn[] {
  const cp = cf.cp;
  const out: Insn[] = [];
  for (const { start, end, packed } of midChunks(mids)) {
    out.push(
      pushString(cp, javaName),
      pushString(cp, source),
      pushString(cp, packed),
      invoke(cp, OP.INVOKESTATIC, RT.MID, 'forClass', FOR_CLASS_DESC),
    );
    for (let i = start; i < end; i++) {
      out.push(op(OP.DUP), pushInt(cp, i - start), op(OP.IADD), field(cp, OP.PUTSTATIC, owner, mids[i].field, RT.MID_DESC));
    }
    out.push(op(OP.POP));
  }
  return out;
}

export const MID_FIELD_ACCESS = ACC.PRIVATE | ACC.STATIC | ACC.FINAL | ACC.SYNTHETIC;
export const HOLDER_FIELD_ACCESS = ACC.STATIC | ACC.FINAL | ACC.SYNTHETIC;
