// The workloads of `npm run bench`: real programs that Debian packages, each with real input, each
// run as a whole JVM process. Everything they need is installed by scripts/install-bench-deps.sh.
//
// A workload names the jars that are instrumented (by komorium-ts and by JaCoCo), the jars that
// stay as they are, the main class and its arguments. Every run gets a fresh working directory,
// and everything it writes there is compared byte for byte with the uninstrumented run, as are
// its exit code, stdout and stderr.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sh } from './util.mjs';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO = join(BENCH_DIR, '..', '..');
export const CACHE = join(REPO, '.cache', 'bench');
const J = '/usr/share/java';
const INSTALL = 'run `bash scripts/install-bench-deps.sh`';

export function need(path, pkg) {
  if (!existsSync(path)) throw new Error(`missing ${path}${pkg ? ` (Debian package ${pkg})` : ''}: ${INSTALL}`);
  return path;
}

export function javaHome() {
  if (process.env.JAVA_HOME && existsSync(join(process.env.JAVA_HOME, 'bin', 'javac'))) return process.env.JAVA_HOME;
  const javac = sh('readlink', ['-f', sh('sh', ['-c', 'command -v javac']).trim()]).trim();
  return dirname(dirname(javac));
}

export function javaBin(tool = 'java') {
  return need(join(javaHome(), 'bin', tool), 'openjdk-17-jdk-headless');
}

/** JaCoCo's offline runtime and what Debian's unshaded build of it needs at run time. */
export function jacocoRuntimeClasspath() {
  return ['org.jacoco.agent.rt.jar', 'org.jacoco.core.jar', 'asm.jar', 'asm-commons.jar', 'asm-tree.jar'].map((f) =>
    need(join(J, f), f.startsWith('asm') ? 'libasm-java' : 'libjacoco-java'),
  );
}
/** The class Debian's org.jacoco.agent.rt.jar holds (it is not relocated to internal_<hash>). */
export const JACOCO_OFFLINE_RUNTIME = 'org/jacoco/agent/rt/internal/Offline';

/**
 * The drivers in scripts/bench/java, compiled once into .cache/bench/drivers (again when a source
 * is newer than its class). They are never instrumented.
 */
export function driversDir() {
  const src = join(BENCH_DIR, 'java');
  const out = join(CACHE, 'drivers');
  mkdirSync(out, { recursive: true });
  const sources = readdirSync(src).filter((f) => f.endsWith('.java'));
  const stale = sources.some((f) => {
    const cls = join(out, f.replace(/\.java$/, '.class'));
    return !existsSync(cls) || statSync(cls).mtimeMs < statSync(join(src, f)).mtimeMs;
  });
  if (stale) {
    const cp = [...jacocoRuntimeClasspath(), need(join(J, 'sunflow.jar'), 'libsunflow-java')].join(':');
    sh(javaBin('javac'), ['--release', '11', '-nowarn', '-d', out, '-cp', cp, ...sources.map((f) => join(src, f))]);
  }
  return out;
}

function npmInput(name, main) {
  return need(join(REPO, '.cache', 'npm-inputs', name, main), `npm ${name} in .cache/npm-inputs`);
}

/** java.util's top-level sources from the JDK's src.zip, extracted once. */
function javaUtilSources() {
  const zip = need(join(javaHome(), 'lib', 'src.zip'), 'openjdk-17-source');
  const dir = join(CACHE, 'inputs', 'jdk-src');
  const utilDir = join(dir, 'java.base', 'java', 'util');
  if (!existsSync(join(utilDir, 'HashMap.java'))) {
    mkdirSync(dir, { recursive: true });
    sh('unzip', ['-q', '-o', zip, 'java.base/java/util/*.java', '-x', 'java.base/java/util/*/*', '-d', dir]);
  }
  return readdirSync(utilDir)
    .filter((f) => f.endsWith('.java'))
    .sort()
    .map((f) => join(utilDir, f));
}

/**
 * Each workload: id, title, program (Debian package), input, instrument (jars rewritten),
 * lib (jars kept), drivers (true: the compiled drivers folder joins the class path), main, args.
 * `quick` selects the smaller input of --quick where a workload has one.
 */
