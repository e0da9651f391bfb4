#!/usr/bin/env bash
# Makes sure valkey-server is on PATH (the tests run lockbench on Valkey beside
# Redis): installs Debian's valkey-server package when run as root on a machine
# with apt-get, otherwise says what to install. Debian 12 (bookworm) has Valkey
# only in bookworm-backports, which apt does not use by default: this script
# adds that suite (a deb822 file beside the system's debian.sources, on the same
# mirror and keyring) and installs from it.
set -euo pipefail
if command -v valkey-server >/dev/null 2>&1; then
  exit 0
fi

# The first stanza of debian.sources that names the release's main suite gives
# the mirror and its keyring; Debian's defaults where there is none.
sources_field() { # FIELD FILE: the field of the first stanza whose Suites has $codename
  awk -v field="$1" -v codename="$codename" '
    BEGIN { RS = ""; FS = "\n" }
    {
      value = ""; main = 0
      for (i = 1; i <= NF; i++) {
        if ($i ~ "^Suites:" && (" " $i " ") ~ (" " codename " ")) main = 1
        if (index($i, field ":") == 1) { value = substr($i, length(field) + 2); sub(/^[ \t]+/, "", value) }
      }
      if (main && value != "") { print value; exit }
    }' "$2"
}

install_valkey() {
  export DEBIAN_FRONTEND=noninteractive
  . /etc/os-release
  codename=${VERSION_CODENAME:-bookworm}
  apt-get update -qq
  if apt-cache policy valkey-server 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get install -y -qq valkey-server >/dev/null
    return
  fi
  backports=/etc/apt/sources.list.d/backports.sources
  if [ ! -f "$backports" ]; then
    system=/etc/apt/sources.list.d/debian.sources
    uri="" keyring=""
    if [ -f "$system" ]; then
      uri=$(sources_field URIs "$system")
      keyring=$(sources_field Signed-By "$system")
    fi
    echo "valkey-server: adding Debian's ${codename}-backports suite ($backports)" >&2
    cat >"$backports" <<EOF
Types: deb
URIs: ${uri:-http://deb.debian.org/debian}
Suites: ${codename}-backports
Components: main
Signed-By: ${keyring:-/usr/share/keyrings/debian-archive-keyring.gpg}
EOF
    apt-get update -qq
  fi
  apt-get install -y -qq -t "${codename}-backports" valkey-server >/dev/null
}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "valkey-server not found: installing Debian's valkey-server package" >&2
  install_valkey || true
  command -v valkey-server >/dev/null 2>&1 && exit 0
fi
cat >&2 <<'MSG'
valkey-server is not installed, and this script can only install it as root with apt-get.
Install it, then run the command again:
  Debian 12:      add bookworm-backports to apt's sources, then
                  sudo apt-get install -y -t bookworm-backports valkey-server
  Debian 13/Ubuntu 24.04+: sudo apt-get install -y valkey-server
  macOS:          brew install valkey
  other:          https://valkey.io/download/
MSG
exit 1
