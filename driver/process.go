package driver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/procfs"
)

// Process is one running driver: the clients lockbench gives it share it,
// their requests multiplexed over its stdin and its replies routed back by
// their in_reply_to. Its methods are safe for concurrent use.
type Process struct {
	m    Manifest
	cfg  Config
	cmd  *exec.Cmd
	info Info

	stdin  *os.File // written by queue and writeLoop (outbox)
	stdout *os.File // read by read
	stderr *os.File // read by readStderr
	out    outbox

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*request // by id
	inflight map[int]*request   // by client
	leases   map[leaseKey]*Lease
	failure  error // set once: every later request fails with it
	closing  bool
	// answered counts the clients' requests the driver replied to;
	// unanswered, by operation, those still pending when it was closed.
	answered   int64
	unanswered map[string]int
	// nextSweep is the earliest deadline of a request sweep knows of.
	nextSweep time.Time
	sweepStop chan struct{} // closed when the process is closed: sweep ends

	stray    chan wire.Message // error replies with no in_reply_to
	exited   chan struct{}     // closed once the process was reaped
	exitErr  error             // cmd.Wait's, set before exited closes
	readDone chan struct{}     // the reader of stdout is done
	errDone  chan struct{}     // the reader of stderr is done
	tail     stderrTail

	closeOnce sync.Once
	closeErr  error
}

// Info is what a driver told of itself in init_ok, with its manifest's
// name and command.
type Info struct {
	Name         string            `json:"name"`
	Command      []string          `json:"command"`
	Library      string            `json:"library"`
	Version      string            `json:"version"`
	Language     string            `json:"language"`
	Capabilities wire.Capabilities `json:"capabilities"`
}

// Start starts the driver of m with its working directory m.Dir, in a
// process group of its own, sends it init and waits for init_ok. A command
// that cannot run is an error wrapping ErrBadDriver; a driver that exits
// before init_ok one wrapping ErrExited, with the last lines of its
// stderr; a refusal one wrapping ErrUnsupported. On any error nothing of
// the driver is left running. A process started must be closed (Close),
// also once it failed or exited: that ends its goroutines.
func Start(ctx context.Context, m Manifest, cfg Config) (*Process, error) {
	cfg = cfg.withDefaults()
	prog, err := m.Program()
	if err != nil {
		return nil, err
	}
	p := &Process{
		m: m, cfg: cfg,
		pending: map[int64]*request{}, inflight: map[int]*request{}, leases: map[leaseKey]*Lease{},
		stray: make(chan wire.Message, 16), exited: make(chan struct{}),
		readDone: make(chan struct{}), errDone: make(chan struct{}), sweepStop: make(chan struct{}),
	}
	if err := p.spawn(prog); err != nil {
		return nil, err
	}
	if err := p.handshake(ctx); err != nil {
		_ = p.Close()
		return nil, err
	}
	return p, nil
}

// spawn starts the process with three pipes of its own and the goroutines
// that wait for it and read its stdout and stderr.
func (p *Process) spawn(prog string) error {
	var files [6]*os.File // child stdin, our stdin; our stdout, child stdout; our stderr, child stderr
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(files[:i])
			return fmt.Errorf("driver %s: %w", p.m.Name, err)
		}
		files[i], files[i+1] = r, w
	}
	childIn, ourIn, ourOut, childOut, ourErr, childErr := files[0], files[1], files[2], files[3], files[4], files[5]
	raw, err := ourIn.SyscallConn()
	if err != nil {
		closeAll(files[:])
		return fmt.Errorf("driver %s: %w", p.m.Name, err)
	}
	cmd := exec.Command(prog, p.m.Command[1:]...)
	cmd.Dir, cmd.Env = p.m.Dir, p.m.environ(p.cfg)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, childErr
	// Its own group, which Signal and Close signal whole; the kernel kills
	// it when lockbench dies, however it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	closeAll([]*os.File{childIn, childOut, childErr})
	if err != nil {
		closeAll([]*os.File{ourIn, ourOut, ourErr})
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, exec.ErrNotFound) {
			return inputerr.Errorf(ErrBadDriver, "driver %s: cannot run %q: %w", p.m.Name, p.m.Command[0], err)
		}
		return fmt.Errorf("driver %s: start %q: %w", p.m.Name, p.m.Command[0], err)
	}
	p.cmd, p.stdin, p.stdout, p.stderr = cmd, ourIn, ourOut, ourErr
	p.out = outbox{raw: raw, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.wait()
	go p.readStderr()
	go p.read()
	go p.writeLoop()
	go p.sweep()
	return nil
}