export const WORKLOADS = [
  {
    id: 'rhino',
    title: 'Rhino + esprima parsing lodash.js',
    program: 'Rhino 1.7.14 (librhino-java), interpreted (-opt -1)',
    input: 'esprima 4.0.1 parsing lodash 4.17.21 (npm), then an AST walk (test/fixtures/rhino-parse.js)',
    packages: ['librhino-java'],
    setup() {
      return {
        instrument: [need(join(J, 'js.jar'), 'librhino-java')],
        lib: [],
        main: 'org.mozilla.javascript.tools.shell.Main',
        args: ['-opt', '-1', join(REPO, 'test', 'fixtures', 'rhino-parse.js'), npmInput('esprima', 'dist/esprima.js'), npmInput('lodash', 'lodash.js')],
      };
    },
  },
  {
    id: 'jflex',
    title: 'JFlex on java.flex',
    program: 'JFlex 1.7.0 (jflex), CUP runtime on the class path',
    input: 'its own examples/java/java.flex, given N times on one command line (--nobak -d out)',
    packages: ['jflex', 'cup'],
    setup({ quick }) {
      const flex = need('/usr/share/doc/jflex/examples/java/java.flex', 'jflex');
      const n = Number(process.env.BENCH_JFLEX_COPIES ?? (quick ? 4 : 16));
      return {
        instrument: [need(join(J, 'jflex.jar'), 'jflex')],
        lib: [need(join(J, 'cup.jar'), 'cup'), need(join(J, 'cup_runtime.jar'), 'cup')],
        main: 'jflex.Main',
        args: ['--nobak', '-d', 'out', ...Array(n).fill(flex)],
        note: `${n} copies`,
      };
    },
  },
  {
    id: 'ecj',
    title: 'ecj compiling java.util',
    program: 'Eclipse Compiler for Java 3.16.0 (libecj-java)',
    input:
      "the 121 top-level java.util sources of the JDK's src.zip (openjdk-17-source), -8 -proc:none -d none -nowarn; " +
      'ecj 3.16 predates Java 16 syntax, so it reports the same 258 errors every run (exit 255)',
    packages: ['libecj-java', 'openjdk-17-source'],
    setup() {
      return {
        instrument: [need(join(J, 'ecj.jar'), 'libecj-java')],
        lib: [],
        main: 'org.eclipse.jdt.internal.compiler.batch.Main',
        args: ['-8', '-proc:none', '-d', 'none', '-nowarn', ...javaUtilSources()],
      };
    },
  },
  {
    id: 'xalan',
    title: 'Xalan transforming freedesktop.org.xml',
    program: 'Xalan-J 2.7.2 interpretive processor (libxalan2-java), Xerces 2.12 parser (libxerces2-java)',
    input:
      "shared-mime-info's /usr/share/mime/packages/freedesktop.org.xml (2.4 MB) with scripts/bench/inputs/mime-report.xsl",
    packages: ['libxalan2-java', 'libxerces2-java', 'shared-mime-info'],
    setup() {
      return {
        instrument: [
          need(join(J, 'xalan2.jar'), 'libxalan2-java'),
          need(join(J, 'serializer.jar'), 'libxalan2-java'),
          need(join(J, 'xercesImpl.jar'), 'libxerces2-java'),
        ],
        lib: [],
        main: 'org.apache.xalan.xslt.Process',
        args: [
          '-IN',
          need('/usr/share/mime/packages/freedesktop.org.xml', 'shared-mime-info'),
          '-XSL',
          join(BENCH_DIR, 'inputs', 'mime-report.xsl'),
          '-OUT',
          'report.txt',
        ],
      };
    },
  },
  {
    id: 'h2',
    title: 'H2 running a SQL workload',
    program: 'H2 2.1.214 (libh2-java), org.h2.tools.RunScript on an in-memory database',
    input: 'scripts/bench/inputs/h2-workload.sql: TPC-H-like tables built in SQL, joins, aggregates, window functions, updates',
    packages: ['libh2-java'],
    setup() {
      return {
        instrument: [need(join(J, 'h2.jar'), 'libh2-java')],
        lib: [],
        main: 'org.h2.tools.RunScript',
        args: ['-url', 'jdbc:h2:mem:bench', '-script', join(BENCH_DIR, 'inputs', 'h2-workload.sql'), '-showResults'],
      };
    },
  },
  {
    id: 'sunflow',
    title: 'Sunflow rendering a Cornell box',
    program: 'Sunflow 0.07.2 (libsunflow-java) ray tracer, one render thread',
    input:
      'scripts/bench/inputs/sunflow-scene.sc (Cornell box, glass and mirror spheres, teapot, caustic photons, IGI), 320x240, ' +
      "through scripts/bench/java/SunflowRender.java (Debian's SunflowGUI has its scene parsers removed)",
    packages: ['libsunflow-java'],
    setup() {
      return {
        instrument: [need(join(J, 'sunflow.jar'), 'libsunflow-java')],
        lib: [],
        drivers: true,
        main: 'SunflowRender',
        args: [join(BENCH_DIR, 'inputs', 'sunflow-scene.sc'), 'image.png'],
      };
    },
  },
];

/** The jars whose `instrument` speed is compared with JaCoCo's offline instrumentation. */
export function instrumentSpeedJars() {
  return [
    { id: 'guava', path: need(join(J, 'guava.jar'), 'libguava-java') },
    { id: 'ecj', path: need(join(J, 'ecj.jar'), 'libecj-java') },
    { id: 'rhino', path: need(join(J, 'js.jar'), 'librhino-java') },
  ];
}
