package topologies

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds how long a node may take to answer PING.
const startTimeout = 10 * time.Second

// node is one redis-server process that lockbench started, in its own temp
// directory, on a free loopback port, without persistence.
type node struct {
	cmd  *exec.Cmd
	dir  string
	addr string
	exit chan error // receives the process's exit once
}

func redisServerPath(bin string) (string, error) {
	if bin == "" {
		bin = "redis-server"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w (install it: apt-get install -y redis-server on Debian/Ubuntu, brew install redis on macOS)", ErrNoRedisServer)
	}
	return path, nil
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startNode starts redis-server with extra config lines and waits until it
// answers PING. A port taken between choosing and binding is retried on
// another port. On failure the node's log is kept and its path is in the
// error.
func startNode(ctx context.Context, bin string, extra ...string) (*node, error) {
	path, err := redisServerPath(bin)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 3 {
		n, err := tryStartNode(ctx, path, extra)
		if err == nil {
			return n, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func tryStartNode(ctx context.Context, path string, extra []string) (*node, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%w: no free port: %w", ErrStart, err)
	}
	dir, err := os.MkdirTemp("", "lockbench-redis-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	logFile := filepath.Join(dir, "redis.log")
	conf := []string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir " + dir,
		"logfile " + logFile,
		`save ""`,
		"appendonly no",
		"daemonize no",
	}
	conf = append(conf, extra...)
	confFile := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(confFile, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	cmd := exec.Command(path, confFile)
	cmd.Dir = dir
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	n := &node{cmd: cmd, dir: dir, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), exit: make(chan error, 1)}
	go func() { n.exit <- cmd.Wait() }()
	if err := n.waitReady(ctx); err != nil {
		n.kill()
		return nil, fmt.Errorf("%w on %s: %w (log kept in %s)", ErrStart, n.addr, err, logFile)
	}
	return n, nil
}

// waitReady polls PING until the node answers, exits, or time runs out.
func (n *node) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for {
		if err := ping(ctx, n.addr); err == nil {
			return nil
		}
		select {
		case err := <-n.exit:
			n.exit <- err
			return fmt.Errorf("exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ping sends a raw PING, as a RESP array, which every server (miniredis
// too) accepts; topologies do not depend on a client library.
func ping(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return errors.New(strings.TrimSpace(line))
	}
	return nil
}

// stop ends the process (SIGTERM, then SIGKILL after 3 s) and removes its
// directory.
func (n *node) stop() error {
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-n.exit:
		n.exit <- err // for a later stop or kill
	case <-time.After(3 * time.Second):
		n.kill()
	}
	return os.RemoveAll(n.dir)
}

// kill ends the process at once and waits for it; the directory is kept.
func (n *node) kill() {
	_ = n.cmd.Process.Kill()
	err := <-n.exit
	n.exit <- err
}
