package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/calibrate"
	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/soak"
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

// thresholdsFailed is a library's error that counts as failed
// thresholds (exit 1): its message alone.
type thresholdsFailed struct{ err error }

func (e thresholdsFailed) Error() string   { return e.err.Error() }
func (e thresholdsFailed) Unwrap() []error { return []error{errThresholds, e.err} }

// usageError is bad input: its message names the flag and what it accepts.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// run is the whole command; main only maps its error to an exit status.
// Help (lockbench help [COMMAND], COMMAND --help or -h) goes to stdout and
// succeeds.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		writeRootHelp(stderr)
		return usagef("no command given (commands: %s)", knownCommands())
	}
	if isHelpArg(args[0]) {
		name := slices.DeleteFunc(slices.Clone(args[1:]), isHelpArg)
		if len(name) == 0 {
			writeRootHelp(stdout)
			return nil
		}
		return run(ctx, append(name, "--help"), stdout, stderr)
	}
	cmd := findCommand(commands, args[0])
	if cmd == nil {
		return usagef("unknown command %q (commands: %s)", args[0], knownCommands())
	}
	return cmd.exec(ctx, args[1:], stdout, stderr)
}

// isHelpArg reports whether arg asks for help in place of a command.
func isHelpArg(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help"
}

// exec runs c with args, the arguments after its name: a group picks the
// action args begin with. A request for help is answered here, on stdout.
func (c *command) exec(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(c.actions) > 0 {
		switch {
		case len(args) == 0:
			return usagef("%s: give an action: %s", c.name, strings.Join(c.usageLines(true), " | "))
		case isHelpArg(args[0]):
			return writeHelp(stdout, c, nil)
		}
		action := findCommand(c.actions, args[0])
		if action == nil {
			return usagef("%s: unknown action %q; %s", c.name, args[0], strings.Join(c.usageLines(true), " | "))
		}
		return action.exec(ctx, args[1:], stdout, stderr)
	}
	err := c.run(ctx, args, stdout, stderr)
	if h, ok := errors.AsType[helpRequest](err); ok {
		return writeHelp(stdout, c, h.flags)
	}
	return err
}

// helpRequest is what parsing returns for --help or -h: the command's
// flags, for exec to print its help with.
type helpRequest struct{ flags *pflag.FlagSet }

func (h helpRequest) Error() string { return "help requested" }

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints nothing itself: help goes through helpRequest; pflag's own notes
// (a deprecated flag) go to stderr.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs, any number of arguments left. --help and
// -h return a helpRequest; anything else wrong is a usage error of one
// line.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return helpRequest{fs}
		}
		return usageError{err}
	}
	return nil
}

// parse parses args of a command that takes no arguments. help reports
// --help or -h; err is then the helpRequest to return, which exec answers.
func parse(fs *pflag.FlagSet, args []string) (help bool, err error) {
	return parseWithArgs(fs, args, 0)
}

// parseWithArgs is parse for a command that takes exactly n arguments.
func parseWithArgs(fs *pflag.FlagSet, args []string, n int) (help bool, err error) {
	if err := parseFlags(fs, args); err != nil {
		_, help = errors.AsType[helpRequest](err)
		return help, err
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
	if errors.Is(err, errInterrupted) || errors.Is(err, runner.ErrInterrupted) {
		return exitInterrupted
	}
	if errors.Is(err, errThresholds) {
		return exitThresholds
	}
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, clients.ErrUnreachable) || errors.Is(err, topologies.ErrBadSpec) ||
		errors.Is(err, faults.ErrBadFault) || errors.Is(err, witness.ErrSameServer) || errors.Is(err, witness.ErrPlanMismatch) ||
		errors.Is(err, witness.ErrArrivedTwice) || errors.Is(err, calibrate.ErrBadOptions) ||
		errors.Is(err, plan.ErrMemory) || errors.Is(err, outputs.ErrUnwritable) || errors.Is(err, soak.ErrBadOptions) ||
		errors.Is(err, driver.ErrBadDriver) || errors.Is(err, plan.ErrBadScenario) {
		return exitUsage
	}
	return exitRunFailed
}
