# Shared by scripts/install-deps.sh and scripts/install-bench-deps.sh (sourced, not run):
# idempotent installation of Debian packages and of npm packages used as inputs.
# Both functions take the caller's name first, for their messages.

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# install_apt_packages TAG PACKAGE...: installs the missing ones; no apt-get update when none is.
install_apt_packages() {
  local tag="$1"
  shift
  local missing=() p
  for p in "$@"; do
    is_installed "$p" || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "$tag: all $# Debian packages present"
    return
  fi
  echo "$tag: installing Debian packages: ${missing[*]}"
  # Wait for any other apt/dpkg run (e.g. one started by hand) instead of failing on the lock.
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  for p in "${missing[@]}"; do
    if is_installed "$p"; then
      echo "$tag:   installed $p $(dpkg-query -W -f='${Version}' "$p")"
    else
      echo "$tag: FAILED to install $p" >&2
      exit 1
    fi
  done
}

# fetch_npm_inputs TAG DIR NAME@VERSION...: `npm pack` (which checks the registry's integrity) and
# unpack each into DIR/<name>/, marked with .komorium-version; skips those already there.
fetch_npm_inputs() {
  local tag="$1" dir="$2"
  shift 2
  mkdir -p "$dir"
  local spec name version dest tmp tgz
  for spec in "$@"; do
    name="${spec%@*}"
    version="${spec##*@}"
    dest="$dir/$name"
    if [ -f "$dest/.komorium-version" ] && [ "$(cat "$dest/.komorium-version")" = "$version" ]; then
      continue
    fi
    echo "$tag: fetching npm input $spec"
    tmp="$(mktemp -d "$dir/.tmp-$name-XXXXXX")"
    tgz="$(cd "$tmp" && npm pack --silent "$spec" | tail -n1)"
    mkdir -p "$tmp/pkg"
    tar -xzf "$tmp/$tgz" -C "$tmp/pkg" --strip-components=1
    echo "$version" >"$tmp/pkg/.komorium-version"
    rm -rf "$dest"
    mv "$tmp/pkg" "$dest"
    rm -rf "$tmp"
  done
  echo "$tag: npm inputs: $* in $dir"
}
