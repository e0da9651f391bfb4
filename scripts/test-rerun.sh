#!/usr/bin/env bash
# Runs go test through gotestsum, rerunning failed tests once, then names each
# test that passed only on its rerun on a line "flaky: PKG TEST" (docs/testing.md:
# such a test is a defect). Run from the root of the module to test:
#   test-rerun.sh "PACKAGES" [go test flags]
# make test runs it (and scripts/check-rerun.sh, its self-test, first). The
# rerun: once (--rerun-fails=1), and none when more than three tests failed
# (--rerun-fails-max-failures=3) or a data race was found. The exit status is
# gotestsum's: non-zero when a test failed its rerun too; also 1 when a package
# failed outside any test (TestMain's leak check, init), which a rerun cannot retry.
# GOTESTSUM and FLAKYTESTS name the two programs; make bin/gotestsum builds
# both from tools/ (gotestsum's version is tools/go.mod's).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
gotestsum=${GOTESTSUM:-$root/bin/gotestsum}
flakytests=${FLAKYTESTS:-$root/bin/flakytests}
for tool in "$gotestsum" "$flakytests"; do
  [ -x "$tool" ] || { echo "test-rerun: $tool is missing: make bin/gotestsum builds it from tools/go.mod" >&2; exit 2; }
done
[ $# -ge 1 ] && [ -n "$1" ] || { echo 'usage: test-rerun.sh "PACKAGES" [go test flags]' >&2; exit 2; }
packages=$1
shift

events=$(mktemp "${TMPDIR:-/tmp}/lockbench-test-events.XXXXXX")
trap 'rm -f "$events"' EXIT
status=0
# pkgname-and-test-fails: a line per package, and a failed test's output as it
# fails (again in the summary at the end).
"$gotestsum" --format=pkgname-and-test-fails --format-icons=text \
  --rerun-fails=1 --rerun-fails-max-failures=3 --rerun-fails-abort-on-data-race \
  --jsonfile="$events" --packages="$packages" -- "$@" || status=$?
echo
"$flakytests" "$events" || { [ $status -ne 0 ] || status=1; }
exit $status
