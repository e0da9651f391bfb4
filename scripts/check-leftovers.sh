#!/usr/bin/env bash
# Fails when a process that lockbench or its tests started is still running:
# a redis-server or valkey-server (or sentinel), which runs in a lockbench-redis-* directory,
# or a lock driver (or a child of one), whose environment holds
# LOCKBENCH_DRIVER=<name> (package driver sets it; docs/drivers.md).
set -u
left=()
for pid in $(pgrep -f '(redis|valkey)-(server|sentinel)' 2>/dev/null); do
  cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null) || continue
  case "$cwd" in
    *lockbench-redis-*) left+=("$pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) (in $cwd)") ;;
  esac
done
drivers=()
for env in /proc/[0-9]*/environ; do
  pid=${env#/proc/}; pid=${pid%/environ}
  name=$({ tr '\0' '\n' < "$env"; } 2>/dev/null | sed -n 's/^LOCKBENCH_DRIVER=//p' | head -n 1)
  [ -n "$name" ] || continue
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
  [ "$state" = Z ] && continue
  drivers+=("$pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) (driver $name, in $(readlink "/proc/$pid/cwd" 2>/dev/null))")
done
status=0
if [ ${#left[@]} -gt 0 ]; then
  echo "redis processes started by lockbench are still running after the tests:" >&2
  printf '  %s\n' "${left[@]}" >&2
  echo "(a topology left up on purpose is stopped with: lockbench topology down)" >&2
  status=1
fi
if [ ${#drivers[@]} -gt 0 ]; then
  echo "lock driver processes started by lockbench are still running after the tests:" >&2
  printf '  %s\n' "${drivers[@]}" >&2
  status=1
fi
[ $status -eq 0 ] && echo "no redis or driver process left behind by lockbench"
exit $status