// environ is the environment of m's process started with cfg: lockbench's
// own, the driver's name (DriverEnv), its library environment (LibEnv),
// the password, and the clock shim's preload under a clock offset.
func (m Manifest) environ(cfg Config) []string {
	env := append(os.Environ(), DriverEnv+"="+m.Name)
	if m.EnvDir != "" {
		env = append(env, LibEnv+"="+m.EnvDir)
	}
	if cfg.Password != "" {
		env = append(env, wire.PasswordEnv+"="+cfg.Password)
	}
	if cfg.Clock != nil {
		env = cfg.Clock.Environ(env)
	}
	return env
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// wait reaps the process, then kills what is left of its group (children
// it started) and waits, up to groupGone, until the kernel has ended them:
// no process of a driver outlives it.
func (p *Process) wait() {
	p.exitErr = p.cmd.Wait()
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	// SIGKILL is delivered when the process is next scheduled: on a busy
	// machine a child may live on for a moment after Kill returns.
	for deadline := time.Now().Add(groupGone); len(procfs.Group(pgid)) > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	close(p.exited)
}

// groupGone bounds how long wait waits for a killed group to end.
const groupGone = 5 * time.Second

// handshake sends init and reads init_ok into p.info.
func (p *Process) handshake(ctx context.Context) error {
	msg := p.cfg.init()
	reply, _, err := p.request(ctx, "init", -1, msg, p.cfg.InitTimeout)
	var exit *ExitError
	switch {
	case errors.As(err, &exit):
		during := *exit
		during.During = "init"
		return &during
	case ctx.Err() != nil:
		return fmt.Errorf("driver %s: init: %w", p.m.Name, err)
	case errors.Is(err, ErrNoReply):
		return fmt.Errorf("driver %s sent no init_ok within %v: %w%s", p.m.Name, p.cfg.InitTimeout, err, tailText(p.tail.lines()))
	case err != nil:
		return fmt.Errorf("driver %s refused init: %w", p.m.Name, err)
	}
	if reply.Type == wire.TypeError {
		err := &ReplyError{Op: "init", Client: -1, Definite: *reply.Definite, Code: reply.Code, Text: reply.Text}
		return fmt.Errorf("driver %s refused init: %w", p.m.Name, err)
	}
	if reply.Library == "" || reply.Capabilities == nil {
		err := &ProtocolError{Driver: p.m.Name, Why: "init_ok without library or capabilities", Line: reply.line}
		p.fail(err)
		return err
	}
	p.info = Info{Name: p.m.Name, Command: p.m.Command, Library: reply.Library, Version: reply.Version,
		Language: reply.Language, Capabilities: *reply.Capabilities}
	return p.checkVersion()
}

// checkVersion holds a driver run at a version (drv:NAME@VERSION) to the
// library version it said it loaded, and any version to the versions its
// manifest's package supports.
func (p *Process) checkVersion() error {
	if p.m.Package == nil {
		return nil
	}
	if p.m.Version != "" && p.info.Version != p.m.Version {
		return inputerr.Errorf(ErrBadDriver, "driver %s loaded %s %s, not %s: its environment %s does not hold the version asked for",
			p.m.Name, p.m.Package.Name, p.info.Version, p.m.Version, p.m.EnvDir)
	}
	return p.m.Supported(p.info.Version)
}

// Info is what the driver said of itself in init_ok.
func (p *Process) Info() Info { return p.info }

// Name is the driver's name.
func (p *Process) Name() string { return p.m.Name }

// PID is the process's id, which is also its process group's.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Signal sends sig to the driver's whole process group: SIGSTOP and
// SIGCONT pause and resume it (its every client and thread), SIGKILL
// crashes it. SIGSTOP returns once every thread of the group's processes
// is stopped (where /proc says so, within stopWait): a thread woken
// before it stopped could otherwise still answer a request sent after
// (TestSignalPause on a loaded machine: an acquire answered).
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return fmt.Errorf("driver %s (pid %d): %w", p.m.Name, p.PID(), ErrExited)
	default:
	}
	if err := syscall.Kill(-p.PID(), sig); err != nil {
		return fmt.Errorf("driver %s: signal %v to group %d: %w", p.m.Name, sig, p.PID(), err)
	}
	if sig == syscall.SIGSTOP {
		waitStopped(p.PID())
	}
	return nil
}

// stopWait bounds how long Signal waits for a group to stop.
const stopWait = time.Second

