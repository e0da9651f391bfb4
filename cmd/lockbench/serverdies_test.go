package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// The Redis under test dies in the middle of a run: the run goes on
// counting errors, ends on time, saves its record, says in one line that it
// failed and why, and exits with status 3.
func TestRedisDiesMidRun(t *testing.T) {
	topotest.Faulted(t)
	l := topotest.Local(t)
	node := l.Nodes()[0]
	out := filepath.Join(t.TempDir(), "run.json")
	killed := make(chan error, 1)
	time.AfterFunc(1500*time.Millisecond, func() { killed <- l.Kill(node.Name) })
	began := time.Now()
	stdout, stderr, status := runCLI(t, "run", "--target", "redis://"+node.Endpoint.Addr, "--variants", "lua-release,set-nx-ex",
		"--clients", "4", "--duration", "2s", "--warmup", "0", "--quiet", "--out", out)
	took := time.Since(began)
	if err := <-killed; err != nil {
		t.Fatal(err)
	}
	if status != exitRunFailed {
		t.Errorf("exit %d, want %d (stderr %q)", status, exitRunFailed, stderr)
	}
	// Two cells of 2s, the cleanup's and the checks' bounded waits.
	if took > 8*time.Second {
		t.Errorf("the run took %v with its server dead; want it to end on time", took)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "run failed: the Redis under test stopped answering during lua-release") ||
		!strings.Contains(last, out) {
		t.Errorf("the last line does not say the run failed, why, and where the record is: %q", last)
	}
	if !strings.Contains(stdout, "RUN FAILED") || !strings.Contains(stdout, "set-nx-ex") {
		t.Errorf("the table does not show both cells and the failure:\n%s", stdout)
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatalf("the record: %v", err)
	}
	if len(rec.Cells) != 2 || rec.Failure == "" || rec.Cells[0].Acquisitions == 0 || rec.Cells[1].Errors == 0 {
		t.Errorf("record: %d cells, failure %q, %d acquisitions before, %d errors after", len(rec.Cells), rec.Failure,
			rec.Cells[0].Acquisitions, rec.Cells[1].Errors)
	}
}
