// The class hierarchy: the running JDK read straight from lib/modules (jimage), --classpath jars,
// input classes, JVMS 5.4.3.3/5.4.3.4 method resolution and the verifier's common superclass.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClassHierarchy, MissingClassError } from '../src/hierarchy/hierarchy.js';
import { findJavaHome, openJdk } from '../src/hierarchy/jdk.js';
import { JImage } from '../src/hierarchy/jimage.js';
import { debianJar, javaBaseClassesDir, javaHome, secondJdkHome } from './support/corpus.js';

const h = new ClassHierarchy();
afterAll(() => h.close());

describe('JDK classes from lib/modules', () => {
  it('finds the running JDK and reads it as a jimage', () => {
    const home = findJavaHome();
    expect(home, 'no JDK found (JAVA_HOME or java on PATH)').not.toBeNull();
    expect(h.jdkSource!.description).toMatch(/lib\/modules \(jimage 1\.0, JDK /);
    const s = h.lookup('java/lang/String')!;
    expect(s.superName).toBe('java/lang/Object');
    expect(s.isInterface).toBe(false);
    expect(s.interfaces).toContain('java/lang/CharSequence');
    expect(s.source).toBe('jdk');
    expect(h.lookup('java/util/List')!.isInterface).toBe(true);
    // Classes of other modules (the package → module map comes from /packages/<pkg>).
    expect(h.lookup('java/sql/Connection')!.isInterface).toBe(true);
    expect(h.lookup('javax/swing/JFrame')!.superName).toBe('java/awt/Frame');
  });

  it('gives the same bytes as `jimage extract` (java.base)', () => {
    const dir = javaBaseClassesDir();
    const image = new JImage(join(javaHome(), 'lib', 'modules'));
    try {
      for (const n of ['java/lang/Object', 'java/util/HashMap', 'java/util/concurrent/ConcurrentHashMap$Node', 'java/lang/invoke/MethodHandle']) {
        const viaImage = image.readClass(n);
        expect(viaImage, n).not.toBeNull();
        expect(Buffer.compare(Buffer.from(viaImage!), readFileSync(join(dir, `${n}.class`))), n).toBe(0);
      }
      expect(image.readClass('java/lang/NoSuchClass')).toBeNull();
    } finally {
      image.close();
    }
  });

  it('looks a JDK class up in well under a millisecond', () => {
    const fresh = new ClassHierarchy();
    const names = ['java/util/ArrayList', 'java/util/HashMap', 'java/util/TreeMap', 'java/util/concurrent/ConcurrentHashMap',
      'java/io/BufferedReader', 'java/net/URI', 'java/time/LocalDate', 'java/util/stream/Collectors', 'java/lang/Thread',
      'java/util/regex/Pattern'];
    fresh.lookup('java/lang/Object'); // opens the image
    const t0 = performance.now();
    for (const n of names) expect(fresh.lookup(n), n).not.toBeNull();
    const perClass = (performance.now() - t0) / names.length;
    console.log(`JDK class lookup: ${perClass.toFixed(3)} ms per class (${fresh.jdkSource!.description})`);
    // Generous for loaded CI machines; a JVM start per class would be 100+ ms.
    expect(perClass).toBeLessThan(20);
    fresh.close();
  });

  it('reads a second, newer JDK image if the machine has one', () => {
    const second = secondJdkHome();
    if (second === null) return; // optional by design (see corpus.ts)
    const jdk = openJdk(second)!;
    expect(jdk.description).toMatch(/jimage/);
    expect(jdk.readClass('java/lang/Record')).not.toBeNull();
    jdk.close();
  });

  it('reads a JDK 8 layout (jre/lib/rt.jar) as a jar', () => {
    const home = mkdtempSync(join(tmpdir(), 'komorium-jdk8-'));
    try {
      mkdirSync(join(home, 'jre', 'lib'), { recursive: true });
      copyFileSync(debianJar('commons-lang3'), join(home, 'jre', 'lib', 'rt.jar'));
      const hh = new ClassHierarchy({ jdk: home });
      expect(hh.jdkSource!.description).toMatch(/rt\.jar/);
      expect(hh.lookup('org/apache/commons/lang3/StringUtils')!.superName).toBe('java/lang/Object');
      hh.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('method resolution (JVMS 5.4.3.3, 5.4.3.4)', () => {
  it('resolves class methods in the class and its superclasses', () => {
    expect(h.resolveMethod('java/util/ArrayList', 'add', '(Ljava/lang/Object;)Z', false)).toEqual({
      declaringClass: 'java/util/ArrayList', access: expect.any(Number), fromInterface: false,
    });
    expect(h.resolveMethod('java/lang/String', 'length', '()I', false).declaringClass).toBe('java/lang/String');
    expect(h.resolveMethod('java/util/ArrayList', 'toString', '()Ljava/lang/String;', false).declaringClass).toBe('java/util/AbstractCollection');
    expect(h.resolveMethod('java/util/ArrayList', 'notify', '()V', false).declaringClass).toBe('java/lang/Object');
  });

  it('falls back to maximally-specific superinterface methods (defaults)', () => {
    const r = h.resolveMethod('java/util/ArrayList', 'stream', '()Ljava/util/stream/Stream;', false);
    expect(r).toMatchObject({ declaringClass: 'java/util/Collection', fromInterface: true });
    // ArrayList overrides Iterable.forEach; LinkedList inherits the default.
    expect(h.resolveMethod('java/util/LinkedList', 'forEach', '(Ljava/util/function/Consumer;)V', false).declaringClass).toBe('java/lang/Iterable');
  });

  it('resolves interface methods: the interface, public Object methods, superinterfaces', () => {
    expect(h.resolveMethod('java/util/List', 'size', '()I', true).declaringClass).toBe('java/util/List');
    expect(h.resolveMethod('java/util/function/Function', 'toString', '()Ljava/lang/String;', true).declaringClass).toBe('java/lang/Object');
    expect(h.resolveMethod('java/util/List', 'forEach', '(Ljava/util/function/Consumer;)V', true)).toMatchObject({
      declaringClass: 'java/lang/Iterable', fromInterface: true,
    });
    // Object.clone is protected, so it is not found through an interface.
    expect(h.resolveMethod('java/util/List', 'clone', '()Ljava/lang/Object;', true)).toEqual({ declaringClass: null, missing: null });
  });

  it('resolves signature-polymorphic methods by name', () => {
    expect(h.resolveMethod('java/lang/invoke/MethodHandle', 'invokeExact', '(Ljava/lang/String;I)V', false).declaringClass)
      .toBe('java/lang/invoke/MethodHandle');
  });

  it('wrong kind of reference and unknown methods resolve to nothing; arrays to Object', () => {
    expect(h.resolveMethod('java/util/List', 'size', '()I', false)).toEqual({ declaringClass: null, missing: null });
    expect(h.resolveMethod('java/lang/String', 'noSuchMethod', '()V', false)).toEqual({ declaringClass: null, missing: null });
    expect(h.resolveMethod('[Ljava/lang/String;', 'clone', '()Ljava/lang/Object;', false).declaringClass).toBe('java/lang/Object');
  });

  it('names the missing class when resolution cannot finish', () => {
    const hh = new ClassHierarchy();
    hh.addClass({ thisClass: 'app/Sub', superClass: 'lib/Base', interfaces: [], access: 0x21, methods: [{ name: 'own', desc: '()V', access: 1 }] });
    expect(hh.resolveMethod('app/Sub', 'own', '()V', false).declaringClass).toBe('app/Sub');
    expect(hh.resolveMethod('app/Sub', 'inherited', '()V', false)).toEqual({ declaringClass: null, missing: 'lib/Base' });
    expect(hh.missing).toEqual(['lib/Base']);
    hh.close();
  });

  it('input classes take precedence and inherit from the JDK', () => {
    const hh = new ClassHierarchy();
    hh.addClass({ thisClass: 'app/MyList', superClass: 'java/util/ArrayList', interfaces: [], access: 0x21,
      methods: [{ name: 'size', desc: '()I', access: 1 }] });
    expect(hh.resolveMethod('app/MyList', 'size', '()I', false).declaringClass).toBe('app/MyList');
    expect(hh.resolveMethod('app/MyList', 'add', '(Ljava/lang/Object;)Z', false).declaringClass).toBe('java/util/ArrayList');
    expect(hh.lookup('app/MyList')!.source).toBe('input');
    hh.close();
  });
});

describe('subtyping and common superclasses', () => {
  it('commonSuperclass follows the verifier (interfaces are Object, arrays element-wise)', () => {
    expect(h.commonSuperclass('java/lang/Integer', 'java/lang/Long')).toBe('java/lang/Number');
    expect(h.commonSuperclass('java/util/ArrayList', 'java/util/LinkedList')).toBe('java/util/AbstractList');
    expect(h.commonSuperclass('java/util/ArrayList', 'java/util/AbstractList')).toBe('java/util/AbstractList');
    expect(h.commonSuperclass('java/lang/String', 'java/lang/Integer')).toBe('java/lang/Object');
    expect(h.commonSuperclass('java/util/List', 'java/util/ArrayList')).toBe('java/lang/Object');
    expect(h.commonSuperclass('[Ljava/lang/Integer;', '[Ljava/lang/Long;')).toBe('[Ljava/lang/Number;');
    expect(h.commonSuperclass('[[I', '[[J')).toBe('[Ljava/lang/Object;');
    expect(h.commonSuperclass('[I', '[J')).toBe('java/lang/Object');
    expect(h.commonSuperclass('[I', 'java/lang/String')).toBe('java/lang/Object');
  });

  it('isAssignable is Java subtyping', () => {
    expect(h.isAssignable('java/util/ArrayList', 'java/util/List')).toBe(true);
    expect(h.isAssignable('java/util/ArrayList', 'java/util/Map')).toBe(false);
    expect(h.isAssignable('[Ljava/lang/String;', '[Ljava/lang/Object;')).toBe(true);
    expect(h.isAssignable('[Ljava/lang/String;', '[Ljava/lang/CharSequence;')).toBe(true);
    expect(h.isAssignable('[I', 'java/lang/Cloneable')).toBe(true);
    expect(h.isAssignable('[I', '[J')).toBe(false);
    expect(h.isSubclassOf('java/lang/Integer', 'java/lang/Number')).toBe(true);
    expect(h.superChain('java/util/ArrayList')).toEqual(['java/util/ArrayList', 'java/util/AbstractList', 'java/util/AbstractCollection', 'java/lang/Object']);
  });

  it('throws MissingClassError naming the absent class', () => {
    const hh = new ClassHierarchy();
    hh.addClass({ thisClass: 'app/A', superClass: 'lib/Gone', interfaces: [], access: 0x21, methods: [] });
    expect(() => hh.commonSuperclass('app/A', 'java/lang/Integer')).toThrow(MissingClassError);
    try {
      hh.commonSuperclass('app/A', 'java/lang/Integer');
    } catch (e) {
      expect((e as MissingClassError).missingClass).toBe('lib/Gone');
    }
    // No lookup is needed when one class is an ancestor of the other on the chain walked first.
    hh.addClass({ thisClass: 'app/B', superClass: 'app/A', interfaces: [], access: 0x21, methods: [] });
    expect(hh.commonSuperclass('app/A', 'app/B')).toBe('app/A');
    hh.close();
  });
});

describe('--classpath', () => {
  it('reads classes lazily from jars', () => {
    const hh = new ClassHierarchy({ classpath: [debianJar('guava')] });
    const info = hh.lookup('com/google/common/collect/ImmutableList')!;
    expect(info.superName).toBe('com/google/common/collect/ImmutableCollection');
    expect(info.source).toBe(debianJar('guava'));
    expect(hh.commonSuperclass('com/google/common/collect/ImmutableList', 'com/google/common/collect/ImmutableSet'))
      .toBe('com/google/common/collect/ImmutableCollection');
    expect(hh.resolveMethod('com/google/common/collect/ImmutableList', 'isEmpty', '()Z', false).declaringClass)
      .toBe('java/util/AbstractCollection');
    hh.close();
  });

  it('rejects a classpath element that does not exist', () => {
    expect(() => new ClassHierarchy({ classpath: ['/nonexistent.jar'] })).toThrow(/does not exist/);
  });

  it('class folders work too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'komorium-cp-'));
    try {
      const base = javaBaseClassesDir();
      mkdirSync(join(dir, 'java', 'lang'), { recursive: true });
      copyFileSync(join(base, 'java/lang/Integer.class'), join(dir, 'java/lang/Integer.class'));
      const hh = new ClassHierarchy({ classpath: [dir], jdk: false });
      expect(existsSync(join(dir, 'java/lang/Integer.class'))).toBe(true);
      expect(hh.lookup('java/lang/Integer')!.superName).toBe('java/lang/Number');
      expect(hh.lookup('java/lang/Number')).toBeNull();
      expect(hh.missing).toEqual(['java/lang/Number']);
      hh.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
