#!/usr/bin/env bash
# Fails when a redis-server (or sentinel) that lockbench or its tests started
# is still running: such processes run in a lockbench-redis-* directory.
set -u
left=()
for pid in $(pgrep -f 'redis-(server|sentinel)' 2>/dev/null); do
  cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null) || continue
  case "$cwd" in
    *lockbench-redis-*) left+=("$pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) (in $cwd)") ;;
  esac
done
if [ ${#left[@]} -gt 0 ]; then
  echo "redis processes started by lockbench are still running after the tests:" >&2
  printf '  %s\n' "${left[@]}" >&2
  echo "(a topology left up on purpose is stopped with: lockbench topology down)" >&2
  exit 1
fi
echo "no redis process left behind by lockbench"
