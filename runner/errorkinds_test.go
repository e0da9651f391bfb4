package runner_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// fullRedis starts a redis-server, gives it 1 MB of memory without
// eviction and fills it, then halves the limit: every write is refused
// with OOM.
func fullRedis(t *testing.T) topologies.Endpoint {
	t.Helper()
	ep := startRedis(t)
	ctx := context.Background()
	c, err := clients.New(ctx, ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, set := range [][]string{{"maxmemory-policy", "noeviction"}, {"maxmemory", "1mb"}} {
		if _, err := c.Do(ctx, variants.Bare("CONFIG", "SET", set[0], set[1])); err != nil {
			t.Fatalf("CONFIG SET %s: %v", set[0], err)
		}
	}
	value := strings.Repeat("x", 4096)
	for i := range 100_000 {
		_, err := c.Do(ctx, cmd("SET", "fill:"+strconv.Itoa(i), value))
		if err != nil && strings.Contains(err.Error(), "OOM") {
			// Full. Half the limit keeps it full when a connection's
			// buffers shrink.
			if _, err := c.Do(ctx, variants.Bare("CONFIG", "SET", "maxmemory", "512kb")); err != nil {
				t.Fatal(err)
			}
			return ep
		}
		if err != nil {
			t.Fatalf("filling the server: %v", err)
		}
	}
	t.Fatal("the server took 400 MB past its 1 MB maxmemory")
	return ep
}

// Against a server out of memory every acquire fails: the record counts
// the errors by kind, with the server's message, the table's notes name
// it, Jain's index is left undefined, and the run failed as a whole.
func TestErrorsByKindOutOfMemory(t *testing.T) {
	t.Parallel() // counted, not timed: on a server of its own beside the other parallel tests
	ep := fullRedis(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			rec := runPlanOn(t, topologies.Spec{Targets: []string{"redis://" + ep.Addr}}, plan.Plan{
				Variants: []string{"lua-release", "set-nx-ex"}, Clients: []int{4}, Client: lib,
				Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 500 * time.Millisecond, Warmup: 100 * time.Millisecond},
			})
			for _, c := range rec.Cells {
				oom := c.ErrorsByKind["OOM"]
				if c.Acquisitions != 0 || c.Errors == 0 || oom.Count != c.Errors || len(c.ErrorsByKind) != 1 {
					t.Errorf("%s: %d acquisitions, %d errors, by kind %+v; want none, some, all OOM", c.Variant, c.Acquisitions, c.Errors, c.ErrorsByKind)
				}
				if !strings.HasPrefix(oom.Sample, "OOM command not allowed") {
					t.Errorf("%s: OOM sample %q, want the server's reply", c.Variant, oom.Sample)
				}
				if c.Fairness.Defined() || c.Fairness.JainText() != "-" {
					t.Errorf("%s: Jain %v (%s) without a single acquisition, want undefined (-)", c.Variant, c.Fairness.Jain, c.Fairness.JainText())
				}
			}
			notes := strings.Join(render.Notes(rec), "\n")
			if !strings.Contains(notes, "errors: ") || !strings.Contains(notes, " OOM (OOM command not allowed") {
				t.Errorf("the notes do not name the OOM errors:\n%s", notes)
			}
			failed, why := render.AllFailed(rec)
			if !failed || !strings.HasPrefix(why, "every cell failed: ") || !strings.Contains(why, "most OOM (OOM command not allowed") {
				t.Errorf("AllFailed = %v, %q; want true, saying most errors were OOM", failed, why)
			}
		})
	}
}
