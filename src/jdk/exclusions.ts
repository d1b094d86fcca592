/**
 * The JDK classes and methods that instrument-jdk leaves exactly as they are, each with the reason
 * (README, "Counting the JDK's bytecodes"). Their bytecodes are not counted; calls into them are
 * ordinary call-outs, so what they run is charged to nobody and what they call back (instrumented
 * JDK or application code) continues the caller's context.
 */

export interface Exclusion {
  /** An internal class name, or a package prefix ending in '/' (all classes below it). */
  pattern: string;
  reason: string;
}

export const EXCLUDED: readonly Exclusion[] = [
  { pattern: 'java/lang/Object', reason: 'the root of every class: the VM lays it out and calls its natives itself; an extra method there would be inherited by every class' },
  { pattern: 'java/lang/Class', reason: "the VM's mirror of a class (fields it knows by offset, reflection caches); also caller-sensitive throughout" },
  { pattern: 'java/lang/ClassLoader', reason: 'the class-loading path: the VM calls it while it resolves a class, from any point of the program' },
  { pattern: 'jdk/internal/loader/', reason: 'the class-loading path (the built-in loaders and their class path)' },
  { pattern: 'java/security/SecureClassLoader', reason: 'the class-loading path' },
  { pattern: 'java/lang/System', reason: 'VM start-up (initPhase1-3) runs here before the runtime can exist' },
  { pattern: 'java/lang/Shutdown', reason: 'runs the shutdown hooks, the runtime\'s own that writes the profile among them' },
  { pattern: 'java/lang/ApplicationShutdownHooks', reason: 'runs the shutdown hooks (as Shutdown)' },
  { pattern: 'java/lang/Thread', reason: 'thread start and exit run in the VM\'s own order; currentThread() is what finds the thread context' },
  { pattern: 'java/lang/Thread$', reason: 'Thread internals (its holder, states, builders)' },
  { pattern: 'java/lang/VirtualThread', reason: 'virtual threads mount and unmount in code the VM walks and annotates (JDK 21+)' },
  { pattern: 'java/lang/ThreadLocal', reason: 'the runtime finds each thread\'s context through a ThreadLocal: counting it would recurse' },
  { pattern: 'java/lang/ThreadLocal$', reason: 'ThreadLocalMap, used by the runtime as ThreadLocal' },
  { pattern: 'java/lang/InheritableThreadLocal', reason: 'part of ThreadLocal, copied at thread creation' },
  { pattern: 'java/lang/Throwable', reason: 'the VM drops fillInStackTrace frames from stack traces by name: an extended fillInStackTrace$komorium frame would show in every trace' },
  { pattern: 'java/lang/StackTraceElement', reason: 'built by the VM from frames (stack traces)' },
  { pattern: 'java/lang/StackWalker', reason: 'walks frames by depth and skips by method: instrumented frames would change what it returns' },
  { pattern: 'java/lang/StackStreamFactory', reason: 'StackWalker\'s frame walking (the VM calls into it)' },
  { pattern: 'java/lang/StackFrameInfo', reason: 'StackWalker\'s frames' },
  { pattern: 'java/lang/LiveStackFrame', reason: 'StackWalker\'s frames' },
  { pattern: 'java/lang/ref/', reason: 'Reference.get and refersTo are read with GC barriers the VM gives only to these methods; the Reference Handler runs when the GC says' },
  { pattern: 'java/lang/invoke/', reason: 'method handles, lambda forms and call sites: the VM links and calls them by shape, with hidden frames and signature-polymorphic methods' },
  { pattern: 'sun/invoke/', reason: 'method handle support (as java/lang/invoke)' },
  { pattern: 'jdk/internal/misc/', reason: 'Unsafe, VM (start-up levels), Signal, CDS, ScopedMemoryAccess (the VM looks for its @Scoped frames)' },
  { pattern: 'jdk/internal/vm/', reason: 'continuations and VM annotations: frames the VM walks and freezes' },
  { pattern: 'java/lang/reflect/ReflectAccess', reason: "jdk/internal/reflect's door into java.lang.reflect. Class's search for a constructor (getDeclaredConstructor, newInstance) calls it for each constructor until one matches, in the order HotSpot lists them, which changes from run to run (it sorts a class's methods by the address of their names); every rewritten class has two constructors (the extended one), so that search counted a different number of calls by chance" },
  { pattern: 'jdk/internal/reflect/', reason: 'Reflection.getCallerClass counts frames and needs @CallerSensitive on the frame above it; generated accessors' },
  { pattern: 'jdk/internal/jimage/', reason: 'reads the runtime image for the class-loading path' },
  { pattern: 'jdk/internal/module/', reason: 'module system boot (start-up, before the runtime exists)' },
  { pattern: 'java/lang/Module', reason: 'module system: the VM defines modules and packages through it' },
  { pattern: 'java/lang/ModuleLayer', reason: 'module system boot' },
  { pattern: 'java/lang/module/', reason: 'module system boot (resolution of the boot layer)' },
];

/** Methods carrying these annotations keep their code: the annotation matters and the extended copy would not have it. */
export const KEPT_ANNOTATIONS: readonly { type: string; reason: string }[] = [
  { type: 'Ljdk/internal/reflect/CallerSensitive;', reason: 'Reflection.getCallerClass() must find the caller one frame up, and the VM refuses a frame without this annotation' },
  { type: 'Ljdk/internal/vm/annotation/Hidden;', reason: 'hidden from stack traces and StackWalker; the extended copy would show' },
];

/** Methods of rewritten classes kept as they are (no extended version, not counted), each with the reason. */
export const KEPT_METHODS: readonly { className: string; method: string; reason: string }[] = ['Executable', 'Constructor', 'Method'].map((c) => ({
  className: `java/lang/reflect/${c}`,
  method: 'getSharedParameterTypes()[Ljava/lang/Class;',
  reason: 'what ReflectAccess (left as it is) calls for each constructor or method a search of Class looks at, in an order that changes from run to run',
}));

/** The methods (name + descriptor) of `internalName` that KEPT_METHODS keeps. */
export function keptMethodsOf(internalName: string): string[] {
  return KEPT_METHODS.filter((k) => k.className === internalName).map((k) => k.method);
}

export function exclusionOf(internalName: string): Exclusion | undefined {
  return EXCLUDED.find((e) => (e.pattern.endsWith('/') || e.pattern.endsWith('$') ? internalName.startsWith(e.pattern) : internalName === e.pattern));
}
