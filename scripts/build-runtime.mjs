#!/usr/bin/env node
// Builds runtime-java/build/komorium-runtime.jar: the Java runtime that every instrumented program
// needs on its class path (the transform copies it into each output jar).
//
//   node scripts/build-runtime.mjs [--force]
//
// The jar is rebuilt only when a source (or this script) is newer than it, so `npm run build`
// stays fast and works without a JDK once the jar exists. The npm package ships the jar and not
// the sources, so end users never need javac. The jar is deterministic: sorted entries, fixed
// timestamps, fixed compression, so that the same sources and javac give the same bytes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'runtime-java', 'src');
// Each profile kind keeps its runtime class beside its passes (src/kinds/<kind>/*.java).
const kindsDir = join(root, 'src', 'kinds');
const buildDir = join(root, 'runtime-java', 'build');
// Copied into the jar as they are: the JUnit Platform listener's META-INF/services registration.
const resourcesDir = join(root, 'runtime-java', 'resources');
// The JUnit Platform listener (komorium/runtime/junit) compiles against these; they are not in the
// jar, which needs them only where JUnit runs it. Debian's junit5 package has them (install-deps).
const JUNIT_JARS = ['junit-platform-launcher', 'junit-platform-engine', 'junit-platform-commons', 'opentest4j', 'apiguardian-api'];
const classesDir = join(buildDir, 'classes');
const jarPath = join(buildDir, 'komorium-runtime.jar');
// DOS time cannot represent dates before 1980; any fixed date makes the jar reproducible.
const FIXED_DATE = new Date('1980-01-01T00:00:00Z');

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

function fail(message) {
  console.error(`build-runtime: ${message}`);
  process.exit(1);
}

/** The JUnit Platform jars: $KOMORIUM_JUNIT_CLASSPATH, else Debian's /usr/share/java. */
function junitClasspath() {
  const given = process.env.KOMORIUM_JUNIT_CLASSPATH;
  if (given) return given;
  const jars = JUNIT_JARS.map((n) => join('/usr/share/java', `${n}.jar`));
  const missing = jars.filter((j) => !existsSync(j));
  if (missing.length > 0) {
    fail(
      `the runtime's JUnit Platform listener compiles against ${missing.join(', ')}, which are missing: install Debian's junit5 ` +
        '(bash scripts/install-deps.sh), or set KOMORIUM_JUNIT_CLASSPATH to junit-platform-launcher, -engine, -commons, opentest4j and apiguardian-api jars',
    );
  }
  return jars.join(':');
}

function upToDate(sources) {
  if (!existsSync(jarPath)) return false;
  const jarTime = statSync(jarPath).mtimeMs;
  const inputs = [...sources, fileURLToPath(import.meta.url)];
  return inputs.every((f) => statSync(f).mtimeMs <= jarTime);
}

/** The javac options for Java 8 class files; JDK 8's javac has no --release. */
function releaseOptions(javac) {
  const r = spawnSync(javac, ['-version'], { encoding: 'utf8' });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const m = /javac (\d+)(?:\.(\d+))?/.exec(text);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : 0;
  return major >= 9 ? ['--release', '8'] : ['-source', '8', '-target', '8'];
}

function findJavac() {
  const home = process.env.JAVA_HOME;
  const exe = process.platform === 'win32' ? 'javac.exe' : 'javac';
  if (home && existsSync(join(home, 'bin', exe))) return join(home, 'bin', exe);
  const probe = spawnSync(exe, ['-version'], { encoding: 'utf8' });
  return probe.error ? null : exe;
}

async function main() {
  const force = process.argv.includes('--force');
  if (!existsSync(srcDir)) {
    // An installed package: only the prebuilt jar is shipped.
    if (existsSync(jarPath)) return;
    fail(`neither ${relative(root, srcDir)} nor ${relative(root, jarPath)} exists`);
  }
  const sources = [...walk(srcDir), ...(existsSync(kindsDir) ? walk(kindsDir) : [])]
    .filter((f) => f.endsWith('.java'))
    .sort();
  const resources = existsSync(resourcesDir) ? walk(resourcesDir).sort() : [];
  if (sources.length === 0) fail(`no Java sources under ${relative(root, srcDir)}`);
  if (!force && upToDate([...sources, ...resources])) {
    console.log(`build-runtime: ${relative(root, jarPath)} is up to date`);
    return;
  }

  const javac = findJavac();
  if (!javac) {
    fail(
      'javac was not found (neither $JAVA_HOME/bin/javac nor javac on the PATH). Building the Java runtime ' +
        'needs a JDK 8 or newer: install one (e.g. `apt-get install openjdk-17-jdk-headless`) or set JAVA_HOME. ' +
        'Users of the published package do not need this: it ships the prebuilt jar.',
    );
  }

  // A fresh directory per build, so that classes of deleted sources cannot end up in the jar and
  // two builds started at once (parallel test workers) do not compile into each other's output.
  const outDir = `${classesDir}.${process.pid}.tmp`;
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const args = [
    ...releaseOptions(javac),
    // All lint warnings are errors; "options" is excluded because newer JDKs warn that release 8
    // is obsolete, which is a property of the JDK, not of the code.
    '-Xlint:all,-options',
    '-Werror',
    '-encoding',
    'UTF-8',
    '-d',
    outDir,
    '-cp',
    junitClasspath(),
    ...sources,
  ];
  const r = spawnSync(javac, args, { stdio: 'inherit' });
  if (r.error) fail(`cannot run ${javac}: ${r.error.message}`);
  if (r.status !== 0) {
    rmSync(outDir, { recursive: true, force: true });
    fail(`javac failed (exit ${r.status})`);
  }

  const zip = new JSZip();
  const opts = { date: FIXED_DATE, createFolders: false };
  zip.file('META-INF/MANIFEST.MF', 'Manifest-Version: 1.0\r\nCreated-By: komorium-ts\r\nAutomatic-Module-Name: komorium.runtime\r\n\r\n', opts);
  const classes = walk(outDir)
    .map((f) => relative(outDir, f).split(sep).join('/'))
    .sort();
  for (const name of classes) zip.file(name, readFileSync(join(outDir, ...name.split('/'))), opts);
  for (const f of resources) zip.file(relative(resourcesDir, f).split(sep).join('/'), readFileSync(f), opts);
  const bytes = await zip.generateAsync({
    type: 'nodebuffer',
    compression: 'DEFLATE',
    compressionOptions: { level: 9 },
    platform: 'UNIX',
  });
  // Written next to the target and renamed, so that a concurrent reader never sees half a jar.
  const tmp = `${jarPath}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, jarPath);
  // build/classes mirrors the jar for tools that want a directory on the class path.
  rmSync(classesDir, { recursive: true, force: true });
  try {
    renameSync(outDir, classesDir);
  } catch {
    rmSync(outDir, { recursive: true, force: true }); // a concurrent build put its identical copy there
  }
  console.log(`build-runtime: wrote ${relative(root, jarPath)} (${classes.length} classes, ${bytes.length} bytes)`);
}

main().catch((e) => fail(e instanceof Error ? e.stack ?? e.message : String(e)));
