#!/usr/bin/env bash
# The self-test of make test's rerun: runs scripts/test-rerun.sh, with the go
# test flags given, on the module scripts/testdata/flaky, whose tests fail on
# their first run only (they leave a mark in $FLAKY_MARK), and fails unless
#  - the run passes and names those tests, and only them, under "flaky:";
#  - with a test that fails its rerun too (FLAKY_ALWAYS=1), the run fails and
#    does not name that test.
# Prints one line when all holds; the runs' output when not. -v prints it always.
set -u
verbose=
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
module=github.com/lockbench/lockbench/scripts/testdata/flaky
marks=$(mktemp -d "${TMPDIR:-/tmp}/lockbench-check-rerun.XXXXXX")
trap 'rm -rf "$marks"' EXIT

# selftest NAME [ENV=VALUE...]: runs the module's tests through test-rerun.sh,
# its marks in a directory of their own; sets out and status.
selftest() {
  mkdir -p "$marks/$1"
  local name=$1
  shift
  out=$(cd "$root/scripts/testdata/flaky" && env FLAKY_MARK="$marks/$name" "$@" "$root/scripts/test-rerun.sh" ./... "${flags[@]}" 2>&1)
  status=$?
  log+=$(printf '%s\n(exit status %d)\n\n' "$out" "$status")$'\n'
  [ -z "$verbose" ] || printf '%s\n(exit status %d)\n\n' "$out" "$status"
}
log=
flags=("$@")
problems=()
flaky() { grep -Fqx "flaky: $module $1" <<<"$out"; }

selftest once
[ "$status" -eq 0 ] || problems+=("the run whose tests pass on their rerun exited $status, not 0")
flaky TestFailsFirstRun || problems+=("TestFailsFirstRun (failed, then passed on its rerun) is not named under flaky:")
flaky TestSubtest/fails-first-run || problems+=("TestSubtest/fails-first-run (failed, then passed on its rerun) is not named under flaky:")
[ "$(grep -c '^flaky: ' <<<"$out")" -eq 2 ] || problems+=("not exactly those two tests are named under flaky:")

selftest always FLAKY_ALWAYS=1
[ "$status" -ne 0 ] || problems+=("the run with a test failing its rerun too exited 0")
flaky TestFailsFirstRun || problems+=("with a test failing its rerun too, TestFailsFirstRun is not named under flaky:")
! flaky TestFailsEveryRunWhenAsked || problems+=("TestFailsEveryRunWhenAsked, failing its rerun too, is named flaky")

if [ ${#problems[@]} -gt 0 ]; then
  [ -n "$verbose" ] || printf '%s' "$log" >&2
  echo "check-rerun: make test's rerun does not do what docs/testing.md says:" >&2
  printf '  %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "check-rerun: a test failing only its first run is named under flaky:, one failing its rerun too fails the run"
