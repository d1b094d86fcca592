/**
 * The class hierarchy that frame merging and call-site decisions need: the classes being
 * processed, the --classpath (jars and folders), and the running JDK, asked in that order and
 * read lazily, one class at a time. Every name is an internal name (java/lang/String); array
 * types are given in descriptor form ([I, [Ljava/lang/String;), which is their internal name too.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KomoriumError } from '../errors.js';
import { readClassHeader, type HierarchyClass, type HierarchyMethod } from './class-header.js';
import { findJavaHome, openJdk, type JdkClassSource } from './jdk.js';
import { ZipIndex } from '../jar/zip-index.js';
import { javaName } from '../classfile/names.js';
import { ACC } from '../classfile/model.js';

export type { HierarchyClass, HierarchyMethod } from './class-header.js';

const OBJECT = 'java/lang/Object';

/**
 * A question about the hierarchy needed a class that no source has. Callers that know the
 * context (class, method, what for) turn it into an UnresolvedTypeError.
 */
export class MissingClassError extends KomoriumError {
  override name = 'MissingClassError';
  constructor(readonly missingClass: string) {
    super(`class ${javaName(missingClass)} is neither in the input nor on the --classpath nor in the JDK`);
  }
}

/** The shape of a parsed ClassFile that the hierarchy reads (ClassFile satisfies it). */
export interface ClassFileLike {
  thisClass: string;
  superClass: string | null;
  interfaces: string[];
  access: number;
  methods: readonly { name: string; desc: string; access: number }[];
  fields?: readonly { name: string; desc: string; access: number }[];
}

export interface ResolvedMethod {
  /** The class or interface that declares the selected method. */
  declaringClass: string;
  access: number;
  /** The declaring class is an interface (a default, abstract or static interface method). */
  fromInterface: boolean;
  missing?: undefined;
}

/**
 * Resolution failed: `missing` names the first class on the way that no source has (the answer
 * is then unknown), or is null when every class was there and none declares the method (or the
 * reference is of the wrong kind), which would be a NoSuchMethodError/IncompatibleClassChangeError.
 */
export interface UnresolvedMethod {
  declaringClass: null;
  missing: string | null;
}

export type MethodResolution = ResolvedMethod | UnresolvedMethod;

export interface ClassHierarchyOptions {
  /** Jars and class folders, searched in order after the input classes. */
  classpath?: string[];
  /** java.home of the JDK whose classes to use; undefined finds the running one; false uses none. */
  jdk?: string | false;
  /** Where `jimage extract` results are cached when lib/modules cannot be read directly. */
  cacheDir?: string;
}

interface ClasspathSource {
  path: string;
  read(entryName: string): Uint8Array | null;
  close(): void;
}

export class ClassHierarchy {
  private readonly input = new Map<string, HierarchyClass>();
  private readonly cache = new Map<string, HierarchyClass | null>();
  private readonly classpath: ClasspathSource[] = [];
  private jdk: JdkClassSource | null | undefined;
  private readonly missingNames = new Set<string>();
  private readonly interfacesCache = new Map<string, string[]>();

  constructor(private readonly options: ClassHierarchyOptions = {}) {
    for (const p of options.classpath ?? []) {
      if (!existsSync(p)) throw new KomoriumError(`--classpath element ${p} does not exist`);
      if (statSync(p).isDirectory()) {
        this.classpath.push({
          path: p,
          read: (e) => {
            const f = join(p, e);
            return existsSync(f) ? readFileSync(f) : null;
          },
          close: () => {},
        });
      } else {
        const zip = new ZipIndex(p);
        this.classpath.push({ path: p, read: (e) => zip.read(e), close: () => zip.close() });
      }
    }
    if (options.jdk === false) this.jdk = null;
  }

  /** The JDK class source, opened on first use (undefined options.jdk: the running JDK). */
  get jdkSource(): JdkClassSource | null {
    if (this.jdk === undefined) {
      const home = typeof this.options.jdk === 'string' ? this.options.jdk : findJavaHome();
      this.jdk = home === null ? null : openJdk(home, this.options.cacheDir);
      if (this.jdk === null && typeof this.options.jdk === 'string') {
        throw new KomoriumError(`${this.options.jdk} holds neither lib/modules nor lib/rt.jar`);
      }
    }
    return this.jdk;
  }

