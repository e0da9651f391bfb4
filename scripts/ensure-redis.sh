#!/usr/bin/env bash
# Makes sure redis-server is on PATH: installs Debian's package when run as
# root on a machine with apt-get, otherwise says what to install.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis-server not found: installing Debian's redis-server package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq redis-server >/dev/null
  command -v redis-server >/dev/null 2>&1 && exit 0
fi
cat >&2 <<'MSG'
redis-server is not installed, and this script can only install it as root with apt-get.
Install it, then run the command again:
  Debian/Ubuntu:  sudo apt-get install -y redis-server
  macOS:          brew install redis
  other:          https://redis.io/docs/latest/operate/oss_and_stack/install/
MSG
exit 1
