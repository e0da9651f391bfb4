#!/usr/bin/env bash
# Makes sure a headless Chromium is on PATH for the report's end-to-end
# test: installs Debian's chromium package when run as root on a machine
# with apt-get, otherwise says what to install.
set -euo pipefail
for name in chromium chromium-browser google-chrome; do
  if command -v "$name" >/dev/null 2>&1; then
    exit 0
  fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium not found: installing Debian's chromium package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
  command -v chromium >/dev/null 2>&1 && exit 0
fi
cat >&2 <<'MSG'
chromium is not installed, and this script can only install it as root with apt-get.
The end-to-end test of lockbench report opens the report in headless Chromium.
Install it, then run the command again:
  Debian:         sudo apt-get install -y chromium
  Ubuntu:         sudo snap install chromium   (or google-chrome)
  macOS:          brew install --cask chromium
MSG
exit 1
