/**
 * Tests of the Java runtime (runtime-java) on a real JVM. No instrumentation is involved: small
 * hand-written drivers call TC and the agents the way instrumented code does
 * (docs/runtime-contract.md), and the profiles they write are parsed strictly against
 * docs/profile-format.md.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseProfile as readProfileText } from '../src/profile/read.js';
import { javac, repoRoot, runJava, runtimeJar, tmpDir, type RunJavaOptions } from './support/java.js';
import { readZipEntry } from './support/corpus.js';
import { methodCodeLength } from './support/code-length.js';
import { FREQ_INLINE_SIZE } from '../src/bytecode/hotspot-limits.js';
import { ClassFile } from '../src/classfile/classfile.js';

// ---------------------------------------------------------------------------------------------
// A strict reader of the profile format, independent of src/profile.

interface ProfileMethod {
  id: number;
  cls: string;
  name: string;
  desc: string;
  source: string;
  line: number;
}
interface ProfileNode {
  id: number;
  parent: number;
  method: number;
  counter: number;
}
interface Profile {
  headers: Map<string, string>;
  agent: string;
  unit: string;
  granularity: number;
  random: number;
  seed: number;
  totalBytecodes: number;
  threads: number;
  truncated: number;
  methods: ProfileMethod[];
  nodes: ProfileNode[];
  /** Thread names of the thread table, in order. */
  threadNames: string[];
  /** Self counters by node: "thread name|line" → counter (thread "" when unknown). */
  self: Map<number, Map<string, number>>;
  /** Everything after the header lines: the part that must be deterministic. */
  data: string;
}

function unescape(s: string): string {
  if (/[\u0000-\u001f\u007f]/.test(s)) throw new Error(`raw control character in ${JSON.stringify(s)}`);
  return s.replace(/\\(u[0-9A-F]{4}|.)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 't') return '\t';
    if (c === 'n') return '\n';
    if (c === 'r') return '\r';
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    throw new Error(`bad escape \\${c}`);
  });
}

function int(s: string): number {
  if (!/^(0|-?[1-9]\d*)$/.test(s)) throw new Error(`not a decimal integer: ${JSON.stringify(s)}`);
  return Number(s);
}

