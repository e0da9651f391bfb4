package topologies

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/clockshim"
	"github.com/lockbench/lockbench/cpubudget"
	"github.com/lockbench/lockbench/redisinfo"
)

const (
	// startTimeout bounds how long a node may take to answer PING.
	startTimeout = 10 * time.Second
	// stopTimeout bounds how long a node may take to exit on SIGTERM
	// before it is killed, and then to exit on SIGKILL.
	stopTimeout = 3 * time.Second
)

// errNotRunning: a node that was killed (and not restarted) or is stopped
// for good.
var errNotRunning = errors.New("not running")

// nodeConfig says how to start one redis-server.
type nodeConfig struct {
	bin      string   // the redis-server binary; "" looks it up on PATH
	sentinel bool     // run as Sentinel: redis-server sentinel.conf --sentinel
	cluster  bool     // take a second free port for the cluster bus
	detached bool     // own session and no Pdeathsig: outlive lockbench
	extra    []string // config lines after the defaults

	// clockShim is the clock shim to preload (see clock.go); "" for none.
	clockShim string
	// onStart, when set, is told the process id of every process the
	// node starts, as soon as it runs (before it answers).
	onStart func(pid int)
	// cpu, when set, holds the node to its share of a core (budget.go).
	cpu *cpubudget.Budget
}

// node is one redis-server process that lockbench started, in its own temp
// directory, on a free loopback port, without persistence. It can be
// killed and started again on the same port, directory and config file
// until stop removes the directory.
type node struct {
	path     string   // the redis-server binary
	args     []string // after the binary: the config file, and --sentinel
	dir      string
	confFile string
	logFile  string
	log      *nodeLog // the bounded log the process writes to; nil for a detached node
	addr     string
	busPort  int // the cluster bus port, 0 outside a cluster
	detached bool
	// clock is the offset the clock shim preloaded into the process reads
	// (see clock.go); nil without the shim. clockMu makes one jump and its
	// check at a time.
	clock   *clockshim.Offset
	clockMu sync.Mutex
	onStart func(pid int)
	// group is the node's cgroup, holding it to its CPU budget; nil
	// without one.
	group *cpubudget.Group

	mu     sync.Mutex
	proc   *process // the last process started; nil before the first
	paused bool
	closed bool // stop was called: never start again
}

// process is one run of a node's redis-server.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and been reaped
	err  error         // Wait's result, set before done is closed
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// redisServerPath is the binary of the server bin names (see ServerBinary).
func redisServerPath(bin string) (string, error) { return ServerBinary(bin) }

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startNode starts redis-server as cfg says and waits until it answers
// PING. A port taken between choosing and binding is retried on another
// port. On failure the node's log is kept and its path is in the error.
func startNode(ctx context.Context, cfg nodeConfig) (*node, error) {
	path, err := redisServerPath(cfg.bin)
	if err != nil {
		return nil, err
	}
	var lastErr error
	var lastDir string
	for range 3 {
		if lastDir != "" {
			_ = os.RemoveAll(lastDir) // keep only the last attempt's log
		}
		n, dir, err := tryStartNode(ctx, path, cfg)
		if err == nil {
			return n, nil
		}
		lastErr, lastDir = err, dir
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

// tryStartNode writes the config of a node on fresh ports into a new temp
// directory and starts it; it returns the directory also on failure.
func tryStartNode(ctx context.Context, path string, cfg nodeConfig) (*node, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", fmt.Errorf("%w: no free port: %w", ErrStart, err)
	}
	dir, err := newNodeDir() // named and marked as this process's: see RemoveStaleDirs
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrStart, err)
	}
	n := &node{
		path:     path,
		dir:      dir,
		logFile:  filepath.Join(dir, "redis.log"),
		addr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		detached: cfg.detached,
		onStart:  cfg.onStart,
	}
	// The server logs to its stdout, which lockbench keeps bounded
	// (nodelog.go). A detached node outlives lockbench, and with it
	// whatever reads its output: it writes its own log file.
	logfile := `""`
	if cfg.detached {
		logfile = n.logFile
	} else {
		n.log = newNodeLog(n.logFile)
	}
	conf := []string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir " + dir,
		"logfile " + logfile,
		"daemonize no",
	}
	n.confFile = filepath.Join(dir, "redis.conf")
	n.args = []string{n.confFile}
	if cfg.sentinel {
		n.confFile = filepath.Join(dir, "sentinel.conf")
		n.args = []string{n.confFile, "--sentinel"}
	} else {
		// No persistence; replicas sync at once instead of waiting 5 s
		// for more replicas to share a transfer.
		conf = append(conf, `save ""`, "appendonly no", "repl-diskless-sync-delay 0")
	}
	if cfg.cluster {
		if n.busPort, err = freePort(); err != nil {
			return nil, dir, fmt.Errorf("%w: no free port: %w", ErrStart, err)
		}
		conf = append(conf, "cluster-port "+strconv.Itoa(n.busPort))
	}
	conf = append(conf, cfg.extra...)
	if err := n.initClock(cfg.clockShim); err != nil {
		return nil, dir, fmt.Errorf("%w: %w", ErrStart, err)
	}
	// Sentinel rewrites its config file, so it must be writable.
	if err := os.WriteFile(n.confFile, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		return nil, dir, fmt.Errorf("%w: %w", ErrStart, err)
	}
	if cfg.cpu != nil {
		if n.group, err = cfg.cpu.Group("node-" + strconv.Itoa(port)); err != nil {
			return nil, dir, fmt.Errorf("%w: %w", ErrStart, err)
		}
	}
	if err := n.start(ctx); err != nil {
		return nil, dir, errors.Join(err, n.leaveBudget())
	}
	return n, dir, nil
}

