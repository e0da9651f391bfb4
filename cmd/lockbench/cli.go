package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/witness"
)

// Exit statuses.
const (
	exitOK          = 0
	exitThresholds  = 1   // a --check did not hold
	exitUsage       = 2   // bad flags, values, URLs, or an unreachable target
	exitRunFailed   = 3   // the run itself failed
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM; the message says what was saved, and where
)

// errInterrupted reports a command stopped by a signal: its message goes on
// to say what was saved and where (errNothingMeasured: nothing was);
// errThresholds a run whose --check thresholds failed.
var (
	errInterrupted     = errors.New("interrupted")
	errNothingMeasured = fmt.Errorf("%w before anything was measured: no record written", errInterrupted)
	errThresholds      = errors.New("thresholds failed")
)

// usageError is bad input: its message names the flag and what it accepts.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

const usage = `lockbench benchmarks Redis distributed locks and counts their violations.

Usage:
  lockbench run [flags]             run variants side by side and print one table
  lockbench variants                list the lock designs with their claims
  lockbench scenarios               list the named scenarios (run --scenario NAME)
  lockbench findings                run every scenario and write docs/findings.md
  lockbench merge A.json B.json -o M.json   merge records of shards of one load (or --witness URL --run-id ID)
  lockbench report A.json ... -o report.html   one self-contained HTML page with charts of records
  lockbench compare OLD.json NEW.json      compare two runs over their repetitions, like benchstat; --fail-on gates CI
  lockbench sweep [flags]           step clients (or rate) up to the SLO, fit the scalability model, plan shards
  lockbench calibrate [flags]       compare lockbench with redis-benchmark on one local redis-server
  lockbench soak [flags]            run a mixed workload for --duration, print memory and goroutines each --interval; fail unless flat
  lockbench topology up NAME        start a local topology that stays up, print its addresses
  lockbench topology down           stop it
  lockbench help [command]          show help

Run 'lockbench run --help' for the flags of a run.
`

// run is the whole command; main only maps its error to an exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given (commands: run, variants, scenarios, findings, merge, compare, report, sweep, topology, calibrate, soak, help)")
	}
	switch args[0] {
	case "run":
		return runRun(ctx, args[1:], stdout, stderr)
	case "variants":
		return runVariants(args[1:], stdout, stderr)
	case "calibrate":
		return runCalibrate(ctx, args[1:], stdout, stderr)
	case "topology":
		return runTopology(ctx, args[1:], stdout, stderr)
	case "scenarios":
		return runScenarios(args[1:], stdout, stderr)
	case "findings":
		return runFindings(ctx, args[1:], stdout, stderr)
	case "merge":
		return runMerge(ctx, args[1:], stdout, stderr)
	case "compare":
		return runCompare(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "sweep":
		return runSweep(ctx, args[1:], stdout, stderr)
	case "soak":
		return runSoak(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usagef("unknown command %q (commands: run, variants, scenarios, findings, merge, compare, report, sweep, topology, calibrate, soak, help)", args[0])
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	return fs
}

// parse parses args of a command that takes no arguments, treating --help
// as success and anything else wrong as a usage error of one line.
func parse(fs *pflag.FlagSet, args []string) (help bool, err error) {
	return parseWithArgs(fs, args, 0)
}

// parseWithArgs is parse for a command that takes exactly n arguments.
func parseWithArgs(fs *pflag.FlagSet, args []string, n int) (help bool, err error) {
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(fs.Output(), "Usage of lockbench %s:\n%s", fs.Name(), fs.FlagUsages())
			return true, nil
		}
		return false, usageError{err}
	}
	switch {
	case n == 0 && fs.NArg() > 0:
		return false, usagef("unexpected argument %q", fs.Arg(0))
	case fs.NArg() != n:
		return false, usagef("%s takes %d argument(s), got %d", fs.Name(), n, fs.NArg())
	}
	return false, nil
}

// exitStatus prints err in one line and returns the status for it.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "lockbench: "+strings.ReplaceAll(err.Error(), "\n", " "))
	if errors.Is(err, errInterrupted) {
		return exitInterrupted
	}
	if errors.Is(err, errThresholds) {
		return exitThresholds
	}
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, clients.ErrUnreachable) || errors.Is(err, topologies.ErrBadSpec) ||
		errors.Is(err, faults.ErrBadFault) || errors.Is(err, witness.ErrSameServer) || errors.Is(err, witness.ErrPlanMismatch) ||
		errors.Is(err, witness.ErrArrivedTwice) {
		return exitUsage
	}
	return exitRunFailed
}
