package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/inputerr"
)

// BareProgram is a driver's bare loop: a program in its folder that makes
// the same library calls as the driver (acquire, then release, with the
// options init gives) in a plain loop of clients, one lock name each,
// with no protocol in the way, and says how many cycles it made. Its
// command is the driver's with the argument Replace swapped for With
// (driver.js for bare.js, a main class for another), so that it runs
// with the driver's library environment at any version.
type BareProgram struct {
	Replace string `json:"replace"`
	With    string `json:"with"`
}

// check says what is wrong with b, m's bare program; nil for none.
func (b *BareProgram) check(m Manifest) error {
	if b == nil {
		return nil
	}
	if b.Replace == "" || b.With == "" {
		return errors.New(`bare needs "replace" and "with"`)
	}
	for _, argv := range [][]string{m.Command, packageCommand(m)} {
		if argv != nil && !slices.Contains(argv, b.Replace) {
			return fmt.Errorf("bare: the command %q has no argument %q to replace", strings.Join(argv, " "), b.Replace)
		}
	}
	return nil
}

func packageCommand(m Manifest) []string {
	if m.Package == nil {
		return nil
	}
	return m.Package.Command
}

// ErrNoBare: the driver has no bare loop (its manifest names none).
var ErrNoBare = errors.New("driver has no bare loop")

// BareCommand is the command of m's bare loop: m's command with Bare's
// argument swapped. It is an error wrapping ErrNoBare and ErrBadDriver
// when m has none.
func (m Manifest) BareCommand() ([]string, error) {
	if m.Bare == nil {
		return nil, inputerr.Errorf(ErrBadDriver, "driver %s: %w (its manifest names none)", m.Name, ErrNoBare)
	}
	argv := slices.Clone(m.Command)
	argv[slices.Index(argv, m.Bare.Replace)] = m.Bare.With // check made sure it is there
	return argv, nil
}

// BareLoad is what a bare loop is asked to run: Clients clients, each
// cycling on a lock name of its own, Warmup uncounted, then Duration
// measured.
type BareLoad struct {
	Clients  int
	Warmup   time.Duration
	Duration time.Duration
}

// BareResult is what a bare loop made in its measured phase, as it said.
type BareResult struct {
	Library, Version string
	// Cycles ended in the measured phase (those in flight at its end
	// included, over the time they took), WarmupCycles before it.
	Cycles, WarmupCycles int64
	Elapsed              time.Duration
	// CPU is the user and system CPU of the bare loop's process in its
	// measured phase, all its threads, as its runtime reads it.
	CPU time.Duration
	// AcquireP50 is the median time of its acquire calls in the
	// measured phase.
	AcquireP50 time.Duration
}

// PerSecond is the measured phase's cycles per second; zero when it
// lasted no time.
func (r BareResult) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Cycles) / r.Elapsed.Seconds()
}

// BareRequest is the second line a bare loop reads, after init.
type BareRequest struct {
	Type       string  `json:"type"`
	Clients    int     `json:"clients"`
	WarmupMs   float64 `json:"warmup_ms"`
	DurationMs float64 `json:"duration_ms"`
}

// bareReply is the one line a bare loop writes: loop_ok, or an error.
type bareReply struct {
	Type         string  `json:"type"`
	Code         string  `json:"code"`
	Text         string  `json:"text"`
	Library      string  `json:"library"`
	Version      string  `json:"version"`
	Cycles       int64   `json:"cycles"`
	WarmupCycles int64   `json:"warmup_cycles"`
	ElapsedUs    float64 `json:"elapsed_us"`
	CPUUs        float64 `json:"cpu_us"`
	AcquireP50Us float64 `json:"acquire_p50_us"`
}

// RunBare runs m's bare loop with cfg's init and load, and returns what it
// made. The program reads init (cfg's, as the driver would) and the loop
// request on its stdin, runs, writes one line and exits; it runs in its
// own process group, as a driver does, and nothing of it outlives the
// call. A loop that does not end within its warm-up, duration and
// cfg's InitTimeout and Margin is killed.
func RunBare(ctx context.Context, m Manifest, cfg Config, load BareLoad) (BareResult, error) {
	cfg = cfg.withDefaults()
	argv, err := m.BareCommand()
	if err != nil {
		return BareResult{}, err
	}
	bare := m
	bare.Command = argv
	prog, err := bare.Program()
	if err != nil {
		return BareResult{}, err
	}
	init, err := wire.Encode(cfg.init())
	if err != nil {
		return BareResult{}, fmt.Errorf("driver %s: bare loop: %w", m.Name, err)
	}
	loop, _ := json.Marshal(BareRequest{Type: "loop", Clients: load.Clients,
		WarmupMs: wire.Millis(load.Warmup), DurationMs: wire.Millis(load.Duration)})
	ctx, cancel := context.WithTimeout(ctx, load.Warmup+load.Duration+cfg.InitTimeout+cfg.Margin)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Dir, cmd.Env = m.Dir, m.environ(cfg)
	cmd.Stdin = bytes.NewReader(append(append(append(init, '\n'), loop...), '\n'))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it started
	}
	var reply bareReply
	last := lastLine(stdout.Bytes())
	switch {
	case ctx.Err() != nil:
		return BareResult{}, fmt.Errorf("driver %s: bare loop: %w%s", m.Name, context.Cause(ctx), tailText(tailOf(stderr.Bytes())))
	case len(last) == 0 || json.Unmarshal(last, &reply) != nil:
		return BareResult{}, fmt.Errorf("driver %s: bare loop %s wrote no result line (exit: %v)%s", m.Name, strings.Join(argv, " "), runErr, tailText(tailOf(stderr.Bytes())))
	case reply.Type == wire.TypeError:
		err := &ReplyError{Op: "loop", Client: -1, Definite: true, Code: reply.Code, Text: reply.Text}
		return BareResult{}, fmt.Errorf("driver %s: bare loop refused: %w", m.Name, err)
	case reply.Type != "loop_ok" || reply.Cycles <= 0 || reply.ElapsedUs <= 0:
		return BareResult{}, fmt.Errorf("driver %s: bare loop: %s is no loop_ok with cycles and elapsed_us", m.Name, last)
	}
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	return BareResult{Library: reply.Library, Version: reply.Version, Cycles: reply.Cycles, WarmupCycles: reply.WarmupCycles,
		Elapsed: us(reply.ElapsedUs), CPU: us(reply.CPUUs), AcquireP50: us(reply.AcquireP50Us)}, nil
}

// lastLine is the last line of out that is not empty.
func lastLine(out []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return bytes.TrimSpace(lines[len(lines)-1])
}

// tailOf is the last lines of a program's stderr.
func tailOf(stderr []byte) []string {
	var t stderrTail
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		t.add(sc.Text())
	}
	return t.lines()
}
