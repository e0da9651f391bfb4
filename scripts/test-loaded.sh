#!/usr/bin/env bash
# Runs the tests of the packages named twice (go test -race -count=2) beside a
# busy loop that takes one core, as CI's other test packages do (make test runs
# three at once): make test-loaded PKGS=./runner/faultsuite. A test that times
# or counts anything passes it before it is committed (docs/testing.md).
# The loop is stopped when the tests end, pass or fail, or this script is
# interrupted; it also stops by itself once this script is gone.
set -u
[ $# -gt 0 ] || { echo "test-loaded: name the packages to test, e.g. make test-loaded PKGS=./runner/faultsuite" >&2; exit 2; }
sh -c 'while kill -0 "$1" 2>/dev/null; do :; done' lockbench-busy-core $$ &
busy=$!
trap 'kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "test-loaded: a busy loop (pid $busy) takes one core beside: ${GO:-go} test -race -count=2 -timeout 30m $*" >&2
"${GO:-go}" test -race -count=2 -timeout 30m "$@"
