// The section of BENCHMARKS-cbs.md that says where the CPU time of the timer trigger went and what
// was changed for it (2026-11-27, branch cbs-cost). Its figures come from runs outside cbs.mjs
// (per-thread CPU, LogCompilation, A/B runs of jars built before and after each change), so they
// are kept here as written, with the commands that gave them, and not recomputed from bench-cbs.json.

export function whereTheCpuWent() {
  return [
    '## Where the CPU went, and what was changed (2026-11-27)',
    '',
    'Measured on 2 shared cores at load average 7–13, CPU time (user + system of every thread of the JVM), interleaved runs of jars built before (main at 6e10691, "before") and after the changes (branch cbs-cost, "after"), the order rotated every repetition. A/B medians, 11 repetitions of JFlex and 7 of Rhino (2026-11-27 08:41–09:20):',
    '',
    '| configuration | JFlex before | JFlex after | Rhino before | Rhino after | geomean before → after |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    '| uninstrumented | 2.70 s | | 6.22 s | | |',
    '| the check alone (timer every hour) | 1.25× | 1.32× | 1.42× | 1.10× | 1.33× → 1.20× |',
    '| timer, Stride 1, Samples 1 | 1.24× | 1.35× | 1.49× | 1.14× | 1.36× → 1.24× |',
    '| **timer, Stride 7, Samples 16 (the default)** | **1.42×** | **1.43×** | **2.09×** | **1.21×** | **1.72× → 1.32×** |',
    '| checks trigger, Stride 7, Samples 16 | 1.59× | 1.39× | 2.00× | 1.74× | 1.78× → 1.55× |',
    '',
    'JFlex is a 2.7 s run in which the JIT compilers take half the CPU time, and its figures move by ±15% from one batch to the next: a batch of 7 gave the default 1.62× before and 1.39× after, another of 7 with scripts/bench/variants.mjs 1.59× after. The differences on JFlex are within that noise except for the counting trigger; those on Rhino are not. The A/B runs are what `node scripts/ab.mjs --reps 11 plain=\'java -cp /usr/share/java/jflex.jar:… jflex.Main …\' before=\'java -Dkomorium.out=p.kprof -cp before/jflex.jar:… jflex.Main …\' after=…` does, with `before/` and `after/` instrumented (`--profile cbs`) by each commit\'s build and the program arguments of scripts/bench/workloads.mjs. After the changes, the bench\'s own tool agrees on Rhino: `node scripts/bench/variants.mjs --workload rhino --reps 5 --variant \'never:--profile cbs -Dkomorium.cbs.period=3600000\' --variant \'def:--profile cbs\'` gave the check alone 1.08× and the default 1.12×.',
    '',
    '### The breakdown, before',
    '',
    '- **Threads.** CPU per thread at exit (a wrapper main whose shutdown hook reads /proc/self/task/*/stat; JFlex, 7 repetitions): uninstrumented 3.07 s = C2 1.23 + C1 0.25 + program thread 1.40; check alone 3.73 s = 1.63 + 0.26 + 1.77; default 4.98 s = 2.02 + 0.30 + 2.20. Rhino (5): uninstrumented 8.07 s = C2 3.40 + program 3.80; default 14.20 s = C2 5.00 + program 8.29; check alone (3) 9.76 s = C2 1.27 + program 7.67. The timer thread stayed under /proc\'s 10 ms resolution in every run.',
    '- **Deoptimizations** (`-XX:+LogCompilation`, one JFlex run each; uninstrumented / check alone / 1×1 / default): runtime `unstable_if` traps 15 / 10 / 19 / 12, methods made not entrant 250 / 266 / 278 / 300, C2 methods 122 / 95 / 122 / 91. The hypothesis written here before (each first window through a compiled site deoptimizes it, and the recompilations churn) does not hold: there are a dozen such traps per run, as many as without instrumentation. C2 compiles a branch as an uncommon trap only when its profile shows it never taken; the timer\'s windows reach the hot sites while their methods are still being profiled (interpreter, C1 tier 3), so their slow paths are compiled from the first C2 compilation on.',
    '- **What the slow paths held.** `Cbs.call` (24 bytes) called `due()` (131 bytes), frequent enough for C2 to inline up to FreqInlineSize (325 bytes): every call site that the flag was up at during profiling got the countdown, `due()`, the callee lookup (`Callees`) and the recording (`ThreadLocal.get`, `Counts$ByPair.add`) inlined, about 600 bytes of bytecode per call site (LogCompilation inline trees). JFlex\'s `IntCharSet.and` compiled to 43,016 bytes, 5,624 with the flag never up; Rhino\'s C2 took 5.00 s, and 1.41 s once Figure 3 was out of line (below).',
    '- **A method outgrown.** Since the exhaustive layout stopped being refused for HugeMethodLimit (4ef56be, after the bench above ran), the checks took Rhino\'s `Interpreter.interpretLoop` from 6,791 to 9,784 bytes of bytecode, and HotSpot never compiled it (it is absent from LogCompilation): Rhino\'s program thread took 7.67 s instead of 3.80 with the flag never up. Instrumenting all but `org.mozilla.javascript.Interpreter` (`--exclude`), the check alone cost 0.97× (3 repetitions).',
    '- **The check** (`javap -c`): `getstatic Cbs.armed; ifeq`, then on the slow path the receiver (`dup`, `swap; dup_x1`, or the arguments stored to locals and reloaded), `getstatic komorium$sites; bipush k; iadd; invokestatic Cbs.call`: 13 to 16 bytes before every invoke, 3 to 6 of them on the fast path.',
    '- **The samples themselves.** With `sample()` returning at once, JFlex\'s default took 3.91 s against 3.78 (7 repetitions), and C2\'s code was as large (482–646 KB against 381–475 KB, the check alone 248–282 KB): recording costs nothing visible; the compiled slow paths do.',
    '',
    '### The changes, each measured interleaved',
    '',
    '| change | JFlex | Rhino | kept |',
    '| --- | --- | --- | --- |',
    '| Figure 3 out of line: the handlers call `Cbs.reached`, kept above FreqInlineSize by a block that never runs (test/cbs.test.ts checks the sizes) | default 4.98 → 4.26 s (7 repetitions, uninstrumented 3.07) | default 14.20 → 9.70 s, C2 5.00 → 1.41 s (5, uninstrumented 8.07) | yes (39efd26) |',
    '| a method the checks would push past HugeMethodLimit gets full-dup with its copy in a twin, checks at its entry and loop heads reading the flag (docs/cbs.md) | no such method | default 10.02 → 7.62 s, check alone 1.02× (5, uninstrumented 6.75); interpretLoop 7,835 bytes, its twin 17,740 | yes (ae01d5f) |',
    '| the countdown\'s decrement back in the handlers, only the rest out of line | checks trigger 4.62 → 3.85 s, default 3.71 → 3.56 s (6, uninstrumented 2.48) | checks 11.47 → 11.19 s, default 8.45 → 7.82 s (4) | yes (8b3e380) |',
    '| the flag a plain static instead of a volatile one | check alone 3.23 → 2.93 s, default 3.70 → 3.63 s (7, uninstrumented 2.87) | check alone 7.43 → 7.13 s, default 7.55 → 7.77 s (5, uninstrumented 6.92) | no: the default gains nothing measurable (once the windows have compiled slow paths in, their calls stop C2 from keeping loads across a check as the volatile does), and C2 may hoist a plain load out of a loop whose calls are inlined, which would then never see a window |',
    '| full-dup with a twin for every method (checks only at entries and loop heads) | default 3.49 → 3.58 s, check alone 3.48 → 3.75 s (5); C2 code 573–976 KB against 530–561 KB | – | no |',
    '| entry placements (`KOMORIUM_CBS_PLACEMENT`, `node scripts/bench/variants.mjs`, after the changes) | check alone 1.25×, default 1.59×; entry-stack 1.34×, entry-site 1.38×, entry-thread 2.00× (7) | check alone 1.08×, default 1.12×; entry-stack 1.19×, entry-site 1.51×, entry-thread 1.76× (5) | no: they see only the calls into instrumented methods (25% of JFlex\'s), and cost no less on Rhino |',
    '| the flag up during a warm-up, so that every site compiles its slow path from the start | not tried: the compiled slow paths are the cost (above), and this would give every site one | | |',
    '',
    'Accuracy: the counting trigger gives byte-identical call graphs before and after on both workloads (its flag is always up, so a method laid out with a twin always runs its twin). With the timer, JFlex measured 59.3–70.3 (median 62.9) before and 50.4–71.5 (68.5) after, 5 runs each. Rhino measured 91.8–92.3 before (21,600–26,600 samples) and 86.6–88.8 after (10,800–12,200 samples): the run takes half the CPU time and so gets half the ticks; with the period at 3 ms, for as many samples as before, 90.7–91.4. The twin waits for the interpreter loop\'s next iteration: its share of Rhino\'s calls (16.0% exhaustive) was sampled as 14.8–15.6% after, 16.5–17.1% before.',
    '',
    'What is left, after: the volatile load before every call (C2 must keep it, and keeps no field load across it: on JFlex\'s hottest loop, `IntCharSet.add` → `ArrayList.get`, 58% of its calls, JFR sampling every 1 ms found 287 samples in that method with the flag never up against 210 uninstrumented, and 80 more attributed to the check\'s inlined handler), and the slow-path calls compiled at the sites the windows reached during profiling, which have the same effect once the flag has been up, and make C2\'s code 35–90% larger (248–282 KB with the flag never up, 381–475 KB at the default, two JFlex runs each) and its compile time with it. The default misses 1.05× on both workloads.',
    '',
  ];
}
