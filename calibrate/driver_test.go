package calibrate

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver/drivertest"
)

// calibrate --driver end to end: node-redlock's bare loop and lockbench's
// drive of it, two pairs (the second lockbench first), on a redis-server
// of calibrate's own; the summary has both sides of each pair, the
// figures lockbench adds (its CPU, the driver's, the library's own
// acquire time inside the driver) and a verdict.
func TestCalibrateDriver(t *testing.T) {
	needRedisServer(t)
	var log bytes.Buffer
	o := DefaultDriverOptions()
	o.Driver, o.Known, o.Log = "node-redlock", drivertest.Repository(t), &log
	o.Clients, o.Duration, o.Warmup, o.Pairs = 4, 600*time.Millisecond, 200*time.Millisecond, 2
	sum, err := RunDriver(context.Background(), o)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(sum.samples) != 2 {
		t.Fatalf("%d pairs, want 2", len(sum.samples))
	}
	for i, s := range sum.samples {
		if s.bareRate() <= 0 || s.rate() <= 0 || s.bareCPU() <= 0 || s.lockbenchCPU() <= 0 || s.libraryP50() <= 0 || s.p50() <= 0 {
			t.Errorf("pair %d: bare %+v; lockbench %.0f acq/s, CPU %.1f + %.1f µs/acq, p50 %.0f µs (library %.0f)", i+1, s.bare,
				s.rate(), s.lockbenchCPU(), s.driverCPU(), s.p50(), s.libraryP50())
		}
	}
	if first := strings.Index(log.String(), "lockbench drv:node-redlock"); first < 0 || !strings.Contains(log.String()[first:], "pair 2: lockbench") {
		t.Errorf("the pairs' order:\n%s", log.String())
	}
	var out bytes.Buffer
	if err := sum.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"node-redlock 4.2.0", "| 1 ", "| 2 ", "| median", "library p50 in driver", "where the time goes", "target ≥ 0.90×", "target ≤ 1.25×", "calibrate --driver: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}
