package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// --fence reaches the record's configuration echo (count by default), and
// the table of a fenced run shows the fence columns and the mode.
func TestFenceFlagReachesRecord(t *testing.T) {
	ep := topotest.Endpoint(t)
	for _, tc := range []struct {
		flag []string
		want string
	}{
		{nil, plan.FenceCount},
		{[]string{"--fence", "reject"}, plan.FenceReject},
	} {
		out := filepath.Join(t.TempDir(), "run.json")
		args := append([]string{"run", "--target", "redis://" + ep.Addr, "--variants", "fenced", "--clients", "2",
			"--duration", "200ms", "--warmup", "0", "--out", out}, tc.flag...)
		stdout, stderr, status := runCLI(t, args...)
		if status != exitOK {
			t.Fatalf("%v: status %d: %s", tc.flag, status, stderr)
		}
		rec, err := record.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Config.Fence != tc.want {
			t.Errorf("%v: record fence %q; want %q", tc.flag, rec.Config.Fence, tc.want)
		}
		if c := rec.Cells[0]; c.Acquisitions == 0 || c.Violations.StaleWrites != 0 || c.Violations.RejectedWrites != 0 {
			t.Errorf("%v: %d acquisitions, %d stale, %d rejected writes; want > 0 and no stale writes without a fault",
				tc.flag, c.Acquisitions, c.Violations.StaleWrites, c.Violations.RejectedWrites)
		}
		if !strings.Contains(stdout, "stale wr") || !strings.Contains(stdout, "rejected wr") {
			t.Errorf("%v: table without the fence columns:\n%s", tc.flag, stdout)
		}
		if got := strings.Contains(stdout, "fence reject"); got != (tc.want == plan.FenceReject) {
			t.Errorf("%v: the table's notes say fence reject: %v; want %v:\n%s", tc.flag, got, tc.want == plan.FenceReject, stdout)
		}
	}
}

// The fencing scenarios' expectations hold on a shorter run, and
// fencing-reject's fence mode reaches the record.
func TestFencingScenarios(t *testing.T) {
	for _, name := range []string{"fencing", "fencing-reject"} {
		t.Run(name, func(t *testing.T) {
			s, err := plan.LookupScenario(name)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "run.json")
			if _, stderr, status := runCLI(t, "run", "--scenario", name, "--duration", "1500ms", "--out", out); status != exitOK {
				t.Fatalf("status %d: %s", status, stderr)
			}
			rec, err := record.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"fencing": plan.FenceCount, "fencing-reject": plan.FenceReject}[name]; rec.Config.Fence != want {
				t.Errorf("record fence %q; want %q", rec.Config.Fence, want)
			}
			for i := range rec.Cells {
				c := &rec.Cells[i]
				for _, cond := range s.Expect[c.Variant] {
					if ok, err := record.Check(cond, c); err != nil || !ok {
						t.Errorf("%s: %s does not hold (%v): %+v", c.Variant, cond, err, c.Violations)
					}
				}
			}
		})
	}
}
