// The section of BENCHMARKS-hps.md that says where the software counters' basic overhead goes and
// what was tried for it (2026-11-27, branch hps-six), after issue 20's findings on the CBS check
// (BENCHMARKS-cbs.md "Where the CPU went"). Its figures come from runs outside hps.mjs (per-thread
// CPU, code cache, PrintInlining, A/B runs of jars built by main and by the branch), so they are
// kept here as written, with the commands that gave them, and not recomputed from bench-hps.json.

export function whereTheBasicOverheadGoes() {
  return [
    '## Where the basic overhead goes, and what was tried (2026-11-27)',
    '',
    'hot-methods with the software counters (`--trigger burst-counter`); basic: `-Dkomorium.burst.sparsity=2147483647 -Dkomorium.burst.length=1` (no burst ever), total: sparsity 999, length 1 (1/1000, burst 1). Measured on 2 cores shared with other sessions\' benches and sweeps at load averages of 17 to 42, CPU time (user + system of every thread of the JVM), the configurations interleaved and rotated every repetition, medians of 5. CPU per thread at exit: a wrapper main whose shutdown hook reads /proc/self/task/*/stat (C2 and C1 compiler threads, the program thread, GC); C2\'s code: `used` of the code heap \'non-profiled nmethods\' at exit (`-XX:+PrintCodeCache`). "before": jars instrumented by main (b449c3e); "after": by this branch. Each A/B is a batch of its own; between batches the uninstrumented run moved by up to 15% (JFlex 2.78 to 3.22 s), so compare within a row only.',
    '',
    '### The breakdown',
    '',
    '| workload (batch) | configuration | CPU | × | program thread | C2 | C1 | C2 code |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    '| jflex (1) | uninstrumented | 3.22 s | | 1.34 s | 1.52 s | 0.23 s | 548 KB |',
    '| jflex (1) | basic | 4.02 s | 1.25× | 1.92 s | 1.70 s | 0.29 s | 624 KB |',
    '| jflex (1) | total, 1/1000 | 4.80 s | 1.49× | 2.11 s | 2.10 s | 0.37 s | 784 KB |',
    '| rhino (1) | uninstrumented | 7.60 s | | 4.12 s | 3.06 s | 0.46 s | 1,120 KB |',
    '| rhino (1) | basic | 8.02 s | 1.06× | 4.50 s | 3.06 s | 0.51 s | 1,121 KB |',
    '| rhino (1) | total, 1/1000 | 10.83 s | 1.43× | 5.15 s | 4.77 s | 0.56 s | 1,675 KB |',
    '',
    '- **Where.** JFlex (2.8–3.2 s of CPU, half of it the JIT\'s) pays its basic overhead in the program thread (+0.6 s: the checks run by the interpreter and C1\'s tier-3 code, and compiled code that inlines less) and in C2 (+0.2 s, 14% more code). Rhino pays 6%, nearly all in the program thread. What the total adds over the basic run is C2 (JFlex +0.4 s, Rhino +1.7 s) and its code (+26%, +49%): a check whose counter ran out while its method was profiled has its slow path compiled in (the call of take(), the arrays carrying the locals, the call of the twin), as issue 20 found for CBS.',
    '- **The check** (`javap -c`, the counters): `getstatic Burst.counter; iconst_1; isub; dup; putstatic Burst.counter; ifgt; invokestatic Burst.take; ifne`, 18 bytes at every method entry and at every loop head (one check per loop head, shared by its backedges), and in a method without loops the stub that calls the twin (`aload` of each argument, `iconst_0; aconst_null; aconst_null; invokestatic …$sample$komorium; ireturn`, 8 bytes and the arguments). A 10-byte getter (JFlex\'s `IntCharSet.numIntervals`) becomes 36 bytes, past MaxInlineSize (35): C1 no longer inlines it, C2 only where it is hot. Of JFlex\'s 357 methods of at most 35 bytes, 226 crossed it; of Rhino\'s 4,007, 2,568.',
    '- **HugeMethodLimit.** No method crosses it. For a method HotSpot compiles, the sampled layouts are held to 8,000 bytes (class-transform.ts, attemptsFor: full-dup with its copy in a twin, then in line, partial-dup, no-dup, else the method stays as it was), and since ae01d5f a loop head has one check however many backedges reach it. Rhino\'s `Interpreter.interpretLoop` goes from 6,791 to 7,886 bytes (hot-methods, call-pairs and data-streams alike; its twin, 19,326 to 23,828 bytes, is never compiled and runs only during a burst, from a loop head to the next). `instrument` reports no method left as it was and none past the limit for js.jar under the three kinds, and no method of jflex.jar crosses 8,000. What CBS had to add (full-dup with a twin for such a method) the burst triggers have by construction.',
    '',
    '### What was tried, each measured interleaved',
    '',
    '| change | JFlex | Rhino | kept |',
    '| --- | --- | --- | --- |',
    '| `Burst.take()`, the slow path of every check, kept out of line: a block that never runs holds it above FreqInlineSize (78 → 462 bytes; test/hps.test.ts checks both sizes) | total 4.80 → 4.86 s (5, uninstrumented 3.22): no difference | total 10.83 → 9.78 s, C2 4.77 → 3.92 s (5, uninstrumented 7.60); the runs overlap (8.15–11.32 against 8.65–12.33) | yes: it can only remove code from the compiled checks, and Rhino\'s C2 time fell with it |',
    '| the check as one call of `Burst.tick()` (`invokestatic; ifne`, 6 bytes instead of 18), which C1 and C2 inline (`KOMORIUM_CHECK_FORM=call`): 85 instead of 226 of JFlex\'s small methods cross MaxInlineSize, 1,271 instead of 2,568 of Rhino\'s | basic 1.42× → 1.13× (5, uninstrumented 3.14) and 1.49× → 1.20× (5, 2.78), the program thread 2.19 → 1.63 s; total 1.72× → 1.79× (first batch) | basic 1.06× → 1.23× (5, 7.60), total 1.29× → 1.42×: C2 counts every inlined tick() against its inlining budget, and in interpretLoop\'s OSR compilations three loop-head checks stayed calls (`-XX:+PrintInlining`: "size > DesiredMethodLimit", "NodeCountInliningCutoff") | no: it halves JFlex\'s basic overhead and costs Rhino more than it saves, and the totals rise on both |',
    '| the call only in methods C2 may inline (at most 325 bytes before the checks), the decrement written out in larger ones | basic 1.49× → 1.35× (call 1.20×); total 1.56× → 1.96× (5, 2.78) | basic 0.99× → 1.17×, total 1.24× → 1.25× (5, uninstrumented 7.36) | no: Rhino\'s loss is not its interpreter loop alone, and JFlex\'s total rises |',
    '',
    'What is left: the counters\' load, decrement and store at every entry and loop head, which C2 cannot drop (the store is a side effect every check must make) and which grow every method by 18 bytes, enough to stop the inlining of small methods; and, once bursts run, the slow paths compiled at every check that ran out during profiling. At this load the basic overhead measured 1.25–1.49× on JFlex and 0.99–1.06× on Rhino (two batches of 5) against the 1.03× target; a check as a call brings JFlex to 1.13–1.20× and takes Rhino to 1.23×. None of this reaches the paper\'s zero: without DISE every check is code in the method.',
    '',
    '### The indy check as a method-handle constant (2026-11-28, not kept)',
    '',
    'burst-indy costs 1.12× never armed (above). HotSpot runs the bootstrap method once per invokedynamic instruction, so every check of a class is linked on its own; a check written `getstatic BurstIndy.ARMED; invokevirtual MethodHandle.invokeExact()Z`, `ARMED` a `static final` holding the call site\'s `dynamicInvoker()`, is linked once per class and folded by the JIT the same way. Built as an experiment switch, hot-methods jars with `--trigger burst-indy` both ways, never armed (`-Dkomorium.burst.sparsity=2147483647 -Dkomorium.burst.length=1 -Dkomorium.burst.period=2147483647 -Dkomorium.burst.awake=1`), CPU over the uninstrumented run, medians of 5 interleaved (`scripts/ab.mjs`, 28 November 03:28–03:31, load about 2): JFlex 1.196× (invokedynamic) against 1.243× (method handle), ecj 1.254× against 1.905×. The interpreter and C1 pay a method-handle invocation at every check where the linked invokedynamic costs them little; linking is not what indy costs. Reverted. (Sunflow\'s classes are Java 6, older than invokedynamic: there both fall back to burst-volatile.)',
    '',
  ];
}
