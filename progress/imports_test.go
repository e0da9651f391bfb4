package progress

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoRunnerImport: progress is fed by the runner's caller and never
// reaches back into the runner, neither in its code nor in its tests.
func TestNoRunnerImport(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test runs `go list`: no go tool on PATH: %v", err)
	}
	list := func(args ...string) []string {
		t.Helper()
		out, err := exec.Command(goTool, append([]string{"list"}, args...)...).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
		}
		return strings.Fields(string(out))
	}
	paths := list("../runner", "../workloads")
	if len(paths) != 2 {
		t.Fatalf("go list ../runner ../workloads: %q, want two import paths", paths)
	}
	runner, workloads := paths[0], paths[1]
	deps := list("-deps", "-test", ".")
	// progress does import workloads: a list without it is not progress's.
	if !slices.Contains(deps, workloads) {
		t.Fatalf("go list -deps -test . lists %d packages, without %s", len(deps), workloads)
	}
	if slices.Contains(deps, runner) {
		t.Errorf("progress imports %s (directly, in a test, or through another package)", runner)
	}
}
