/**
 * HotSpot's code-size limits that decide how a rewritten method is compiled (the same on every
 * JVM 8+ on x86_64 and aarch64, and not settable from a class file).
 */

/** HugeMethodLimit: a method of more bytes of bytecode is never JIT-compiled unless -XX:-DontCompileHugeMethods. */
export const HUGE_METHOD_LIMIT = 8000;

/** FreqInlineSize: C2 inlines a callee of at most this many bytes of bytecode at a call site it counts as hot. */
export const FREQ_INLINE_SIZE = 325;

/** MaxInlineSize: a callee of at most this many bytes of bytecode is inlined wherever it ran. */
export const MAX_INLINE_SIZE = 35;
