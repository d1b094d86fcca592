#!/usr/bin/env bash
# Installs everything the test suite uses as real-world input, idempotently:
#   - a JDK 17 (only if javac is missing) and its sources (lib/src.zip),
#   - Debian's Java library packages whose jars the tests rewrite and verify,
#   - Maven and Debian's exec-maven-plugin (for the Maven sample), Gradle (for the Gradle sample),
#   - npm packages used as test INPUTS (not project deps), unpacked into
#     .cache/npm-inputs/<name>/ so they never touch node_modules.
# Fast when everything is present: no apt-get update, no network.
# Run as root (CI and the dev machines are root); uses sudo otherwise if present.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$REPO/.cache"

# shellcheck source=lib/install-common.sh
. "$REPO/scripts/lib/install-common.sh"

# Debian 12 (bookworm) package names, checked with apt-cache:
#   libguava-java        /usr/share/java/guava.jar (31.1, includes failureaccess)
#   libcommons-lang3-java /usr/share/java/commons-lang3.jar
#   librhino-java, rhino /usr/share/java/js.jar (= rhino.jar), /usr/bin/rhino
#   libecj-java          /usr/share/java/ecj.jar
#   jflex, cup           /usr/share/java/jflex.jar (Class-Path: cup.jar cup_runtime.jar)
#                        /usr/share/doc/jflex/examples/java/java.flex
#   libasm-java          /usr/share/java/asm.jar, asm-tree.jar, asm-commons.jar, ...
#   libjacoco-java       /usr/share/java/org.jacoco.core.jar, org.jacoco.agent.rt.jar, ...
#   junit4, libhamcrest-java /usr/share/java/junit4.jar, hamcrest-core.jar
#   openjdk-17-source    /usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip
#                        (depends on openjdk-17-jdk of the same version, so it may
#                        upgrade the preinstalled JDK 17 to the current security release)
#   maven, libexec-maven-plugin-java (/usr/share/maven-repo/org/codehaus/mojo/exec-maven-plugin/3.1.0)
#   libmaven-compiler-plugin-java 3.10.1, libmaven-jar-plugin-java 3.3.0, libmaven-resources-plugin-java 3.3.0:
#                        the plugins samples/maven pins, for `mvn -o -Dmaven.repo.local=/usr/share/maven-repo`
#   junit5               org.junit:junit-bom, which plexus-compiler's POM (under maven-compiler-plugin) imports
#   libclojure-java      /usr/share/java/clojure.jar (1.11; with libspec-alpha-clojure, libcore-specs-alpha-clojure)
#   groovy               /usr/share/java/groovy.jar (2.4)
#   antlr4               ANTLR 4.7 as Debian runs it (/usr/bin/antlr4): antlr4.jar with stringtemplate4.jar,
#                        antlr4-runtime.jar, antlr3-runtime.jar and treelayout.jar, five jars that call each other
#                        (test/multi-jar.test.ts instruments them as one program)
#   gradle               /usr/bin/gradle (4.4.1, Groovy DSL, runs on JDK 17): test/gradle.test.ts builds
#                        samples/gradle offline with komorium.gradle
#   chromium             /usr/bin/chromium: the browser test/flamegraph-browser.test.ts drives with
#                        playwright-core (executablePath; playwright's own browser download is not used)
#   golang-go            `go tool pprof`: test/exports.test.ts reads the pprof export with it (-top, -traces)
#   valgrind             callgrind_annotate: test/exports.test.ts reads the callgrind export with it
#   libsurefire-java     maven-surefire-plugin 2.22 with its JUnit Platform provider, for samples/maven's tests
APT_PACKAGES=(
  libguava-java libcommons-lang3-java librhino-java rhino libecj-java
  jflex cup libasm-java libjacoco-java junit4 libhamcrest-java
  openjdk-17-source maven libexec-maven-plugin-java
  libmaven-compiler-plugin-java libmaven-jar-plugin-java libmaven-resources-plugin-java junit5
  libclojure-java groovy antlr4 gradle chromium golang-go valgrind libsurefire-java
)
if ! command -v javac >/dev/null 2>&1; then
  APT_PACKAGES=(openjdk-17-jdk-headless "${APT_PACKAGES[@]}")
fi

# Pinned npm packages used as test inputs (the JS engines in the corpus run them; speedscope for
# dist/release/file-format-schema.json, against which test/exports.test.ts validates the export).
NPM_INPUTS=(esprima@4.0.1 lodash@4.17.21 speedscope@1.25.0)

install_apt_packages install-deps "${APT_PACKAGES[@]}"

# A second JDK for cross-version checks is optional. Debian 12 packages only
# openjdk-17; report what exists without installing anything (a second Debian JDK
# would take over the `java` alternative).
for d in /usr/lib/jvm/*/; do
  d="${d%/}"
  if [ -x "$d/bin/javac" ] && [ ! -L "$d" ]; then
    echo "install-deps: JDK at $d: $("$d/bin/java" -version 2>&1 | head -n1)"
  fi
done

# npm packages used as test inputs: `npm pack` (verifies the registry integrity)
# then unpack into .cache/npm-inputs/<name>/, marked with .komorium-version.
fetch_npm_inputs install-deps "$CACHE/npm-inputs" "${NPM_INPUTS[@]}"
