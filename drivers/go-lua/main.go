// Command go-lua is lockbench's reference lock driver: the lua-release
// variant (SET key token NX PX ttl; release by a Lua compare-and-delete;
// extend by a Lua compare-and-PEXPIRE) served over the lock-driver
// protocol (docs/drivers.md) on stdin and stdout, with lockbench's own
// variants and rueidis client. One goroutine per client serves its
// requests; the reader never waits for Redis. It serves single, sentinel
// and cluster modes, and refuses independent masters, renewal and
// semaphores.
//
// lockbench runs it through drivers/go-lua/driver.json after make drivers
// builds it: lockbench driver check go-lua; lockbench run --variants
// drv:go-lua. Its arguments: serve (the protocol; the default), or bare,
// its bare loop (lockbench calibrate --driver go-lua).
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
)

// profileEnv names a file go-lua writes a CPU profile of its whole run
// to, when set: what BenchmarkProtocolCost's driver side spends its CPU
// on (go tool pprof drivers/go-lua/go-lua FILE).
const profileEnv = "LOCKBENCH_GOLUA_CPUPROFILE"

func main() {
	if path := os.Getenv(profileEnv); path != "" {
		stop, err := profile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "go-lua:", err)
			os.Exit(1)
		}
		defer stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if len(os.Args) > 1 && os.Args[1] == bareArg {
		if err := bare(ctx, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "go-lua: bare loop:", err)
			os.Exit(1)
		}
		return
	}
	in, out := pollable(os.Stdin), pollable(os.Stdout)
	if err := newServer(out, os.Stderr).serve(ctx, in); err != nil {
		fmt.Fprintln(os.Stderr, "go-lua:", err)
		os.Exit(1)
	}
}

// profile starts a CPU profile written to path; stop ends it.
func profile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// pollable is f, a pipe, made non-blocking and opened again so that Go's
// poller waits on it: a goroutine reading or writing it parks and its
// thread runs the others, where a blocking read holds a thread and the
// scheduler hands the goroutines it woke to another (a wake-up per
// batch of requests). Anything but a pipe (a terminal go-lua was started
// from by hand, a file) is shared with others and left as it is.
func pollable(f *os.File) *os.File {
	var st syscall.Stat_t
	fd := int(f.Fd())
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return f
	}
	if syscall.SetNonblock(fd, true) != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
