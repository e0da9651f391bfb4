package topologies

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// RemoveStaleDirs removes the node directories of processes that are gone
// and keeps those of a live owner, of a live server that outlived its
// owner (a detached node), of a process being set up, and those it cannot
// attribute; a pid taken over by a later process does not keep a
// directory alive.
func TestRemoveStaleDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := gone.Process.Pid
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	livePID := live.Process.Pid
	liveStart, ok := processStart(livePID)
	if !ok || liveStart == "" {
		t.Fatalf("processStart(%d) = %q, %v; want the start time of a live process", livePID, liveStart, ok)
	}

	mk := func(name string, marks map[string]string) string {
		t.Helper()
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "redis.log"), []byte("log\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for file, content := range marks {
			if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dead := fmt.Sprintf("%d 12345", deadPID)
	stale := mk(fmt.Sprintf("lockbench-redis-p%d-1", deadPID), map[string]string{ownerFile: dead, serverFile: dead})
	reused := mk(fmt.Sprintf("lockbench-redis-p%d-2", livePID), map[string]string{ownerFile: fmt.Sprintf("%d 1", livePID)})
	owned := mk(fmt.Sprintf("lockbench-redis-p%d-3", livePID), map[string]string{ownerFile: fmt.Sprintf("%d %s", livePID, liveStart)})
	detached := mk(fmt.Sprintf("lockbench-redis-p%d-4", deadPID), map[string]string{ownerFile: dead, serverFile: fmt.Sprintf("%d %s", livePID, liveStart)})
	unmarked := mk(fmt.Sprintf("lockbench-redis-p%d-5", livePID), nil) // being made
	unmarkedDead := mk(fmt.Sprintf("lockbench-redis-p%d-6", deadPID), nil)
	older := mk("lockbench-redis-123456", nil)
	other := mk("something-else", nil)

	removed, err := RemoveStaleDirs()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{stale, reused, unmarkedDead}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, dir := range []string{owned, detached, unmarked, older, other} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(dir), err)
		}
	}
	for _, dir := range removed {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", filepath.Base(dir), err)
		}
	}

	// A node's directory is marked as this process's and its server's.
	dir, err := newNodeDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if !markLive(dir, ownerFile, 0) {
		t.Errorf("the owner mark of a new directory does not name this live process")
	}
	if removed, _ := RemoveStaleDirs(); slices.Contains(removed, dir) {
		t.Errorf("a live process's directory was removed")
	}
}
