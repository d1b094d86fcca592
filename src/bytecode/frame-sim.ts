/**
 * Straight-line frame simulation: the verifier's type state before an instruction, inferred from
 * the nearest preceding stack map frame (or the method's initial frame) by executing the
 * instructions in between (JVMS 4.10.1.9). The encoder uses it for the frame a widened conditional
 * branch needs at its fall-through point. There is no merging, so no class hierarchy is needed:
 * in code with valid frames every merge point already has a frame, which the walk starts from.
 */
import type { ClassFile } from '../classfile/classfile.js';
import { parseMethodDescriptor } from '../classfile/descriptor.js';
import { CONSTANT, type MemberInfo } from '../classfile/model.js';
import { isLabel, type Frame, type Insn, type MethodCode, type VType } from './ir.js';
import { NEWARRAY_TYPES, OP, OPCODE_NAMES, isUnconditionalTransfer } from './opcodes.js';
import { expandLocals, initialLocalEntries, isCategory2, vtypeOfClassName, vtypeOfField } from './vtypes.js';

/** The frame in effect just before `code.nodes[nodeIndex]`. Throws Error when it cannot be inferred. */
export function frameBefore(cf: ClassFile, method: MemberInfo, code: MethodCode, nodeIndex: number): Frame {
  const nodes = code.nodes;
  let start = -1;
  let frame: Frame | undefined;
  if (code.frames !== null && code.frames.size > 0) {
    for (let j = Math.min(nodeIndex, nodes.length - 1); j >= 0; j--) {
      const n = nodes[j]!;
      if (isLabel(n)) {
        const f = code.frames.get(n);
        if (f !== undefined) {
          frame = f;
          start = j;
          break;
        }
      }
    }
  }
  const state: Frame =
    frame === undefined
      ? { locals: expandLocals(initialLocalEntries(cf, method)), stack: [] }
      : { locals: frame.locals.slice(), stack: frame.stack.slice() };
  for (let j = start + 1; j < nodeIndex; j++) {
    const n = nodes[j]!;
    if (isLabel(n)) continue;
    if (isUnconditionalTransfer(n.op) || n.op === OP.JSR) {
      throw new Error(
        `frame simulation: ${OPCODE_NAMES[n.op]} at node ${j} precedes node ${nodeIndex} without a stack map frame in between`,
      );
    }
    execute(cf, state, n);
  }
  return state;
}

function pop(s: Frame, n = 1): VType {
  let v: VType | undefined;
  for (let i = 0; i < n; i++) {
    v = s.stack.pop();
    if (v === undefined) throw new Error('frame simulation: operand stack underflow');
  }
  return v!;
}

function setLocal(s: Frame, index: number, v: VType): void {
  const l = s.locals;
  const size = isCategory2(v) ? 2 : 1;
  while (l.length < index + size) l.push('T');
  // Overwriting the second half of a long/double makes the first half unusable.
  if (index > 0 && isCategory2(l[index - 1]!)) l[index - 1] = 'T';
  l[index] = v;
  if (size === 2) l[index + 1] = 'T';
}

function ldcType(cf: ClassFile, index: number): VType {
  const cp = cf.cp;
  switch (cp.tag(index)) {
    case CONSTANT.Integer:
      return 'I';
    case CONSTANT.Float:
      return 'F';
    case CONSTANT.Long:
      return 'J';
    case CONSTANT.Double:
      return 'D';
    case CONSTANT.String:
      return 'Ljava/lang/String;';
    case CONSTANT.Class:
      return 'Ljava/lang/Class;';
    case CONSTANT.MethodType:
      return 'Ljava/lang/invoke/MethodType;';
    case CONSTANT.MethodHandle:
      return 'Ljava/lang/invoke/MethodHandle;';
    case CONSTANT.Dynamic:
      return vtypeOfField(cp.dynamic(index).desc);
    default:
      throw new Error(`frame simulation: ldc of constant pool entry ${index} with tag ${cp.tag(index)}`);
  }
}

const ARITH_TYPES: readonly VType[] = ['I', 'J', 'F', 'D'];
const CONVERSIONS: Readonly<Record<number, VType>> = {
  [OP.I2L]: 'J', [OP.I2F]: 'F', [OP.I2D]: 'D', [OP.L2I]: 'I', [OP.L2F]: 'F', [OP.L2D]: 'D', [OP.F2I]: 'I', [OP.F2L]: 'J',
  [OP.F2D]: 'D', [OP.D2I]: 'I', [OP.D2L]: 'J', [OP.D2F]: 'F', [OP.I2B]: 'I', [OP.I2C]: 'I', [OP.I2S]: 'I',
};