// waitStopped waits, up to stopWait, until every process of group pgid
// that /proc can tell of is stopped. The group is listed once: a stopped
// group starts no process.
func waitStopped(pgid int) {
	group := procfs.Group(pgid)
	deadline := time.Now().Add(stopWait)
	for _, pid := range group {
		for s, known := procfs.Stopped(pid); known && !s && time.Now().Before(deadline); s, known = procfs.Stopped(pid) {
			time.Sleep(time.Millisecond)
		}
	}
}

// Err is the error the process failed with (a protocol violation, its
// exit), nil while it serves.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failure
}

// StderrTail is the last lines the driver wrote on stderr.
func (p *Process) StderrTail() []string { return p.tail.lines() }

// Close ends the process: it closes its stdin, waits up to the grace
// period for it to exit, then sends SIGTERM to its group, and SIGKILL
// after killAfter; what is left of the group (children) is killed once
// the process is gone. Requests still pending fail with ErrClosed. It
// returns an error wrapping ErrLingered when the driver did not exit by
// itself. Close may be called more than once.
func (p *Process) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.close() })
	return p.closeErr
}

func (p *Process) close() error {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	_ = syscall.Kill(-p.PID(), syscall.SIGCONT) // a paused driver cannot exit
	p.stopWriting()
	_ = p.stdin.Close()
	var err error
	select {
	case <-p.exited:
	case <-time.After(p.cfg.Grace):
		err = fmt.Errorf("driver %s (pid %d): %w within %v: sent SIGTERM%s", p.m.Name, p.PID(), ErrLingered, p.cfg.Grace, tailText(p.tail.lines()))
		_ = syscall.Kill(-p.PID(), syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(killAfter):
			_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
			<-p.exited
		}
	}
	// A child that left the group may still hold the pipes open: closing
	// our ends ends the readers.
	for _, done := range []chan struct{}{p.readDone, p.errDone} {
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	_ = p.stdout.Close()
	_ = p.stderr.Close()
	<-p.readDone
	<-p.errDone
	p.countUnanswered() // every reply the driver wrote has been read
	p.fail(fmt.Errorf("driver %s: %w", p.m.Name, ErrClosed))
	close(p.sweepStop)
	return err
}

// countUnanswered keeps, by operation, the clients' requests still
// pending: the driver never replied to them. A process that failed has
// none pending (its failure ended them).
func (p *Process) countUnanswered() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, req := range p.pending {
		if req.client >= 0 {
			if p.unanswered == nil {
				p.unanswered = map[string]int{}
			}
			p.unanswered[req.op]++
		}
	}
}

// Unanswered counts, by operation (acquire, release, extend, raw), the
// clients' requests the driver left unanswered: sent, and no reply read
// by the time Close had ended the process. Those whose caller stopped
// waiting (its context ended, its deadline passed) count too, and so
// does the release lockbench sends for an acquire_ok that came too late.
// Nil before Close, when every request was answered, and when the
// process failed (its failure, Err, ended what was pending).
func (p *Process) Unanswered() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.unanswered)
}

// Answered is how many of the clients' requests the driver has replied
// to (init not counted).
func (p *Process) Answered() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answered
}

// exitError is the error of a process that ended without being closed:
// its exit status and the last lines of its stderr.
func (p *Process) exitError() error {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second): // its stdout closed, it is about to exit
	}
	select {
	case <-p.errDone:
	case <-time.After(time.Second):
	}
	status := "closed its stdout, still running"
	select {
	case <-p.exited:
		status = "exit status 0"
		if p.exitErr != nil {
			status = p.exitErr.Error()
		}
	default:
	}
	return &ExitError{Driver: p.m.Name, PID: p.PID(), Status: status, Stderr: p.tail.lines()}
}

// stderrLines is how many of a driver's last stderr lines are kept.
const stderrLines = 20

// stderrTail keeps the last lines of a driver's stderr.
type stderrTail struct {
	mu   sync.Mutex
	last []string
}

func (t *stderrTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(line) > lineMax {
		line = line[:lineMax] + "..."
	}
	t.last = append(t.last, line)
	if len(t.last) > stderrLines {
		t.last = t.last[len(t.last)-stderrLines:]
	}
}

func (t *stderrTail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.last...)
}

// readStderr keeps the driver's stderr lines, and copies them to the log.
func (p *Process) readStderr() {
	defer close(p.errDone)
	r := bufio.NewReaderSize(p.stderr, 64<<10)
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			p.tail.add(line)
			if p.cfg.Log != nil {
				fmt.Fprintf(p.cfg.Log, "driver %s: %s\n", p.m.Name, line)
			}
		}
		if err != nil {
			return
		}
	}
}
