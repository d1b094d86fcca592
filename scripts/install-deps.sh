#!/usr/bin/env bash
# Installs everything the test suite uses as real-world input, idempotently:
#   - a JDK 17 (only if javac is missing) and its sources (lib/src.zip),
#   - Debian's Java library packages whose jars the tests rewrite and verify,
#   - Maven and Debian's exec-maven-plugin (for the Maven sample),
#   - npm packages used as test INPUTS (not project deps), unpacked into
#     .cache/npm-inputs/<name>/ so they never touch node_modules.
# Fast when everything is present: no apt-get update, no network.
# Run as root (CI and the dev machines are root); uses sudo otherwise if present.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$REPO/.cache"

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

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
#   chromium             /usr/bin/chromium: the browser test/flamegraph-browser.test.ts drives with
#                        playwright-core (executablePath; playwright's own browser download is not used)
APT_PACKAGES=(
  libguava-java libcommons-lang3-java librhino-java rhino libecj-java
  jflex cup libasm-java libjacoco-java junit4 libhamcrest-java
  openjdk-17-source maven libexec-maven-plugin-java
  libmaven-compiler-plugin-java libmaven-jar-plugin-java libmaven-resources-plugin-java junit5
  chromium
)
if ! command -v javac >/dev/null 2>&1; then
  APT_PACKAGES=(openjdk-17-jdk-headless "${APT_PACKAGES[@]}")
fi

# Pinned npm packages used as test inputs (the JS engines in the corpus run them).
NPM_INPUTS=(esprima@4.0.1 lodash@4.17.21)

is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  # Wait for any other apt/dpkg run (e.g. one started by hand) instead of failing on the lock.
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  for p in "${missing[@]}"; do
    if is_installed "$p"; then
      echo "install-deps:   installed $p $(dpkg-query -W -f='${Version}' "$p")"
    else
      echo "install-deps: FAILED to install $p" >&2
      exit 1
    fi
  done
else
  echo "install-deps: all ${#APT_PACKAGES[@]} Debian packages present"
fi

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
mkdir -p "$CACHE/npm-inputs"
for spec in "${NPM_INPUTS[@]}"; do
  name="${spec%@*}"
  version="${spec##*@}"
  dest="$CACHE/npm-inputs/$name"
  if [ -f "$dest/.komorium-version" ] && [ "$(cat "$dest/.komorium-version")" = "$version" ]; then
    continue
  fi
  echo "install-deps: fetching npm test input $spec"
  tmp="$(mktemp -d "$CACHE/npm-inputs/.tmp-$name-XXXXXX")"
  tgz="$(cd "$tmp" && npm pack --silent "$spec" | tail -n1)"
  mkdir -p "$tmp/pkg"
  tar -xzf "$tmp/$tgz" -C "$tmp/pkg" --strip-components=1
  echo "$version" >"$tmp/pkg/.komorium-version"
  rm -rf "$dest"
  mv "$tmp/pkg" "$dest"
  rm -rf "$tmp"
done
echo "install-deps: npm test inputs: ${NPM_INPUTS[*]} in $CACHE/npm-inputs"
