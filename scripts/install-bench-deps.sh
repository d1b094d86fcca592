#!/usr/bin/env bash
# Installs the workloads and tools of `npm run bench` (scripts/bench.mjs), idempotently, in the
# style of scripts/install-deps.sh (which the test suite uses; this script does not need it):
#   - a JDK 17 (only if javac or jfr is missing) and its sources (lib/src.zip, ecj's input),
#   - the Debian packages of the benchmarked programs, their inputs and the tools compared with,
#   - esprima and lodash from npm (Rhino's input), unpacked into .cache/npm-inputs/<name>/ exactly
#     as install-deps.sh does, so both scripts share them.
# Fast when everything is present: no apt-get update, no network.
# Run as root (the dev machines are root); uses sudo otherwise if present.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$REPO/.cache"

# shellcheck source=lib/install-common.sh
. "$REPO/scripts/lib/install-common.sh"

# Debian 12 (bookworm) package names, checked with apt-cache:
#   librhino-java        /usr/share/java/js.jar (Rhino 1.7.14)              workload rhino
#   jflex, cup           /usr/share/java/jflex.jar (1.7.0), cup.jar, cup_runtime.jar,
#                        /usr/share/doc/jflex/examples/java/java.flex        workload jflex
#   libecj-java          /usr/share/java/ecj.jar (3.16.0)                     workload ecj
#   openjdk-17-source    $JAVA_HOME/lib/src.zip: java.util's sources, ecj's input
#   libxalan2-java       /usr/share/java/xalan2.jar, serializer.jar (2.7.2); pulls
#                        libxerces2-java (xercesImpl.jar)                      workload xalan
#   shared-mime-info     /usr/share/mime/packages/freedesktop.org.xml (2.4 MB), xalan's input
#   libh2-java           /usr/share/java/h2.jar (2.1.214)                      workload h2
#   libsunflow-java      /usr/share/java/sunflow.jar (0.07.2)                  workload sunflow
#   libjacoco-java       org.jacoco.core.jar, org.jacoco.agent.rt.jar (0.8.6): JaCoCo offline
#   libasm-java          asm.jar, asm-commons.jar, asm-tree.jar (JaCoCo's dependencies)
#   libguava-java        /usr/share/java/guava.jar: `instrument` speed against JaCoCo
#   time                 /usr/bin/time -f %M (peak memory of every run)
APT_PACKAGES=(
  librhino-java jflex cup libecj-java openjdk-17-source libxalan2-java libxerces2-java
  shared-mime-info libh2-java libsunflow-java libjacoco-java libasm-java libguava-java time
)
if ! command -v javac >/dev/null 2>&1 || ! command -v jfr >/dev/null 2>&1; then
  APT_PACKAGES=(openjdk-17-jdk-headless "${APT_PACKAGES[@]}")
fi

# Pinned npm packages used as Rhino's input (the same pins as scripts/install-deps.sh).
NPM_INPUTS=(esprima@4.0.1 lodash@4.17.21)

install_apt_packages install-bench-deps "${APT_PACKAGES[@]}"

fetch_npm_inputs install-bench-deps "$CACHE/npm-inputs" "${NPM_INPUTS[@]}"