  close(): void {
    for (const s of this.classpath) s.close();
    this.jdk?.close();
  }

  /** Registers a class being processed; it takes precedence over the classpath and the JDK. */
  addClass(cf: ClassFileLike): void {
    const info: HierarchyClass = {
      name: cf.thisClass,
      superName: cf.superClass,
      interfaces: [...cf.interfaces],
      isInterface: (cf.access & 0x0200) !== 0,
      access: cf.access,
      methods: cf.methods.map((m) => ({ name: m.name, desc: m.desc, access: m.access })),
      fields: (cf.fields ?? []).map((f) => ({ name: f.name, desc: f.desc, access: f.access })),
      source: 'input',
    };
    this.input.set(info.name, info);
    this.cache.delete(info.name);
    this.interfacesCache.clear();
  }

  /** Registers class bytes (e.g. an input class that is not rewritten) without a full parse. */
  addClassBytes(bytes: Uint8Array, entry: string): HierarchyClass {
    const info = readClassHeader(bytes, entry, 'input');
    this.input.set(info.name, info);
    this.cache.delete(info.name);
    this.interfacesCache.clear();
    return info;
  }

  /** Names that were asked for and found nowhere, sorted. */
  get missing(): string[] {
    return [...this.missingNames].sort();
  }

  lookup(name: string): HierarchyClass | null {
    const hit = this.input.get(name);
    if (hit !== undefined) return hit;
    let info = this.cache.get(name);
    if (info !== undefined) return info;
    info = null;
    if (!name.startsWith('[')) {
      const entry = `${name}.class`;
      for (const src of this.classpath) {
        const bytes = src.read(entry);
        if (bytes !== null) {
          info = readClassHeader(bytes, `${src.path}!${entry}`, src.path);
          break;
        }
      }
      if (info === null) {
        const jdk = this.jdkSource;
        const bytes = jdk?.readClass(name) ?? null;
        if (bytes !== null) info = readClassHeader(bytes, `${jdk!.description}: ${entry}`, 'jdk');
      }
    }
    if (info === null) this.missingNames.add(name);
    this.cache.set(name, info);
    return info;
  }

  /** lookup, or MissingClassError. */
  require(name: string): HierarchyClass {
    const info = this.lookup(name);
    if (info === null) throw new MissingClassError(name);
    return info;
  }

  isInterface(name: string): boolean {
    if (name.startsWith('[')) return false;
    return this.require(name).isInterface;
  }

  /** [name, its superclass, …, java/lang/Object]. Arrays: [array, java/lang/Object]. */
  superChain(name: string): string[] {
    if (name.startsWith('[')) return [name, OBJECT];
    const chain: string[] = [];
    for (let c: string | null = name; c !== null; c = this.require(c).superName) {
      if (chain.includes(c)) throw new KomoriumError(`class hierarchy cycle at ${javaName(c)}`);
      chain.push(c);
    }
    return chain;
  }

  /** `sub` is `sup` or extends it (classes only; interfaces are not followed). */
  isSubclassOf(sub: string, sup: string): boolean {
    if (sub === sup || sup === OBJECT) return true;
    if (sub.startsWith('[')) return false;
    let steps = 0;
    for (let c = this.require(sub).superName; c !== null; c = this.require(c).superName) {
      if (c === sup) return true;
      if (++steps > MAX_DEPTH) throw cycleAt(sub);
    }
    return false;
  }

  /** Every interface that `name` implements or extends, directly or not (including its superclasses'). */
  allInterfaces(name: string): string[] {
    const cached = this.interfacesCache.get(name);
    if (cached !== undefined) return cached;
    const out = new Set<string>();
    const visited = new Set<string>();
    const visit = (c: string) => {
      if (visited.has(c)) return; // a class reached twice, or a cycle (which the JVM refuses to load)
      visited.add(c);
      const info = this.require(c);
      for (const i of info.interfaces) {
        if (!out.has(i)) {
          out.add(i);
          visit(i);
        }
      }
      if (info.superName !== null) visit(info.superName);
    };
    if (name.startsWith('[')) {
      out.add('java/lang/Cloneable');
      out.add('java/io/Serializable');
    } else visit(name);
    const result = [...out];
    this.interfacesCache.set(name, result);
    return result;
  }