/** Applies one instruction's effect on the type state (JVMS 4.10.1.9), without checking operand types. */
export function execute(cf: ClassFile, s: Frame, insn: Insn): void {
  const op = insn.op;
  const st = s.stack;
  const push = (v: VType): void => {
    st.push(v);
  };
  switch (op) {
    case OP.NOP:
    case OP.IINC:
    case OP.GOTO:
      return;
    case OP.ACONST_NULL:
      return push('N');
    case OP.ICONST_M1: case OP.ICONST_0: case OP.ICONST_1: case OP.ICONST_2: case OP.ICONST_3: case OP.ICONST_4:
    case OP.ICONST_5: case OP.BIPUSH: case OP.SIPUSH:
      return push('I');
    case OP.LCONST_0: case OP.LCONST_1:
      return push('J');
    case OP.FCONST_0: case OP.FCONST_1: case OP.FCONST_2:
      return push('F');
    case OP.DCONST_0: case OP.DCONST_1:
      return push('D');
    case OP.LDC: case OP.LDC_W: case OP.LDC2_W:
      return push(ldcType(cf, insn.cp!));
    case OP.ILOAD:
      return push('I');
    case OP.LLOAD:
      return push('J');
    case OP.FLOAD:
      return push('F');
    case OP.DLOAD:
      return push('D');
    case OP.ALOAD: {
      const v = s.locals[insn.var!];
      if (v === undefined) throw new Error(`frame simulation: aload ${insn.var} of an undefined local`);
      return push(v);
    }
    case OP.IALOAD: case OP.BALOAD: case OP.CALOAD: case OP.SALOAD:
      pop(s, 2);
      return push('I');
    case OP.LALOAD:
      pop(s, 2);
      return push('J');
    case OP.FALOAD:
      pop(s, 2);
      return push('F');
    case OP.DALOAD:
      pop(s, 2);
      return push('D');
    case OP.AALOAD: {
      pop(s);
      const arr = pop(s);
      if (arr === 'N') return push('N');
      if (typeof arr !== 'string' || arr[0] !== '[') throw new Error(`frame simulation: aaload on ${String(arr)}`);
      return push(vtypeOfField(arr.slice(1)));
    }
    case OP.ISTORE: case OP.LSTORE: case OP.FSTORE: case OP.DSTORE: case OP.ASTORE:
      return setLocal(s, insn.var!, pop(s));
    case OP.IASTORE: case OP.LASTORE: case OP.FASTORE: case OP.DASTORE: case OP.AASTORE: case OP.BASTORE:
    case OP.CASTORE: case OP.SASTORE:
      pop(s, 3);
      return;
    case OP.POP:
      pop(s);
      return;
    case OP.POP2:
      if (isCategory2(pop(s))) return;
      pop(s);
      return;
    case OP.DUP: {
      const v = pop(s);
      st.push(v, v);
      return;
    }
    case OP.DUP_X1: {
      const v1 = pop(s);
      const v2 = pop(s);
      st.push(v1, v2, v1);
      return;
    }
    case OP.DUP_X2: {
      const v1 = pop(s);
      const v2 = pop(s);
      if (isCategory2(v2)) {
        st.push(v1, v2, v1);
      } else {
        const v3 = pop(s);
        st.push(v1, v3, v2, v1);
      }
      return;
    }
    case OP.DUP2: {
      const v1 = pop(s);
      if (isCategory2(v1)) {
        st.push(v1, v1);
      } else {
        const v2 = pop(s);
        st.push(v2, v1, v2, v1);
      }
      return;
    }
    case OP.DUP2_X1: {
      const v1 = pop(s);
      if (isCategory2(v1)) {
        const v2 = pop(s);
        st.push(v1, v2, v1);
      } else {
        const v2 = pop(s);
        const v3 = pop(s);
        st.push(v2, v1, v3, v2, v1);
      }
      return;
    }
    case OP.DUP2_X2: {
      const v1 = pop(s);
      if (isCategory2(v1)) {
        const v2 = pop(s);
        if (isCategory2(v2)) {
          st.push(v1, v2, v1);
        } else {
          const v3 = pop(s);
          st.push(v1, v3, v2, v1);
        }
      } else {
        const v2 = pop(s);
        const v3 = pop(s);
        if (isCategory2(v3)) {
          st.push(v2, v1, v3, v2, v1);
        } else {
          const v4 = pop(s);
          st.push(v2, v1, v4, v3, v2, v1);
        }
      }
      return;
    }
    case OP.SWAP: {
      const v1 = pop(s);
      const v2 = pop(s);
      st.push(v1, v2);
      return;
    }
    case OP.INEG: case OP.LNEG: case OP.FNEG: case OP.DNEG:
      return push(pop(s));
    case OP.ISHL: case OP.ISHR: case OP.IUSHR: case OP.IAND: case OP.IOR: case OP.IXOR:
      pop(s, 2);
      return push('I');
    case OP.LSHL: case OP.LSHR: case OP.LUSHR: case OP.LAND: case OP.LOR: case OP.LXOR:
      pop(s, 2);
      return push('J');
    case OP.LCMP: case OP.FCMPL: case OP.FCMPG: case OP.DCMPL: case OP.DCMPG:
      pop(s, 2);
      return push('I');
    case OP.IFEQ: case OP.IFNE: case OP.IFLT: case OP.IFGE: case OP.IFGT: case OP.IFLE: case OP.IFNULL: case OP.IFNONNULL:
    case OP.MONITORENTER: case OP.MONITOREXIT:
      pop(s);
      return;
    case OP.IF_ICMPEQ: case OP.IF_ICMPNE: case OP.IF_ICMPLT: case OP.IF_ICMPGE: case OP.IF_ICMPGT: case OP.IF_ICMPLE:
    case OP.IF_ACMPEQ: case OP.IF_ACMPNE:
      pop(s, 2);
      return;
    case OP.GETSTATIC:
      return push(vtypeOfField(cf.cp.memberRef(insn.cp!).desc));
    case OP.PUTSTATIC:
      pop(s);
      return;
    case OP.GETFIELD:
      pop(s);
      return push(vtypeOfField(cf.cp.memberRef(insn.cp!).desc));
    case OP.PUTFIELD:
      pop(s, 2);
      return;
    case OP.INVOKEVIRTUAL: case OP.INVOKESPECIAL: case OP.INVOKESTATIC: case OP.INVOKEINTERFACE: case OP.INVOKEDYNAMIC: {
      const ref = op === OP.INVOKEDYNAMIC ? cf.cp.dynamic(insn.cp!) : cf.cp.memberRef(insn.cp!);
      const d = parseMethodDescriptor(ref.desc);
      if (d.args.length > 0) pop(s, d.args.length);
      if (op !== OP.INVOKESTATIC && op !== OP.INVOKEDYNAMIC) {
        const receiver = pop(s);
        if (op === OP.INVOKESPECIAL && ref.name === '<init>') {
          let init: VType | undefined;
          if (receiver === 'U') init = vtypeOfClassName(cf.thisClass);
          else if (typeof receiver !== 'string') init = vtypeOfClassName(cf.cp.className(receiver.cp!));
          if (init !== undefined) {
            for (let i = 0; i < s.locals.length; i++) if (s.locals[i] === receiver) s.locals[i] = init;
            for (let i = 0; i < st.length; i++) if (st[i] === receiver) st[i] = init;
          }
        }
      }
      if (d.ret !== 'V') push(vtypeOfField(d.ret));
      return;
    }
    case OP.NEW:
      return push(insn);
    case OP.NEWARRAY: {
      pop(s);
      const t = NEWARRAY_TYPES[insn.n!];
      if (t === undefined) throw new Error(`frame simulation: newarray with atype ${insn.n}`);
      return push('[' + t);
    }
    case OP.ANEWARRAY:
      pop(s);
      return push('[' + vtypeOfClassName(cf.cp.className(insn.cp!)));
    case OP.ARRAYLENGTH: case OP.INSTANCEOF:
      pop(s);
      return push('I');
    case OP.CHECKCAST:
      pop(s);
      return push(vtypeOfClassName(cf.cp.className(insn.cp!)));
    case OP.MULTIANEWARRAY:
      pop(s, insn.n!);
      return push(vtypeOfClassName(cf.cp.className(insn.cp!)));
    default:
      if (op >= OP.IADD && op <= OP.DREM) {
        pop(s, 2);
        return push(ARITH_TYPES[(op - OP.IADD) % 4]!);
      }
      if (CONVERSIONS[op] !== undefined) {
        pop(s);
        return push(CONVERSIONS[op]!);
      }
      throw new Error(`frame simulation: cannot simulate ${OPCODE_NAMES[op] || op}`);
  }
}
