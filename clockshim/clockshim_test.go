package clockshim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The shim builds from its embedded source into the directory given, and
// is found there afterwards; without a C compiler the error says what to
// install.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Fatalf("this test needs a C compiler: %v (apt-get install -y gcc)", err)
	}
	dir := t.TempDir()
	path, err := build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir {
		t.Errorf("built %s, not in %s", path, dir)
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() == 0 {
		t.Fatalf("built shim: %v, %v", info, err)
	}
	t.Setenv("PATH", t.TempDir()) // no compiler on it
	if again, err := build(dir); err != nil || again != path {
		t.Errorf("second build without a compiler = %q, %v; want %q from before", again, err, path)
	}
	if _, err := build(t.TempDir()); err == nil || !strings.Contains(err.Error(), "apt-get install -y gcc") {
		t.Errorf("build without a compiler = %v; want it to say apt-get install -y gcc", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries after the builds; want only the shim", dir, len(entries))
	}
}

// An offset file starts at zero, moves by Add (both ways, refusing what
// does not fit in 64 bits) and puts the shim first on LD_PRELOAD.
func TestOffset(t *testing.T) {
	t.Setenv("LD_PRELOAD", "/other.so")
	o, err := NewOffset("/x/lockbench-clock.so", filepath.Join(t.TempDir(), "offset"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := o.Add(2 * time.Second); err != nil || got != 2*time.Second {
		t.Errorf("Add(2s) = %v, %v", got, err)
	}
	if got, err := o.Add(-3 * time.Second); err != nil || got != -time.Second {
		t.Errorf("Add(-3s) = %v, %v; want -1s", got, err)
	}
	if _, err := o.Add(-1 << 63); err == nil {
		t.Errorf("an offset past the smallest went through")
	}
	env := strings.Join(o.Environ([]string{"A=1"}), " ")
	if !strings.Contains(env, "LD_PRELOAD=/x/lockbench-clock.so /other.so") || !strings.Contains(env, offsetEnv+"="+o.File()) || !strings.HasPrefix(env, "A=1") {
		t.Errorf("Environ = %s", env)
	}
	if err := o.Loaded(os.Getpid()); err == nil {
		t.Errorf("the shim is said to be loaded into this test")
	}
}
