package cpubudget_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/cpubudget"
)

func TestNewRefusesBadShares(t *testing.T) {
	for _, share := range []float64{0, -0.1, 1.01} {
		if _, err := cpubudget.New(share); !errors.Is(err, cpubudget.ErrBadShare) {
			t.Errorf("New(%v): %v, want ErrBadShare", share, err)
		}
	}
	t.Setenv(cpubudget.RootEnv, t.TempDir())
	if _, err := cpubudget.New(0.5); !errors.Is(err, cpubudget.ErrUnavailable) {
		t.Errorf("New without a cpu controller: %v, want ErrUnavailable", err)
	}
}

// A group holds its quota and its process, and is gone, with its
// process's directory, once removed after the process exits.
func TestGroupHoldsAndGoes(t *testing.T) {
	b, err := cpubudget.New(0.25)
	if err != nil {
		t.Skipf("no cgroup to write here: %v", err)
	}
	g, err := b.Group("test")
	if err != nil {
		t.Fatal(err)
	}
	quota := "cpu.cfs_quota_us"
	want := "2500"
	if b.Mechanism() == cpubudget.MechanismV2 {
		quota, want = "cpu.max", "2500 10000"
	}
	if got, _ := os.ReadFile(filepath.Join(g.Path(), quota)); strings.TrimSpace(string(got)) != want {
		t.Errorf("%s: %q, want %q", quota, got, want)
	}
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Add(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	procs, _ := os.ReadFile(filepath.Join(g.Path(), "cgroup.procs"))
	_ = cmd.Wait()
	if !strings.Contains(string(procs), "\n") || strings.TrimSpace(string(procs)) == "" {
		t.Errorf("cgroup.procs %q: the process is not in the group", procs)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(g.Path())); !os.IsNotExist(err) {
		t.Errorf("the process's directory %s is still there (%v)", filepath.Dir(g.Path()), err)
	}
}