  /** Java assignability of reference types (JLS 5.2 widening): classes, interfaces and arrays. */
  isAssignable(from: string, to: string): boolean {
    if (from === to || to === OBJECT) return true;
    if (from.startsWith('[')) {
      if (to.startsWith('[')) {
        const ef = from.substring(1);
        const et = to.substring(1);
        if (isPrimitiveDesc(ef) || isPrimitiveDesc(et)) return ef === et;
        return this.isAssignable(internalOf(ef), internalOf(et));
      }
      return to === 'java/lang/Cloneable' || to === 'java/io/Serializable';
    }
    if (to.startsWith('[')) return false;
    if (this.isInterface(to)) return this.allInterfaces(from).includes(to);
    return this.isSubclassOf(from, to);
  }

  /**
   * The least common superclass as the bytecode verifier sees it (JVMS 4.10.1.2): interfaces count
   * as java/lang/Object; arrays of references merge element-wise; other arrays meet at Object.
   * Throws MissingClassError naming the class that is needed and absent.
   */
  commonSuperclass(a: string, b: string): string {
    if (a === b) return a;
    if (a === OBJECT || b === OBJECT) return OBJECT;
    const aArr = a.startsWith('[');
    const bArr = b.startsWith('[');
    if (aArr || bArr) {
      if (!(aArr && bArr)) return OBJECT;
      const ea = a.substring(1);
      const eb = b.substring(1);
      if (isPrimitiveDesc(ea) || isPrimitiveDesc(eb)) return OBJECT;
      const e = this.commonSuperclass(internalOf(ea), internalOf(eb));
      return '[' + (e.startsWith('[') ? e : `L${e};`);
    }
    // Walk b's chain first: when b extends a, a's own ancestry is never needed.
    const bChain: string[] = [];
    for (let c: string | null = b; c !== null; c = this.require(c).superName) {
      if (c === a) return this.require(a).isInterface ? OBJECT : a;
      bChain.push(c);
      if (bChain.length > MAX_DEPTH) throw cycleAt(b);
    }
    if (this.require(a).isInterface || this.require(b).isInterface) return OBJECT;
    const bSet = new Set(bChain);
    for (const c of this.superChain(a)) if (bSet.has(c)) return c;
    return OBJECT;
  }

  /**
   * Method resolution: JVMS 5.4.3.3 for a Methodref (`isInterfaceRef` false) and 5.4.3.4 for an
   * InterfaceMethodref. Array owners resolve in java/lang/Object (where clone() is the array's).
   */
  resolveMethod(owner: string, name: string, desc: string, isInterfaceRef: boolean): MethodResolution {
    try {
      return this.resolve(owner, name, desc, isInterfaceRef);
    } catch (e) {
      if (e instanceof MissingClassError) return { declaringClass: null, missing: e.missingClass };
      throw e;
    }
  }

  private resolve(owner: string, name: string, desc: string, isInterfaceRef: boolean): MethodResolution {
    const notFound: UnresolvedMethod = { declaringClass: null, missing: null };
    if (owner.startsWith('[')) owner = OBJECT;
    const c = this.require(owner);
    if (c.isInterface !== isInterfaceRef) return notFound; // IncompatibleClassChangeError
    if (!isInterfaceRef) {
      // Step 2: C and its superclasses, including signature-polymorphic methods.
      let steps = 0;
      for (let k: HierarchyClass | null = c; k !== null; k = k.superName === null ? null : this.require(k.superName)) {
        if (++steps > MAX_DEPTH) throw cycleAt(owner);
        const poly = signaturePolymorphic(k, name);
        if (poly !== undefined) return found(k, poly);
        const m = k.methods.find((x) => x.name === name && x.desc === desc);
        if (m !== undefined) return found(k, m);
      }
      // Step 3: the maximally-specific superinterface methods.
      return this.maximallySpecific(owner, name, desc) ?? notFound;
    }
    const own = c.methods.find((x) => x.name === name && x.desc === desc);
    if (own !== undefined) return found(c, own);
    const obj = this.require(OBJECT);
    const om = obj.methods.find((x) => x.name === name && x.desc === desc);
    if (om !== undefined && (om.access & ACC.PUBLIC) !== 0 && (om.access & ACC.STATIC) === 0) return found(obj, om);
    return this.maximallySpecific(owner, name, desc) ?? notFound;
  }

