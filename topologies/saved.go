package topologies

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Saved is the state file of a local topology that outlives the lockbench
// that started it (lockbench topology up, then down): enough to connect to
// it and to stop it.
type Saved struct {
	// Name is the topology's canonical name.
	Name string `json:"name"`
	// Access is how clients connect, as Topology.Access said.
	Access Access `json:"access"`
	// Nodes are its processes.
	Nodes []SavedNode `json:"nodes"`
}

// SavedNode is one process of a saved topology.
type SavedNode struct {
	// Name is the node's name in the topology: master, replica-1, ...
	Name string `json:"name"`
	// Role is its role when saved.
	Role Role `json:"role"`
	// Addr is its host:port.
	Addr string `json:"addr"`
	// PID is its process id.
	PID int `json:"pid"`
	// Dir is the node's directory (config, log), removed by StopSaved.
	Dir string `json:"dir"`
	// Bin is the server binary it runs (redis-server, valkey-server, a
	// path --server gave); "" in state files written before it was kept:
	// redis-server.
	Bin string `json:"bin,omitempty"`
}

// Save writes the topology's state to path as JSON, atomically (a temp
// file beside it, then a rename). Unless the topology was started with
// Spec.Detached, its nodes still die with this process.
func (l *Local) Save(path string) error {
	s := Saved{Name: l.name, Access: l.Access()}
	l.mu.Lock()
	for _, n := range l.nodes {
		s.Nodes = append(s.Nodes, SavedNode{Name: n.Name, Role: n.Role, Addr: n.Endpoint.Addr, PID: n.proc.pid(), Dir: n.proc.dir, Bin: n.proc.path})
	}
	l.mu.Unlock()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the & of local:sentinel?replicas=2&sentinels=3
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("save %s: %w", l.name, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("save %s: %w", l.name, err)
	}
	_, err = tmp.Write(b.Bytes())
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("save %s: %w", l.name, err)
	}
	return nil
}

// LoadSaved reads a state file written by Local.Save. A missing file
// fails with an error that matches fs.ErrNotExist.
func LoadSaved(path string) (Saved, error) {
	var s Saved
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("topology state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("topology state %s: %w", path, err)
	}
	return s, nil
}

// StopSaved stops the topology saved in path: every saved process that is
// still the redis-server saved (process ids get reused) gets SIGTERM, and
// SIGKILL if it has not exited within 3 s; then the nodes' directories and
// the state file are removed. Stopping a topology that is already gone,
// or whose state file is missing, is not an error.
func StopSaved(path string) error {
	s, err := LoadSaved(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	live := stillOurs(s.Nodes)
	for _, n := range live {
		_ = syscall.Kill(n.PID, syscall.SIGTERM)
		_ = syscall.Kill(n.PID, syscall.SIGCONT) // a paused node handles SIGTERM only once resumed
	}
	if live = waitGone(live); len(live) > 0 {
		for _, n := range live {
			_ = syscall.Kill(n.PID, syscall.SIGKILL)
		}
		if live = waitGone(live); len(live) > 0 {
			return fmt.Errorf("stop %s: %s (pid %d) does not exit; state kept in %s", s.Name, live[0].Name, live[0].PID, path)
		}
	}
	var errs []error
	for _, n := range s.Nodes {
		if !filepath.IsAbs(n.Dir) || !strings.HasPrefix(filepath.Base(n.Dir), "lockbench-redis-") {
			errs = append(errs, fmt.Errorf("stop %s: %s: %q is not a node directory lockbench made; not removed", s.Name, n.Name, n.Dir))
			continue
		}
		errs = append(errs, os.RemoveAll(n.Dir))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// stillOurs returns the nodes whose process still runs as the saved
// server: its command line names the server's binary (redis-server,
// valkey-server) and the node's address (the server's process title) or
// directory (its config file).
func stillOurs(nodes []SavedNode) []SavedNode {
	var ours []SavedNode
	for _, n := range nodes {
		if n.PID <= 0 {
			continue
		}
		bin := "redis-server"
		if n.Bin != "" {
			bin = filepath.Base(n.Bin)
		}
		cl := cmdline(n.PID)
		if !strings.Contains(cl, bin) {
			continue
		}
		for _, arg := range strings.Fields(cl) {
			if arg == n.Addr || (n.Dir != "" && strings.HasPrefix(arg, n.Dir+string(filepath.Separator))) {
				ours = append(ours, n)
				break
			}
		}
	}
	return ours
}

// waitGone waits up to stopTimeout until none of the nodes' processes
// runs, and returns those that still do.
func waitGone(nodes []SavedNode) []SavedNode {
	deadline := time.Now().Add(stopTimeout)
	for {
		nodes = stillOurs(nodes)
		if len(nodes) == 0 || time.Now().After(deadline) {
			return nodes
		}
		time.Sleep(20 * time.Millisecond)
	}
}