// start runs the node's process and waits until it answers PING. On
// failure the process is killed and the error names the log.
func (n *node) start(ctx context.Context) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return fmt.Errorf("%w on %s: the topology is closed", ErrStart, n.addr)
	}
	if n.proc != nil && !n.proc.exited() {
		n.mu.Unlock()
		return fmt.Errorf("%w on %s: it already runs", ErrStart, n.addr)
	}
	// What redis-server says before it opens its log (a bad config line)
	// goes to the log too.
	out, logPipe, err := n.output()
	if err != nil {
		n.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	cmd := exec.Command(n.path, n.args...)
	cmd.Dir = n.dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = n.clockEnv()
	cmd.SysProcAttr = childAttr(n.detached)
	err = cmd.Start()
	_ = out.Close() // the child has its own copy: the pipe ends when the child's does
	logged := make(chan struct{})
	if logPipe != nil {
		go func() { // ends when the process (and any child it forked) has exited
			defer close(logged)
			n.log.copyFrom(logPipe)
		}()
	} else {
		close(logged)
	}
	if err != nil {
		n.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	if err := n.joinBudget(cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		n.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	if n.onStart != nil {
		n.onStart(cmd.Process.Pid)
	}
	_ = writeMark(n.dir, serverFile, cmd.Process.Pid) // a detached node's directory lives as long as it
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	n.proc, n.paused = p, false
	n.mu.Unlock()

	if err := n.waitReady(ctx, p); err != nil {
		n.kill()
		select { // the log the error names holds what the process wrote
		case <-logged:
		case <-time.After(stopTimeout):
		}
		return fmt.Errorf("%w on %s: %w (log kept in %s)", ErrStart, n.addr, err, n.logFile)
	}
	return nil
}

// output is where the node's next process writes its stdout and stderr:
// the write end of a pipe whose read end (returned too) feeds the node's
// bounded log, or, for a detached node, its log file itself. The caller
// closes out once the process has started.
func (n *node) output() (out, logPipe *os.File, err error) {
	if n.log == nil {
		out, err = os.OpenFile(n.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		return out, nil, err
	}
	logPipe, out, err = os.Pipe()
	return out, logPipe, err
}

// waitReady polls INFO server until the node answers as its own process
// (not another server that took the port first), exits, or time runs out.
func (n *node) waitReady(ctx context.Context, p *process) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for {
		pid, err := serverPID(ctx, n.addr)
		if err == nil && pid == p.cmd.Process.Pid {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("exited: %v", p.err)
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("pid %d answers on the port", pid)
			}
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// serverPID sends a raw INFO server, as a RESP array, and returns the
// process_id in the reply. It waits at most a second, or until ctx's
// deadline; topology code does not need a client library for it.
func serverPID(ctx context.Context, addr string) (int, error) {
	deadline := time.Now().Add(time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	d := net.Dialer{Deadline: deadline}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := c.Write([]byte("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")); err != nil {
		return 0, err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
	if !strings.HasPrefix(line, "$") || err != nil || size < 0 {
		return 0, errors.New(strings.TrimSpace(line)) // -LOADING, say
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, err
	}
	pid, err := redisinfo.Field(string(body), "server", "process_id")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(pid)
}

// running returns the node's process when it runs (paused or not).
func (n *node) running() (*process, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || n.proc.exited() {
		return nil, false
	}
	return n.proc, true
}

// pid is the process id of the node's last process, 0 before the first.
func (n *node) pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return 0
	}
	return n.proc.cmd.Process.Pid
}

// usable reports whether the node runs and is not paused, so that it
// answers commands.
func (n *node) usable() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc != nil && !n.proc.exited() && !n.paused
}

// signal sends sig to the running process and records whether it is
// paused.
func (n *node) signal(sig syscall.Signal) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || n.proc.exited() {
		return errNotRunning
	}
	if err := n.proc.cmd.Process.Signal(sig); err != nil {
		return err
	}
	switch sig {
	case syscall.SIGSTOP:
		n.paused = true
		return waitStopped(n.proc.cmd.Process.Pid, true)
	case syscall.SIGCONT:
		n.paused = false
		return waitStopped(n.proc.cmd.Process.Pid, false)
	}
	return nil
}

// signalSettles bounds how long waitStopped waits for a signal to take
// effect.
const signalSettles = time.Second

// waitStopped waits until process pid is stopped (stopped false: runs
// again), as its state says: a signal is delivered when the process is
// next scheduled, and until then a "paused" node may still answer the
// commands sent right after the pause (seen on a loaded machine: still
// running when the schedule said a pause at 0 was in place). Where the
// state cannot be read it does not wait.
func waitStopped(pid int, stopped bool) error {
	deadline := time.Now().Add(signalSettles)
	for {
		state := ProcessState(pid)
		if state == 0 || (state == 'T') == stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d in state %c %v after the signal", pid, state, signalSettles)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// kill ends the process at once and waits for it; the directory is kept.
// It returns an error only when the process does not exit.
func (n *node) kill() error {
	p, ok := n.running()
	if !ok {
		return nil
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		return fmt.Errorf("pid %d did not exit on SIGKILL", p.cmd.Process.Pid)
	}
	n.mu.Lock()
	n.paused = false
	n.mu.Unlock()
	return nil
}

// stop ends the process (SIGTERM, resuming it if paused; SIGKILL after
// stopTimeout) and removes its directory. The node never starts again.
func (n *node) stop() error {
	n.mu.Lock()
	n.closed = true
	p := n.proc
	n.mu.Unlock()
	if p != nil && !p.exited() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
			if err := n.kill(); err != nil {
				return fmt.Errorf("stop %s: %w (directory %s kept)", n.addr, err, n.dir)
			}
		}
	}
	return errors.Join(n.leaveBudget(), os.RemoveAll(n.dir))
}