  /**
   * Field resolution (JVMS 5.4.3.2): the class that declares the field a Fieldref names, looking
   * in the named class, then its superinterfaces, then its superclass. Null when it is not found
   * or a class on the way is missing.
   */
  resolveField(owner: string, name: string, desc: string): string | null {
    try {
      return this.fieldIn(owner, name, desc, 0);
    } catch (e) {
      if (e instanceof MissingClassError) return null;
      throw e;
    }
  }

  private fieldIn(owner: string, name: string, desc: string, depth: number): string | null {
    if (depth > MAX_DEPTH) throw cycleAt(owner);
    const c = this.require(owner);
    if (c.fields.some((f) => f.name === name && f.desc === desc)) return c.name;
    for (const i of c.interfaces) {
      const hit = this.fieldIn(i, name, desc, depth + 1);
      if (hit !== null) return hit;
    }
    return c.superName === null ? null : this.fieldIn(c.superName, name, desc, depth + 1);
  }

  /**
   * JVMS 5.4.3.3 step 3 / 5.4.3.4 steps 4-5: among the non-private, non-static methods of the
   * superinterfaces, the maximally-specific ones (no candidate in a subinterface of its class);
   * exactly one non-abstract of those wins, else any candidate (the JVM picks an arbitrary one;
   * we prefer a maximally-specific one so that the answer is stable).
   */
  private maximallySpecific(owner: string, name: string, desc: string): ResolvedMethod | null {
    const candidates: { cls: HierarchyClass; m: HierarchyMethod }[] = [];
    for (const i of this.allInterfaces(owner)) {
      const info = this.require(i);
      const m = info.methods.find((x) => x.name === name && x.desc === desc);
      if (m !== undefined && (m.access & (ACC.PRIVATE | ACC.STATIC)) === 0) candidates.push({ cls: info, m });
    }
    if (candidates.length === 0) return null;
    const maximal = candidates.filter(
      (c) => !candidates.some((o) => o !== c && o.cls.name !== c.cls.name && this.allInterfaces(o.cls.name).includes(c.cls.name)),
    );
    const concrete = maximal.filter((c) => (c.m.access & ACC.ABSTRACT) === 0);
    const pick = concrete.length === 1 ? concrete[0]! : (maximal[0] ?? candidates[0]!);
    return found(pick.cls, pick.m);
  }
}

/** More superclasses than this means a cycle (a broken input; the JVM refuses to load it). */
const MAX_DEPTH = 1000;

function cycleAt(name: string): KomoriumError {
  return new KomoriumError(`class hierarchy cycle at ${javaName(name)}`);
}

function found(cls: HierarchyClass, m: HierarchyMethod): ResolvedMethod {
  return { declaringClass: cls.name, access: m.access, fromInterface: cls.isInterface };
}

/** JVMS 2.9.3: a native varargs method of MethodHandle/VarHandle taking Object[] is found by name alone. */
function signaturePolymorphic(k: HierarchyClass, name: string): HierarchyMethod | undefined {
  if (k.name !== 'java/lang/invoke/MethodHandle' && k.name !== 'java/lang/invoke/VarHandle') return undefined;
  const ms = k.methods.filter((x) => x.name === name);
  if (ms.length !== 1) return undefined;
  const m = ms[0]!;
  const flags = ACC.NATIVE | ACC.VARARGS;
  return (m.access & flags) === flags && m.desc.startsWith('([Ljava/lang/Object;)') ? m : undefined;
}

function isPrimitiveDesc(d: string): boolean {
  return d.length === 1;
}

/** Element descriptor → internal name: Ljava/lang/String; → java/lang/String, arrays stay. */
function internalOf(desc: string): string {
  return desc.startsWith('L') ? desc.substring(1, desc.length - 1) : desc;
}
