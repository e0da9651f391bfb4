package topologies

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sessionOf is the session id of process pid, from /proc.
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// After the name: state, ppid, pgrp, session.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	sid, _ := strconv.Atoi(fields[3])
	return sid
}

func TestSaveAndStopSaved(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:replicated?replicas=1", Detached: true})
	for _, n := range l.Nodes() {
		if pid := l.PID(n.Name); sessionOf(t, pid) != pid {
			t.Errorf("detached %s (pid %d) is not in a session of its own", n.Name, pid)
		}
	}
	path := filepath.Join(t.TempDir(), "topology.json")
	if err := l.Save(path); err != nil {
		t.Fatalf("Save: %v", err)
	}
	if left, _ := filepath.Glob(path + ".tmp-*"); len(left) > 0 {
		t.Errorf("Save left %v", left)
	}
	saved, err := LoadSaved(path)
	if err != nil {
		t.Fatalf("LoadSaved: %v", err)
	}
	access, _ := json.Marshal(l.Access())
	savedAccess, _ := json.Marshal(saved.Access)
	if saved.Name != l.Name() || string(access) != string(savedAccess) {
		t.Errorf("saved %q %s; want %q %s", saved.Name, savedAccess, l.Name(), access)
	}
	var want []SavedNode
	for _, n := range l.Nodes() {
		want = append(want, SavedNode{Name: n.Name, Role: n.Role, Addr: n.Endpoint.Addr, PID: l.PID(n.Name), Dir: mustNode(t, l, n.Name).proc.dir, Bin: mustNode(t, l, n.Name).proc.path})
	}
	if !slices.Equal(saved.Nodes, want) {
		t.Errorf("saved nodes %+v; want %+v", saved.Nodes, want)
	}

	// A paused node stops too.
	if err := l.Pause("replica-1"); err != nil {
		t.Fatalf("Pause: %v", err)
	}
	if err := StopSaved(path); err != nil {
		t.Fatalf("StopSaved: %v", err)
	}
	for _, n := range saved.Nodes {
		eventually(t, n.Name+" to be gone", func() error {
			if err := syscall.Kill(n.PID, 0); !errors.Is(err, syscall.ESRCH) {
				return errors.New("still there")
			}
			return nil
		})
		if _, err := os.Stat(n.Dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after StopSaved, %s: %v; want it removed", n.Dir, err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after StopSaved, the state file: %v; want it removed", err)
	}
	if err := StopSaved(path); err != nil {
		t.Errorf("StopSaved of a topology already stopped: %v; want nil", err)
	}
	if _, err := LoadSaved(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadSaved of a missing file: %v; want fs.ErrNotExist", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close after StopSaved: %v", err)
	}
}

// TestStopSavedReusedPID checks that StopSaved does not signal a process
// that is not the saved redis-server (its pid was reused) and removes only
// directories lockbench made.
func TestStopSavedReusedPID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lockbench-redis-123")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	foreign := t.TempDir()
	saved := Saved{Name: "local:single", Nodes: []SavedNode{
		// This test process is not a redis-server: it must survive.
		{Name: "master", Role: RoleMaster, Addr: "127.0.0.1:1", PID: os.Getpid(), Dir: dir},
		{Name: "other", Role: RoleMaster, Addr: "127.0.0.1:2", PID: 0, Dir: foreign},
	}}
	b, _ := json.Marshal(saved)
	path := filepath.Join(t.TempDir(), "topology.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err := StopSaved(path)
	if err == nil || !strings.Contains(err.Error(), "not a node directory") {
		t.Errorf("StopSaved with a foreign directory: %v; want an error saying so", err)
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("StopSaved waited %v for processes that were not its own", took)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v; want it removed", dir, err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("the foreign directory: %v; want it kept", err)
	}
}
