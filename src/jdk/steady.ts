/**
 * Edits that make java.base run the same way in every run of a deterministic program, so that its
 * profile with the JDK counted is the same file under -Xint, C1 and C2 (issue 26; README,
 * "Counting the JDK's bytecodes"). Each edit replaces one source of chance inside the JDK by one of
 * the outcomes the unedited JDK may take itself, so a program sees nothing it could not see without
 * it. An edit whose code is not there (another JDK build) changes nothing.
 */
import { ClassFile, findAttribute } from '../classfile/classfile.js';
import { readCode } from '../bytecode/code-reader.js';
import { writeCode } from '../bytecode/code-writer.js';
import { invoke, op } from '../bytecode/emit.js';
import { isLabel, type Insn, type MethodCode } from '../bytecode/ir.js';
import { OP } from '../bytecode/opcodes.js';
import { encoderFrames } from '../analysis/frames.js';
import { MethodEditor } from '../edit/method-editor.js';

/** The methods of a java.base class, to check that what an edit calls exists. */
export type MethodsOf = (internalName: string) => readonly { name: string; desc: string }[] | undefined;

export interface SteadyEdit {
  /** The internal name of the class edited. */
  className: string;
  reason: string;
  /** Edits `cf` in place; false when its code is not the code expected (then `cf` is unchanged). */
  apply(cf: ClassFile, methodsOf: MethodsOf): boolean;
}

/**
 * The seed of ImmutableCollections' salt. The JDK takes System.nanoTime() at start-up, or, when it
 * dumps a CDS archive, a number derived from its build; any value is one it may take.
 */
export const SALT_SEED = 0x4b4f4d4fn;

export const STEADY_EDITS: readonly SteadyEdit[] = [
  {
    className: 'java/util/ImmutableCollections',
    reason:
      'Set.of and Map.of iterate and probe in an order salted at start-up from System.nanoTime(): a different order, and different bytecodes, in every run. The salt is made from a constant seed instead, as the JDK makes it when it dumps a CDS archive',
    apply: constantSalt,
  },
  {
    className: 'java/lang/ref/Finalizer',
    reason:
      "JDK 17 starts the Finalizer thread from this class's initializer, and that thread's first call initialises jdk.internal.misc.VM while the main thread may do the same. The thread that links a class draws its identity hash from its own sequence, so in some runs every identity hash the main thread draws after it is shifted by one, and the maps that java.lang.invoke keys by Class probe differently. The main thread initialises VM before it starts the thread",
    apply: vmBeforeFinalizerThread,
  },
];

/**
 * `data` with the steady edit of `internalName` applied, or null when there is none or its code is
 * not there. `where` names the class in errors.
 */
export function steadyClass(internalName: string, data: Uint8Array, where: string, methodsOf: MethodsOf): Uint8Array | null {
  const edit = STEADY_EDITS.find((e) => e.className === internalName);
  if (!edit) return null;
  const cf = ClassFile.parse(data, where);
  return edit.apply(cf, methodsOf) ? cf.toBytes() : null;
}

/** ImmutableCollections.<clinit>: its one `System.nanoTime()` becomes the constant SALT_SEED. */
function constantSalt(cf: ClassFile): boolean {
  return editClinit(cf, (code) => {
    const calls = code.nodes.filter((n): n is Insn => !isLabel(n) && isCall(cf, n, 'java/lang/System', 'nanoTime', '()J'));
    if (calls.length !== 1) return false;
    // Both push one long: the stack, the frames and the code around stay as they are.
    Object.assign(calls[0]!, { op: OP.LDC2_W, cp: cf.cp.longIndex(SALT_SEED), form: undefined });
    return true;
  });
}

/** Finalizer.<clinit> that starts the Finalizer thread: `VM.initLevel()` first, its result dropped. */
function vmBeforeFinalizerThread(cf: ClassFile, methodsOf: MethodsOf): boolean {
  const vm = 'jdk/internal/misc/VM';
  if (!methodsOf(vm)?.some((m) => m.name === 'initLevel' && m.desc === '()I')) return false;
  return editClinit(cf, (code) => {
    if (!code.nodes.some((n) => !isLabel(n) && n.op === OP.INVOKEVIRTUAL && cf.cp.memberRef(n.cp!).name === 'start' && cf.cp.memberRef(n.cp!).desc === '()V')) {
      return false;
    }
    const editor = new MethodEditor(code);
    editor.prepend([invoke(cf.cp, OP.INVOKESTATIC, vm, 'initLevel', '()I'), op(OP.POP)]);
    editor.finish();
    return true;
  });
}

function isCall(cf: ClassFile, insn: Insn, owner: string, name: string, desc: string): boolean {
  if (insn.op !== OP.INVOKESTATIC) return false;
  const ref = cf.cp.memberRef(insn.cp!);
  return ref.owner === owner && ref.name === name && ref.desc === desc;
}

/** Runs `edit` on the class initializer's code and writes it back when `edit` says it changed it. */
function editClinit(cf: ClassFile, edit: (code: MethodCode) => boolean): boolean {
  const clinit = cf.methods.find((m) => m.name === '<clinit>' && m.desc === '()V');
  const attr = clinit && findAttribute(clinit.attributes, 'Code');
  if (!clinit || !attr) return false;
  const code = readCode(cf, clinit, attr);
  if (!edit(code)) return false;
  const written = writeCode(cf, clinit, code, { frameAt: encoderFrames(cf, clinit, code) });
  clinit.attributes = clinit.attributes.map((a) => (a === attr ? written : a));
  return true;
}