function parseProfile(text: string): Profile {
  if (!text.endsWith('\n')) throw new Error('the profile does not end with a newline');
  if (text.includes('\r')) throw new Error('the profile contains CR');
  const lines = text.slice(0, -1).split('\n');
  let i = 0;
  const next = () => {
    if (i >= lines.length) throw new Error('unexpected end of profile');
    return lines[i++].split('\t');
  };
  const expectRecord = (name: string, n: number) => {
    const f = next();
    if (f[0] !== name || f.length !== n) throw new Error(`line ${i}: expected ${name} with ${n} fields, got ${lines[i - 1]}`);
    return f;
  };
  const magic = expectRecord('komorium-profile', 2);
  if (magic[1] !== '2') throw new Error(`version ${magic[1]}`);
  const headers = new Map<string, string>();
  while (lines[i]?.startsWith('header\t')) {
    const f = expectRecord('header', 3);
    headers.set(f[1], unescape(f[2]));
  }
  const dataStart = lines.slice(0, i).join('\n').length + 1;
  const firstData = i;
  const methods: ProfileMethod[] = [];
  while (lines[i]?.startsWith('method\t')) {
    const f = expectRecord('method', 7);
    const m = { id: int(f[1]), cls: unescape(f[2]), name: unescape(f[3]), desc: unescape(f[4]), source: unescape(f[5]), line: int(f[6]) };
    if (m.id !== methods.length) throw new Error(`method ids not consecutive at ${m.id}`);
    methods.push(m);
  }
  for (let k = 1; k < methods.length; k++) {
    const a = methods[k - 1];
    const b = methods[k];
    const key = (m: ProfileMethod) => [m.cls, m.name, m.desc];
    const ka = key(a);
    const kb = key(b);
    const cmp = ka[0] !== kb[0] ? (ka[0] < kb[0] ? -1 : 1) : ka[1] !== kb[1] ? (ka[1] < kb[1] ? -1 : 1) : ka[2] < kb[2] ? -1 : ka[2] > kb[2] ? 1 : 0;
    if (cmp >= 0) throw new Error(`methods not sorted, or a method key repeated, at ${b.id}`);
  }
  if (lines[i]?.startsWith('site\t')) throw new Error('a komorium-only profile has no sites');
  expectRecord('section', 2);
  if (lines[i - 1] !== 'section\tkomorium') throw new Error(`expected the komorium section, got ${lines[i - 1]}`);
  const agent = unescape(expectRecord('agent', 2)[1]);
  const unit = expectRecord('unit', 2)[1];
  const granularity = int(expectRecord('granularity', 2)[1]);
  const random = int(expectRecord('random', 2)[1]);
  const seed = int(expectRecord('seed', 2)[1]);
  const totalBytecodes = int(expectRecord('totalBytecodes', 2)[1]);
  const threads = int(expectRecord('threads', 2)[1]);
  const truncated = int(expectRecord('truncated', 2)[1]);
  const nodes: ProfileNode[] = [];
  while (lines[i]?.startsWith('node\t')) {
    const f = expectRecord('node', 5);
    const n = { id: int(f[1]), parent: int(f[2]), method: int(f[3]), counter: int(f[4]) };
    if (n.id !== nodes.length) throw new Error(`node ids not consecutive at ${n.id}`);
    nodes.push(n);
  }
  // The breakdown: threads sorted by name, self lines summing to each node's counter.
  const threadNames: string[] = [];
  while (lines[i]?.startsWith('thread\t')) {
    const f = expectRecord('thread', 3);
    if (int(f[1]) !== threadNames.length) throw new Error(`thread ids not consecutive at ${f[1]}`);
    const name = unescape(f[2]);
    if (threadNames.length > 0 && !(threadNames[threadNames.length - 1] < name)) throw new Error(`threads not sorted at ${f[1]}`);
    threadNames.push(name);
  }
  const self = new Map<number, Map<string, number>>();
  let lastSelf = '';
  while (lines[i]?.startsWith('self\t')) {
    const f = expectRecord('self', 5);
    const [node, thread, line, counter] = [int(f[1]), int(f[2]), int(f[3]), int(f[4])];
    const order = `${String(node).padStart(10)}|${String(thread + 1).padStart(10)}|${String(line + 1).padStart(10)}`;
    if (order <= lastSelf) throw new Error(`self lines not sorted at ${lines[i - 1]}`);
    lastSelf = order;
    if (counter <= 0 || node <= 0 || node >= nodes.length || thread >= threadNames.length) throw new Error(`bad self line ${lines[i - 1]}`);
    const m = self.get(node) ?? new Map<string, number>();
    m.set(`${thread < 0 ? '' : threadNames[thread]}|${line}`, counter);
    self.set(node, m);
  }
  for (const [node, m] of self) {
    const sum = [...m.values()].reduce((a, b) => a + b, 0);
    if (sum !== nodes[node].counter) throw new Error(`self lines of node ${node} sum to ${sum}, its counter is ${nodes[node].counter}`);
  }
  while (lines[i]?.startsWith('call\t')) expectRecord('call', 4);
  const dataLines = i - firstData;
  const end = expectRecord('end', 2);
  if (int(end[1]) !== dataLines) throw new Error(`end says ${end[1]} lines, found ${dataLines}`);
  if (i !== lines.length) throw new Error(`trailing lines after end: ${lines.slice(i).join(' | ')}`);

  // Tree shape: root first, preorder, children ascending by method id, no empty subtrees.
  if (nodes.length === 0 || nodes[0].parent !== -1 || nodes[0].method !== -1 || nodes[0].counter !== 0) throw new Error('bad root');
  const subtotal = nodes.map((n) => n.counter);
  const lastChildMethod = new Map<number, number>();
  const path: number[] = [0];
  for (const n of nodes.slice(1)) {
    if (n.method < 0 || n.method >= methods.length) throw new Error(`node ${n.id}: bad method ${n.method}`);
    while (path.length && path[path.length - 1] !== n.parent) path.pop();
    if (!path.length) throw new Error(`node ${n.id}: not in preorder (parent ${n.parent})`);
    const prev = lastChildMethod.get(n.parent);
    if (prev !== undefined && prev >= n.method) throw new Error(`node ${n.id}: siblings not sorted by method id`);
    lastChildMethod.set(n.parent, n.method);
    path.push(n.id);
  }
  for (let k = nodes.length - 1; k > 0; k--) subtotal[nodes[k].parent] += subtotal[k];
  for (let k = 1; k < nodes.length; k++) if (subtotal[k] === 0) throw new Error(`node ${k} has an empty subtree`);
  return { headers, agent, unit, granularity, random, seed, totalBytecodes, threads, truncated, methods, nodes, threadNames, self, data: text.slice(dataStart) };
}

