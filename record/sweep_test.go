package record_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/capacity"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// points from a known USL, the last step past its peak.
func uslPoints(u capacity.USL, clients ...int) []record.SweepPoint {
	var ps []record.SweepPoint
	for _, n := range clients {
		ps = append(ps, record.SweepPoint{Clients: n, ThroughputPerS: u.Throughput(float64(n)), AcquireP99US: 100 * float64(n), CPUMicrosPerAcquisition: 25})
	}
	return ps
}

func TestSweepAnalyzeAndRender(t *testing.T) {
	truth := capacity.USL{Lambda: 1000, Sigma: 0.05, Kappa: 0.002}
	v := record.SweepVariant{Variant: "lua-release", Stop: "the last step ran", Points: uslPoints(truth, 1, 2, 4, 8, 16, 32, 64)}
	v.Points[6].Failed = []string{"acquire.p99<5ms (got 6.40ms)"}
	v.Analyze("clients", 0.05, 200000, 0.5)
	if v.Best != 4 { // 16 clients: 32 is past the peak (about 21), 64 broke the SLO
		t.Errorf("best step %d, want 4 (16 clients)", v.Best)
	}
	if v.USL == nil || v.USL.Sigma < 0.0475 || v.USL.Sigma > 0.0525 {
		t.Errorf("fit %+v (%s), want σ about 0.05", v.USL, v.FitError)
	}
	if v.Nodes == nil || v.Nodes.Nodes != 10 { // 0.5 × 1e6 / 25 = 20,000 per node
		t.Errorf("node plan %+v (%s), want 10 nodes", v.Nodes, v.NodesError)
	}
	rec := recordtest.Sample(t)
	rec.Sweep = &record.Sweep{By: "clients", SLO: []string{"acquire.p99<5ms"}, MinGain: 0.05, TargetRate: 200000, MaxUtilization: 0.5,
		Variants: []record.SweepVariant{v}}
	var b bytes.Buffer
	if err := render.RenderSweep(&b, rec, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### lua-release", "ok (best)", "broken: acquire.p99<5ms (got 6.40ms)",
		"knee at 16 clients", "σ=0.0500", "200000 acq/s need 10 Redis node(s)", "Assumes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("sweep report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestSweepWithoutGoodStep(t *testing.T) {
	v := record.SweepVariant{Points: []record.SweepPoint{{Clients: 1, ThroughputPerS: 10, Failed: []string{"x"}}}}
	v.Analyze("clients", 0.05, 1000, 0.7)
	if v.Best != -1 || v.Nodes != nil || v.NodesError == "" || v.USL != nil || v.FitError == "" {
		t.Errorf("%+v: want no best step, no plan, no fit, and why", v)
	}
}
