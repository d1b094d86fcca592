// Two sections of BENCHMARKS-cbs.md measured outside cbs.mjs on 2026-11-27/28 (A/B runs of jars
// built by different commits and a diagnosis branch), kept as written with their commands: what the
// parts of the check cost against a guard that compiles to nothing, and what counting each thread's
// calls on its own clock costs the counting trigger.

const AB = '`bash ab.sh W 5 NAME=JARS[:JVM options] …`, a wrapper of `node scripts/ab.mjs --reps 5` that runs the uninstrumented program and each jar set (`--profile cbs`, each workload jar instrumented alone) interleaved, the order rotated every repetition';

export function checkParts() {
  return [
    '## The parts of the cost: a guard that compiles to nothing (2026-11-28)',
    '',
    `CPU time (user + system of every thread) over the uninstrumented run's in the same repetition, median of 5 interleaved repetitions, load average 1.6–2.1 at the start (${AB}). "Guard folded" is a diagnosis build (branch diag-cbs-floor, d78cf5b plus \`KOMORIUM_DIAG_CBS_GUARD=off\`): every probe tests \`Cbs.off\`, a \`static final\` that is false, instead of the volatile \`Cbs.armed\`. The bytecode is the same size and shape, but C2 folds the constant and drops the probe. "Check alone" is the kind with the timer every hour (\`-Dkomorium.cbs.period=3600s\`): the flag never goes up.`,
    '',
    '| workload | uninstrumented CPU | guard folded | check alone (volatile flag, never up) | default (timer, Stride 7, Samples 16) |',
    '| --- | ---: | ---: | ---: | ---: |',
    '| sunflow | 3.99 s | 0.95× | 1.12× | 1.44× |',
    '| jflex | 2.45 s | 0.98× | 1.23× | 1.50× |',
    '| ecj | 5.38 s | 1.10× | 1.20× | 1.28× |',
    '| h2 | 6.98 s | 0.88× | 0.91× | 1.08× |',
    '| rhino | 6.07 s | 1.09× | 1.10× | 1.46× |',
    '| xalan | 4.85 s | 0.86× | 0.93× | 1.16× |',
    '| **geometric mean** | | **0.97×** | **1.08×** | **1.31×** |',
    '',
    '- **The probes\' bytecode costs nothing measurable.** With the guard folded, the six workloads run at 0.97× geomean. The 13 to 16 bytes before every invoke, the larger methods and their loading do not explain the cost. H2 and Xalan run faster than the Debian jars in every configuration; the Debian H2 jar\'s manifest names class-path jars that do not exist.',
    '- **The flag\'s load costs about 1.11× over that floor** (1.08× geomean). C2 must reload a volatile before every call and keeps no other field load across it.',
    '- **The windows cost 1.21× on top of that** (1.31× against 1.08×). They do a few dozen samples per 10 ms. The cost comes from what C2 compiles once it has seen the flag up at a site: the slow-path call of every site a window reached while its method was being profiled (the breakdown under "Where the CPU went").',
    '- **What the 1.05× target needs.** It needs a check the JIT folds to nothing while no window is open, as here, and that a timer can turn on 100 times a second. The paper\'s VMs have one: the yieldpoint in every prologue. In bytecode, a constant (a `static final`, or a MutableCallSite relinked by the timer, the `indy` mechanism of BENCHMARKS-hps.md) can be changed only by deoptimizing every method compiled against it. HPS measured about 35 ms of CPU time per switch, so a 10 ms period would cost more than the program. Every other check is a load that C2 must keep, as the volatile flag is here; a plain static saved nothing at the default (the changes table above).',
    '',
  ];
}

export function countingClocks() {
  return [
    '## The counting trigger: one clock per thread (2026-11-28)',
    '',
    'With one countdown shared by all threads, the counting trigger gave different call graphs run to run wherever threads called at the same time: they raced for the countdown. Each thread now counts its own calls on its own clock (src/kinds/cbs/CbsClock.java), and a window opens after that thread\'s own PERIOD calls. Its start offsets come from `komorium.seed` and the thread\'s name.',
    '',
    '- **The test.** test/cbs.test.ts runs four threads that call at the same time (test/fixtures/cbs-threads). Their call graphs are byte-identical run to run and under -Xint. With one shared countdown they differed in every run tried.',
    '- **The timer keeps one shared clock.** Its handler decrements a field of a constant object, as cheap as the static it replaced. Timer jars of both builds ran interleaved in one batch (CPU, median of 5); the new build was at or below the old on every workload: jflex 1.46× → 1.41×, rhino 1.51× → 1.38×, ecj 1.39× → 1.27×, xalan 1.22× → 1.15×, h2 1.23× → 1.16×, sunflow 1.45× → 1.38×.',
    '- **Finding a thread\'s clock.** The thread that initialised the runtime compares itself with a constant. Other threads look in a one-entry cache, then in a ThreadLocal. The cost is in CPU time with `-Dkomorium.cbs.trigger=checks`, old shared countdown → per-thread clocks, medians of 5 interleaved, two batches where given:',
    '  - jflex 1.35× → 1.37× and 1.47× → 1.40×; xalan 1.49× → 1.36×; h2 1.25× → 1.19×.',
    '  - rhino 1.69× → 1.68× and ecj 1.39× → 1.32×, in the first build, which had no cache (both call from the initialising thread).',
    '  - **Sunflow 1.51× → 1.97× and 1.65× → 2.08×.** Its render thread, not the main thread that initialised the runtime, makes nearly every call, and pays for the cache.',
    '- **Tried and dropped.**',
    '  - A ThreadLocal lookup at every call from other threads: Sunflow 2.93×.',
    '  - The cache alone for every thread: JFlex 1.65–1.72×.',
    '  - A MutableCallSite that C2 folds to the busiest thread\'s clock, relinked when another thread became the busiest: Sunflow 2.76×.',
    '- **What no trigger can fix.** ecj\'s and H2\'s exhaustive call graphs differ between two runs. ecj\'s lookup tables probe by identity hash codes (`SimpleLookupTable.get`, `PTBKey.equals`, `InferenceVariable.hashCode`). H2 has its sort (`Utils.partialQuickSort`) and its value cache. Their calls change from run to run, so a sampled graph cannot be the same twice either. The targets row gives the exhaustive graph\'s difference beside the sampled one\'s.',
    '',
  ];
}