/** Calling contexts as "Cls.m>Cls.n" → counter (non-zero ones). */
function contexts(p: Profile): Map<string, number> {
  const label = (m: ProfileMethod) => `${m.cls}.${m.name}`;
  const paths: string[] = [''];
  const out = new Map<string, number>();
  for (const n of p.nodes.slice(1)) {
    const parent = paths[n.parent];
    paths[n.id] = (parent ? `${parent}>` : '') + label(p.methods[n.method]);
    if (n.counter) out.set(paths[n.id], n.counter);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Drivers. Sim imitates instrumented code: push on entry, counter update plus granularity check
// per block, leaf methods that push only when sampled, wrappers with enter/exit.

const SOURCES: Record<string, string> = {
  'Sim.java': String.raw`
import komorium.runtime.*;
final class Sim {
  static int mid(String cls, String name) { return MID.register(cls, name, "()V", cls + ".java", 1); }
  static void check(boolean ok, String what) { if (!ok) throw new AssertionError(what); }
  /** A non-leaf method: pushes m, then runs blocks of n bytecodes, each with a check; block i is 10 + i % 2 lines below the method's first line (1). */
  static int run(TC tc, int[] stack, int sp, int m, int blocks, int n) {
    sp = TC.push(stack, sp, m);
    for (int i = 0; i < blocks; i++) if ((tc.instrCounter -= n) <= 0) tc.triggerSampling(stack, sp, 10 + i % 2);
    return sp;
  }
  /** A leaf method (§5.1): never pushes, hands its MID to triggerSamplingLeaf. */
  static void leaf(TC tc, int[] stack, int sp, int m, int blocks, int n) {
    for (int i = 0; i < blocks; i++) if ((tc.instrCounter -= n) <= 0) tc.triggerSamplingLeaf(stack, sp, m);
  }
  /** A wrapper (contract "Method shapes") around run(). */
  static void wrapper(int m, int blocks, int n) {
    TC tc = TC.getTC(); int[] stack = tc.enter(); int sp = tc.enterSp;
    run(tc, stack, sp, m, blocks, n);
    tc.exit(stack, sp);
  }
}
`,
  'TreeDriver.java': String.raw`
import komorium.runtime.*;
public class TreeDriver {
  static final int A = Sim.mid("Drv", "a"), A2 = Sim.mid("Drv", "a"), B = Sim.mid("Drv", "b"),
      C = Sim.mid("Drv", "c"), L = Sim.mid("Drv", "leaf"), D = MID.register("Drv", "d\tx\\y\nz", "()V", null, -1),
      E = MID.register("com.foo.Bar$In", "e\r\u0001\ud800x\ud83d\ude00", "(I)V", "Bar.java", 5),
      E2 = MID.register("com.foo.Bar$In", "e\r\u0001\ud800x\ud83d\ude00", "(I)V", null, -1);
  public static void main(String[] args) {
    TC tc = TC.getTC(); int[] stack = tc.enter(); int sp = tc.enterSp;
    Sim.run(tc, stack, sp, A, 30, 1);
    Sim.run(tc, stack, sp, A2, 10, 1);      // another identifier of the same method: merged
    int spB = TC.push(stack, sp, B);
    Sim.run(tc, stack, spB, C, 20, 1);
    for (int i = 0; i < 10; i++) if ((tc.instrCounter -= 1) <= 0) tc.triggerSampling(stack, spB);
    Sim.leaf(tc, stack, spB, L, 10, 1);
    Sim.run(tc, stack, sp, D, 10, 1);
    Sim.run(tc, stack, sp, E2, 10, 1);      // same method key as E, met first: E's source wins
    Sim.run(tc, stack, sp, E, 10, 1);
    tc.instrCounter -= 7;                    // executed after the last sample: flushed at exit
    tc.exit(stack, sp);
    System.out.println("done");
  }
}
`,
  'TruncDriver.java': String.raw`
import komorium.runtime.*;
public class TruncDriver {
  static final int R = Sim.mid("Deep", "r"), LEAF = Sim.mid("Deep", "leaf");
  static void r(TC tc, int[] stack, int sp, int depth) {
    sp = TC.push(stack, sp, R);
    if ((tc.instrCounter -= 10) <= 0) tc.triggerSampling(stack, sp);
    if (depth > 1) r(tc, stack, sp, depth - 1);
    else Sim.leaf(tc, stack, sp, LEAF, 1, 10);
  }
  public static void main(String[] args) throws Exception {
    // push itself: never throws, keeps the innermost frame on top, marks the slot below.
    int[] s = new int[4];
    int sp = 0;
    for (int i = 0; i < 4; i++) sp = TC.push(s, sp, R);
    Sim.check(sp == 4 && s[2] == R, "a full stack is not truncated");
    sp = TC.push(s, sp, LEAF);
    Sim.check(sp == 4 && s[3] == LEAF && s[2] == MID.TRUNCATED, "truncating push");
    sp = TC.push(s, sp, R);
    Sim.check(sp == 4 && s[3] == R && s[2] == MID.TRUNCATED && s[1] == R, "push past the end");
    final int depth = Integer.parseInt(args[0]);
    Thread t = new Thread(null, () -> {
      TC tc = TC.getTC(); int[] stack = tc.enter();
      r(tc, stack, tc.enterSp, depth);
      tc.exit(stack, 0);
    }, "deep", 256L << 20);
    t.start(); t.join();
    System.out.println("done");
  }
}
`,
  'PoolDriver.java': String.raw`
import komorium.runtime.*;
public class PoolDriver {
  public static void main(String[] args) throws Exception {
    TC tc = TC.getTC();
    Sim.check(TC.getTC() == tc, "one context per thread");
    int[] a = tc.newStack(), b = tc.newStack(), c = tc.newStack();
    Sim.check(a.length == 16 && a != b && b != c && a != c, "fresh stacks of komorium.stackSize");
    tc.releaseStack(a); tc.releaseStack(b); tc.releaseStack(c);   // pool holds 2: c is dropped
    Sim.check(tc.newStack() == b, "pool is LIFO");
    Sim.check(tc.newStack() == a, "pool is LIFO");
    int[] z = tc.newStack();
    Sim.check(z != a && z != b && z != c, "a full pool drops stacks");
    int[] first = tc.enter();
    Sim.check(tc.enterSp == 0, "fresh entry starts at 0");
    tc.exit(first, 0);
    for (int i = 0; i < 1000; i++) {
      int[] s = tc.enter();
      Sim.check(s == first && tc.enterSp == 0, "wrappers reuse the pooled stack");
      tc.exit(s, 0);
    }
    final TC[] other = new TC[1];
    Thread t = new Thread(() -> other[0] = TC.getTC());
    t.start(); t.join();
    Sim.check(other[0] != null && other[0] != tc, "each thread has its own context");
    System.out.println("done");
  }
}
`,
  'RandomDriver.java': String.raw`
import komorium.runtime.*;
public class RandomDriver {
  static final int M = Sim.mid("Rnd", "m");
  static void work(String name) {
    TC tc = TC.getTC(); int[] stack = tc.enter(); int sp = TC.push(stack, tc.enterSp, M);
    StringBuilder sb = new StringBuilder(name).append(':').append(' ').append(tc.instrCounter);
    for (int i = 0; i < 30; i++) {
      tc.instrCounter = 0;
      tc.triggerSampling(stack, sp);
      sb.append(' ').append(tc.instrCounter);
    }
    tc.instrCounter = 0;
    tc.exit(stack, 0);
    System.out.println(sb);
  }
  public static void main(String[] args) throws Exception {
    work("main");
    for (int k = 1; k <= 2; k++) {   // started one after the other: a fixed registration order
      final String name = "t" + k;
      Thread t = new Thread(() -> work(name));
      t.start(); t.join();
    }
  }
}
`,
  'FlushDriver.java': String.raw`
import komorium.runtime.*;
public class FlushDriver {
  static final int W = Sim.mid("Flush", "w");
  public static void main(String[] args) throws Exception {
    TC tc = TC.getTC();
    tc.instrCounter -= 5;
    for (int k = 0; k < 100; k++) {   // short threads, each ending before its first sample
      Thread t = new Thread(() -> { TC.getTC().instrCounter -= 123; });
      t.start(); t.join();
    }
    Thread s = new Thread(() -> {
      TC c = TC.getTC(); int[] stack = c.enter();
      Sim.run(c, stack, 0, W, 1, 1000);   // one sample of 1000 bytecodes
      c.instrCounter -= 11;
      c.exit(stack, 0);
    });
    s.start(); s.join();
    System.out.println("done");
  }
}
`,
  'BadAgent.java': String.raw`
import komorium.runtime.*;
public class BadAgent implements SamplingProfiler, AgentLifecycle {
  static int calls;
  final String mode = System.getProperty("bad.mode");
  public BadAgent() { if ("ctor".equals(mode)) throw new IllegalStateException("no agent today"); }
  public int register(Thread t) {
    if ("register".equals(mode)) throw new IllegalStateException("cannot register " + t.getName());
    if ("register0".equals(mode)) return 0;
    return 10;
  }
  public synchronized int processSample(int[] stack, int sp, int bytecodes) {
    if (++calls == 3) {
      if ("throw".equals(mode)) throw new IllegalStateException("boom");
      if ("zero".equals(mode)) return 0;
      if ("negative".equals(mode)) return -5;
    }
    return 10;
  }
  public void shutdown(long pending) { System.out.println("shutdown calls=" + calls); }
}
`,
  'FailDriver.java': String.raw`
import komorium.runtime.*;
public class FailDriver {
  static final int M = Sim.mid("Fail", "m");
  public static void main(String[] args) throws Exception {
    for (int k = 0; k < 3; k++) {
      Thread t = new Thread(() -> Sim.wrapper(M, 50, 10));
      t.start(); t.join();
    }
    Sim.wrapper(M, 50, 10);
    System.out.println("counter=" + TC.getTC().instrCounter);
    System.out.println("done");
  }
}
`,
  'SoeAgent.java': String.raw`
import komorium.runtime.*;
public class SoeAgent implements SamplingProfiler, AgentLifecycle {
  int calls; long bytecodes;
  public int register(Thread t) { return 10; }
  public synchronized int processSample(int[] stack, int sp, int b) {
    if (++calls == 2) throw new StackOverflowError();
    bytecodes += b;
    return 10;
  }
  public synchronized void shutdown(long pending) { System.out.println("seen=" + (bytecodes + pending) + " calls=" + calls); }
}
`,
  'HookDriver.java': String.raw`
import komorium.runtime.*;
public class HookDriver {
  static final int M = Sim.mid("Hook", "m");
  public static void main(String[] args) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.exit(3)));
    Sim.wrapper(M, 100, 10);
    System.out.println("done");
  }
}
`,
  'RaceDriver.java': String.raw`
import komorium.runtime.*;
public class RaceDriver {
  static final int M = Sim.mid("Race", "m"), N = Sim.mid("Race", "n");
  public static void main(String[] args) throws Exception {
    Thread busy = new Thread(() -> { while (true) Sim.wrapper(N, 100, 10); });
    busy.setDaemon(true);
    busy.start();
    Sim.wrapper(M, 100, 10);
    Thread exiter = new Thread(() -> System.exit(1));
    exiter.start();
    System.exit(0);
  }
}
`,
  'TermDriver.java': String.raw`
import komorium.runtime.*;
public class TermDriver {
  static final int M = Sim.mid("Term", "m");
  public static void main(String[] args) throws Exception {
    Sim.wrapper(M, 100, 10);
    System.out.println("ready");
    System.out.flush();
    while (true) { Sim.wrapper(M, 1, 10); Thread.sleep(1); }
  }
}
`,
  'EnterDriver.java': String.raw`
import java.util.*;
import komorium.runtime.*;
public class EnterDriver {
  static final int CALLER = Sim.mid("Cb", "caller"), CMP = Sim.mid("Cb", "compare"), INIT = Sim.mid("Cb", "<clinit>");
  /** The wrapper of an instrumented compare(): what the JDK's sort calls back. */
  static int compareWrapper(Integer x, Integer y) {
    TC tc = TC.getTC(); int[] stack = tc.enter(); int sp = tc.enterSp;
    Sim.run(tc, stack, sp, CMP, 1, 10);
    tc.exit(stack, sp);
    return x.compareTo(y);
  }
  public static void main(String[] args) {
    TC tc = TC.getTC();
    // State machine of enter/exit.
    int[] s = tc.enter();
    Sim.check(tc.enterSp == 0 && tc.outSp == -1, "fresh");
    tc.outStack = s; tc.outSp = 3;                        // a call-out at sp 3
    int[] c = tc.enter();
    Sim.check(c == s && tc.enterSp == 4 && s[3] == MID.UNINSTRUMENTED && tc.outSp == -1,
        "a callback continues the caller's stack after one [uninstrumented] frame");
    int[] nested = tc.enter();                            // e.g. a <clinit> run by the callback
    Sim.check(nested != s && tc.enterSp == 0, "a nested entry does not write over the callback's frames");
    tc.exit(nested, 0);
    Sim.check(tc.outSp == -1, "leaving a fresh entry clears the call-out");
    s[3] = ~7;                                            // an agent's cache entry in place of the marker
    tc.exit(c, 4);
    Sim.check(tc.outStack == s && tc.outSp == 3, "leaving a callback restores the call-out, without the marker");
    int[] again = tc.enter();
    Sim.check(again == s && tc.enterSp == 4 && s[3] == MID.UNINSTRUMENTED, "the next callback of the same call-out continues too");
    tc.exit(again, 4);
    int[] full = new int[4];
    tc.outStack = full; tc.outSp = 4;                     // a call-out from a full (truncated) stack
    int[] f = tc.enter();
    Sim.check(f == full && tc.enterSp == 4 && full[3] == MID.UNINSTRUMENTED && full[2] == MID.TRUNCATED, "a full stack stays full");
    tc.exit(f, 4);
    Sim.check(tc.outSp == 3, "and the next callback pushes its marker in the top slot");
    tc.outSp = -1;                                        // the call-out returned
    tc.outStack = s; tc.outSp = 0;                        // a call-out from a leaf with nothing pushed
    int[] z = tc.enter();
    Sim.check(tc.enterSp == 0, "outSp 0 is an empty context");
    tc.exit(z, 0);
    Sim.check(tc.outSp == -1, "cleared");
    tc.exit(s, 0);

    // Sampling through a callback: instrumented caller -> JDK sort -> instrumented compare.
    int[] stack = tc.enter(); int sp = tc.enterSp;
    sp = TC.push(stack, sp, CALLER);
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < 20; i++) list.add((i * 7) % 20);
    tc.outStack = stack; tc.outSp = sp;
    Collections.sort(list, EnterDriver::compareWrapper);
    tc.outSp = -1;
    compareWrapper(1, 2);                                 // called from uninstrumented code: fresh context
    tc.exit(stack, 0);
    System.out.println(list.get(0) + " " + list.get(19));
  }
}
`,
  'ReentrantAgent.java': String.raw`
import komorium.runtime.*;
/** An agent whose own code is instrumented: it calls "instrumented" helper code. */
public class ReentrantAgent implements SamplingProfiler, AgentLifecycle {
  static final int HELP = Sim.mid("Agent", "help");
  int calls, depth, maxDepth;
  public ReentrantAgent() { Sim.wrapper(HELP, 5, 1000); }   // runs while TC is still initializing
  public int register(Thread t) { Sim.wrapper(HELP, 5, 1000); return 77; }
  public synchronized int processSample(int[] stack, int sp, int bytecodes) {
    calls++; depth++;
    maxDepth = Math.max(maxDepth, depth);
    Sim.wrapper(HELP, 50, 1000);                             // would trigger at once if counted
    depth--;
    return 77;
  }
  public synchronized void shutdown(long pending) { System.out.println("calls=" + calls + " maxDepth=" + maxDepth); }
}
`,
  'ReentrantDriver.java': String.raw`
import komorium.runtime.*;
public class ReentrantDriver {
  static final int M = Sim.mid("Re", "m");
  public static void main(String[] args) {
    System.out.println("first=" + TC.getTC().instrCounter);
    Sim.wrapper(M, 77 * 10, 1);
    System.out.println("done");
  }
}
`,
  'StressDriver.java': String.raw`
import komorium.runtime.*;
public class StressDriver {
  static final int[] MS = new int[8];
  static { for (int i = 0; i < MS.length; i++) MS[i] = Sim.mid("Stress", "m" + i); }
  static void rec(TC tc, int[] stack, int sp, int k, int n) {
    sp = TC.push(stack, sp, MS[k % MS.length]);
    for (int i = 0; i < 5; i++) if ((tc.instrCounter -= 1) <= 0) tc.triggerSampling(stack, sp);
    if (n > 0) { rec(tc, stack, sp, k * 3 + 1, n - 1); rec(tc, stack, sp, k + 5, n - 1); }
  }
  public static void main(String[] args) throws Exception {
    Thread[] ts = new Thread[4];
    for (int t = 0; t < ts.length; t++) {
      final int seed = t;
      ts[t] = new Thread(() -> {
        TC tc = TC.getTC(); int[] stack = tc.enter();
        for (int r = 0; r < 20; r++) rec(tc, stack, 0, seed + r, 8);
        tc.exit(stack, 0);
      });
    }
    for (Thread t : ts) t.start();
    for (Thread t : ts) t.join();
    System.out.println("done");
  }
}
`,
};

const SAMPLE_AGENT_DIR = join(repoRoot, 'samples', 'custom-agent', 'agent');

let classes: string;
let jar: string;

beforeAll(() => {
  jar = runtimeJar();
  const src = tmpDir();
  for (const [name, text] of Object.entries(SOURCES)) writeFileSync(join(src, name), text);
  classes = tmpDir();
  const files = Object.keys(SOURCES).map((n) => join(src, n));
  if (existsSync(SAMPLE_AGENT_DIR)) {
    files.push(...readdirSync(SAMPLE_AGENT_DIR).filter((f) => f.endsWith('.java')).map((f) => join(SAMPLE_AGENT_DIR, f)));
  }
  javac(files, classes, { classpath: [jar] });
});

/** Runs a driver in a fresh working directory; returns the result and that directory. */
async function drive(main: string, jvmArgs: string[] = [], extra: Partial<RunJavaOptions> = {}) {
  const cwd = extra.cwd ?? tmpDir();
  // A constant granularity, so that sample counts can be checked by hand, unless a test asks otherwise.
  const random = jvmArgs.some((a) => a.startsWith('-Dkomorium.random=')) ? [] : ['-Dkomorium.random=0'];
  const r = await runJava({ cp: [classes, jar], main, jvmArgs: [...random, ...jvmArgs], cwd, timeoutMs: 60_000, ...extra });
  return { ...r, cwd };
}

function readProfile(cwd: string, name = 'komorium.kprof'): Profile {
  return parseProfile(readFileSync(join(cwd, name), 'utf8'));
}

function leftovers(cwd: string): string[] {
  return readdirSync(cwd).filter((f) => f.endsWith('.tmp'));
}

describe('profile of the sampling agent', () => {
  it('builds the samples tree and writes it in the documented format, byte for byte', async () => {
    const r = await drive('TreeDriver', ['-Dkomorium.granularity=10']);
    expect(r.stderr).toMatch(/^komorium: wrote .*komorium\.kprof \(sampling: 11 samples in 6 contexts/);
    expect(r.code).toBe(0);
    const text = readFileSync(join(r.cwd, 'komorium.kprof'), 'utf8');
    const p = parseProfile(text);
    expect(text.split('\n').slice(0, 6)).toEqual([
      'komorium-profile\t2',
      expect.stringMatching(/^header\tjvm\t\S.* \S+$/),
      expect.stringMatching(/^header\tos\t\S.* \S+$/),
      expect.stringMatching(/^header\tdate\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      'header\toptions\tkomorium.granularity=10 komorium.random=0',
      expect.stringMatching(/^header\tpid\t\d+$/),
    ]);
    expect(p.data).toBe(
      [
        'method\t0\tDrv\ta\t()V\tDrv.java\t1',
        'method\t1\tDrv\tb\t()V\tDrv.java\t1',
        'method\t2\tDrv\tc\t()V\tDrv.java\t1',
        'method\t3\tDrv\td\\tx\\\\y\\nz\t()V\t\t-1',
        'method\t4\tDrv\tleaf\t()V\tDrv.java\t1',
        'method\t5\tcom/foo/Bar$In\te\\r\\u0001\\uD800x\u{1F600}\t(I)V\tBar.java\t5',
        'section\tkomorium',
        'agent\tsampling',
        'unit\tsamples',
        'granularity\t10',
        'random\t0',
        'seed\t0',
        'totalBytecodes\t117',
        'threads\t1',
        'truncated\t0',
        'node\t0\t-1\t-1\t0',
        'node\t1\t0\t0\t4',
        'node\t2\t0\t1\t1',
        'node\t3\t2\t2\t2',
        'node\t4\t2\t4\t1',
        'node\t5\t0\t3\t1',
        'node\t6\t0\t5\t2',
        // Each context's samples by thread and line: Sim.run's checks pass their line, the driver's
        // own loop and the leaf call the slow paths without one (-1).
        'thread\t0\tmain',
        'self\t1\t0\t12\t4',
        'self\t2\t0\t-1\t1',
        'self\t3\t0\t12\t2',
        'self\t4\t0\t-1\t1',
        // d and E2 were registered without a first line: their lines are unknown; E's first line is 5.
        'self\t5\t0\t-1\t1',
        'self\t6\t0\t-1\t1',
        'self\t6\t0\t16\t1',
        'end\t30',
        '',
      ].join('\n'),
    );
    expect(p.methods[3].name).toBe('d\tx\\y\nz');
    expect(p.methods[5].name).toBe('e\r\u0001\ud800x\u{1F600}');
    // The project's own reader accepts it and sees the same tree.
    const theirs = readProfileText(text, 'TreeDriver.kprof');
    expect(theirs.nodes.length).toBe(p.nodes.length);
    expect(theirs.totalCounter).toBe(11);
    expect(leftovers(r.cwd)).toEqual([]);
  });

  it('the exact agent counts bytecodes per context, and the same run gives the same bytes', async () => {
    const a = await drive('TreeDriver', ['-Dkomorium.agent=exact', '-Dkomorium.quiet']);
    const b = await drive('TreeDriver', ['-Dkomorium.agent=exact', '-Dkomorium.quiet']);
    expect(a.stderr).toBe('');
    const p = readProfile(a.cwd);
    expect(p.data).toBe(readProfile(b.cwd).data);
    expect([p.agent, p.unit, p.granularity, p.totalBytecodes]).toEqual(['exact', 'bytecodes', 1, 117]);
    // Every check of Drv.a's 40 one-bytecode blocks passed its line, 10 and 11 below the method's first line (1) alternately.
    const drvA = p.nodes.find((n) => n.parent === 0 && p.methods[n.method].name === 'a')!;
    expect(p.self.get(drvA.id)).toEqual(new Map([['main|11', 20], ['main|12', 20]]));
    expect(contexts(p)).toEqual(
      new Map([
        ['Drv.a', 40],
        ['Drv.b', 10],
        ['Drv.b>Drv.c', 20],
        ['Drv.b>Drv.leaf', 10],
        ['Drv.d\tx\\y\nz', 10],
        ['com/foo/Bar$In.e\r\u0001\ud800x\u{1F600}', 20],
      ]),
    );
  });

  it('komorium.out names the file, with %p replaced by the pid, creating its directory', async () => {
    const r = await drive('TreeDriver', ['-Dkomorium.out=out/prof-%p.kprof', '-Dkomorium.granularity=10']);
    const files = readdirSync(join(r.cwd, 'out'));
    expect(files).toHaveLength(1);
    const m = /^prof-(\d+)\.kprof$/.exec(files[0]);
    expect(m).not.toBeNull();
    const p = readProfile(join(r.cwd, 'out'), files[0]);
    expect(p.headers.get('pid')).toBe(m![1]);
  });

  it('agent none counts nothing, writes nothing and prints nothing', async () => {
    const r = await drive('TreeDriver', ['-Dkomorium.agent=none']);
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toBe('');
    expect(readdirSync(r.cwd)).toEqual([]);
  });

  it('invalid property values are reported and replaced by defaults', async () => {
    const r = await drive('TreeDriver', ['-Dkomorium.granularity=0', '-Dkomorium.stackSize=x', '-Dkomorium.quiet']);
    expect(r.stderr).toContain('komorium: ignoring -Dkomorium.granularity=0 (expected an integer >= 1); using 10000');
    expect(r.stderr).toContain('komorium: ignoring -Dkomorium.stackSize=x');
    expect(readProfile(r.cwd).granularity).toBe(10000);
  });
});

describe('reified stacks', () => {
  it('push truncates deep stacks instead of failing, and the agent marks those samples', async () => {
    const r = await drive('TruncDriver', ['-Dkomorium.stackSize=8', '-Dkomorium.granularity=10'], { args: ['20'] });
    expect(r.stdout).toBe('done\n');
    expect(r.code).toBe(0);
    const p = readProfile(r.cwd);
    // Frames 1..8 fit; frames 9..20 and the leaf under the 20th count as r^6 > <truncated>.
    const ctx = contexts(p);
    const rs = (n: number) => Array(n).fill('Deep.r').join('>');
    expect(ctx.get(rs(7))).toBe(1);
    expect(ctx.get(rs(8))).toBe(1);
    expect(ctx.get(`${rs(6)}><truncated>.<truncated>`)).toBe(13);
    expect(ctx.size).toBe(9);
    expect(p.truncated).toBe(13);
    expect(p.methods.find((m) => m.cls === '<truncated>')).toEqual({ id: 0, cls: '<truncated>', name: '<truncated>', desc: '()V', source: '', line: -1 });
  });

  it('a recursion far deeper than the default stack size runs through', async () => {
    const r = await drive('TruncDriver', ['-Dkomorium.granularity=10'], { args: ['5000'] });
    expect(r.code).toBe(0);
    const p = readProfile(r.cwd);
    expect(p.truncated).toBe(5000 - 1024 + 1); // frames 1025..5000 and the leaf
  });

  it('the pool reuses released stacks, keeps at most komorium.maxStacks, per thread', async () => {
    const r = await drive('PoolDriver', ['-Dkomorium.maxStacks=2', '-Dkomorium.stackSize=16', '-Dkomorium.agent=none']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('done\n');
  });

  it('enter/exit continue the caller’s stack through callbacks from uninstrumented code', async () => {
    const r = await drive('EnterDriver', ['-Dkomorium.granularity=10', '-Dkomorium.quiet']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('0 19\n');
    const ctx = contexts(readProfile(r.cwd));
    expect(ctx.get('Cb.compare')).toBe(1);
    const callback = 'Cb.caller>[uninstrumented].[uninstrumented]>Cb.compare';
    expect(ctx.get(callback)).toBeGreaterThan(20);
    expect([...ctx.keys()].sort()).toEqual([callback, 'Cb.compare']);
  });
});

describe('granularity', () => {
  const run = async (seed: number) => {
    const r = await drive('RandomDriver', ['-Dkomorium.granularity=100', '-Dkomorium.random=50', `-Dkomorium.seed=${seed}`, '-Dkomorium.quiet']);
    expect(r.code).toBe(0);
    return { lines: r.stdout.trim().split('\n'), profile: readProfile(r.cwd) };
  };

  it('randomized granularity stays in [g, g+R), differs per thread and repeats with the same seed', async () => {
    const a = await run(42);
    const b = await run(42);
    const c = await run(43);
    expect(a.lines).toHaveLength(3);
    expect(a.lines).toEqual(b.lines);
    expect(a.profile.data).toBe(b.profile.data);
    expect(c.lines).not.toEqual(a.lines);
    const values = a.lines.map((l) => l.split(' ').slice(1).map(Number));
    for (const v of values.flat()) {
      expect(v).toBeGreaterThanOrEqual(100);
      expect(v).toBeLessThan(150);
    }
    expect(new Set(values.flat()).size).toBeGreaterThan(20);
    expect(values[1]).not.toEqual(values[0]);
    expect(values[2]).not.toEqual(values[1]);
    expect([a.profile.random, a.profile.seed, a.profile.threads]).toEqual([50, 42, 3]);
  });

  it('the bytecodes every thread ran after its last sample are added at exit (§7.2)', async () => {
    const r = await drive('FlushDriver', ['-Dkomorium.granularity=1000', '-Dkomorium.quiet']);
    expect(r.stdout).toBe('done\n');
    const p = readProfile(r.cwd);
    expect(p.totalBytecodes).toBe(5 + 100 * 123 + 1000 + 11);
    expect(p.threads).toBe(102);
    expect(contexts(p)).toEqual(new Map([['Flush.w', 1]]));
  });

  it('concurrent threads share one consistent tree', async () => {
    const r = await drive('StressDriver', ['-Dkomorium.granularity=1', '-Dkomorium.quiet']);
    expect(r.stdout).toBe('done\n');
    const p = readProfile(r.cwd);
    // 4 threads x 20 rounds x (2^9 - 1) frames x 5 checks, each a sample of 1 bytecode.
    const samples = 4 * 20 * 511 * 5;
    expect(p.nodes.reduce((s, n) => s + n.counter, 0)).toBe(samples);
    expect(p.totalBytecodes).toBe(samples);
    const again = await drive('StressDriver', ['-Dkomorium.granularity=1', '-Dkomorium.quiet']);
    expect(readProfile(again.cwd).data).toBe(p.data);
  });
});

describe('agent failures', () => {
  for (const mode of ['throw', 'zero', 'negative', 'register', 'register0']) {
    it(`an agent that fails (${mode}) is reported once and disabled; the program goes on`, async () => {
      const r = await drive('FailDriver', ['-Dkomorium.agent=BadAgent', `-Dbad.mode=${mode}`]);
      expect(r.code).toBe(0);
      const reports = r.stderr.split('\n').filter((l) => l.startsWith('komorium: agent BadAgent failed: '));
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatch(/; profiling continues with granularity 2147483647/);
      if (mode === 'throw') expect(reports[0]).toContain('java.lang.IllegalStateException: boom');
      if (mode === 'zero') expect(reports[0]).toContain('processSample returned granularity 0');
      expect(r.stdout).toContain('done\n');
      expect(r.stdout).toContain(`shutdown calls=${mode.startsWith('register') ? 0 : 3}\n`);
      const counter = Number(/counter=(-?\d+)/.exec(r.stdout)![1]);
      expect(counter).toBeGreaterThan(2_000_000_000);
    });
  }

  it('an agent that cannot be created leaves the program running without an agent', async () => {
    const r = await drive('FailDriver', ['-Dkomorium.agent=BadAgent', '-Dbad.mode=ctor']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^komorium: cannot create agent BadAgent: java.lang.IllegalStateException: no agent today/);
    expect(r.stdout).toBe(`counter=${2147483647 - 500}\ndone\n`);
    const missing = await drive('FailDriver', ['-Dkomorium.agent=com.example.Missing']);
    expect(missing.code).toBe(0);
    expect(missing.stderr).toMatch(/cannot create agent com.example.Missing: java.lang.ClassNotFoundException/);
  });

  it('a stack overflow inside the agent drops that sample only and keeps its bytecodes', async () => {
    const r = await drive('FailDriver', ['-Dkomorium.agent=SoeAgent']);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/overflowed the thread stack/g)).toHaveLength(1);
    // 4 wrappers x 50 blocks x 10 bytecodes: every bytecode reaches the agent exactly once.
    expect(r.stdout).toMatch(/seen=2000 calls=\d+/);
  });

  it('agent code that runs instrumented code is neither sampled nor counted, even during TC start-up', async () => {
    const r = await drive('ReentrantDriver', ['-Dkomorium.agent=ReentrantAgent']);
    expect(r.stderr).toBe('');
    // The main thread registered although the agent ran instrumented code before it existed.
    expect(r.stdout).toBe('first=77\ndone\ncalls=10 maxDepth=1\n');
  });
});

describe('shutdown', () => {
  it('another shutdown hook calling System.exit (which blocks the JVM for ever) still gets one complete profile', async () => {
    const cwd = tmpDir();
    const file = join(cwd, 'komorium.kprof');
    const r = await drive('HookDriver', ['-Dkomorium.granularity=10'], { cwd, killWhen: () => existsSync(file), timeoutMs: 30_000 });
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toBe('done\n');
    // The rename makes the file complete whenever it exists; give the process a moment anyway.
    const p = readProfile(cwd);
    expect(contexts(p)).toEqual(new Map([['Hook.m', 100]]));
    expect(p.totalBytecodes).toBe(1000);
    expect(leftovers(cwd)).toEqual([]);
  });

  it('racing System.exit calls with a thread still sampling write the profile once', async () => {
    const r = await drive('RaceDriver', ['-Dkomorium.granularity=10']);
    expect([0, 1]).toContain(r.code);
    expect(r.stderr.match(/komorium: wrote/g)).toHaveLength(1);
    const ctx = contexts(readProfile(r.cwd));
    expect(ctx.get('Race.m')).toBe(100);
    expect(leftovers(r.cwd)).toEqual([]);
  });

  it('SIGTERM writes the profile', async () => {
    const r = await drive('TermDriver', ['-Dkomorium.granularity=10'], { signalWhen: { when: 'ready', signal: 'SIGTERM' } });
    expect(r.code).toBe(143);
    const ctx = contexts(readProfile(r.cwd));
    expect(ctx.get('Term.m')).toBeGreaterThanOrEqual(100);
  });
});

describe('samples/custom-agent', () => {
  it('the example agent runs with -Dkomorium.agent and prints its histogram at exit', async () => {
    const agentMain = readdirSync(SAMPLE_AGENT_DIR).find((f) => f.endsWith('.java'))!.replace(/\.java$/, '');
    const r = await drive('TreeDriver', [`-Dkomorium.agent=${agentMain}`, '-Dkomorium.granularity=10']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toContain('Drv.a()V');
    expect(existsSync(join(r.cwd, 'komorium.kprof'))).toBe(false);
  });
});


describe('the sampling slow path stays out of line', () => {
  // TC.sample must be longer than HotSpot's FreqInlineSize (325 bytecodes), or the JIT inlines it, with
  // the agent, into every granularity check (Sunflow ran 1.3x slower at granularity 10,000).
  it('TC.sample is longer than 325 bytecodes', () => {
    const cf = ClassFile.parse(readZipEntry(runtimeJar(), 'komorium/runtime/TC.class')!, 'TC.class');
    expect(methodCodeLength(cf, 'sample', '([IIII)V')).toBeGreaterThan(FREQ_INLINE_SIZE);
  });
});
