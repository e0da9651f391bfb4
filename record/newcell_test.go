package record_test

import (
	"testing"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
)

func TestNewCellFigures(t *testing.T) {
	c, err := record.NewCell(recordtest.SampleOutcome(), oracle.Report{Overlaps: 3, LostUpdates: 2, CriticalSections: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if c.ThroughputPerS != 500 || c.CommandsPerAcquisition != 3 {
		t.Errorf("throughput %v/s, %v cmds/acq; want 500 and 3", c.ThroughputPerS, c.CommandsPerAcquisition)
	}
	if p := c.AcquireLatencyUS.P50; p < 495 || p > 505 {
		t.Errorf("p50 %v µs, want about 500", p)
	}
	h, err := metrics.DecodeHistogram(c.Histograms.Acquire)
	if err != nil || h.TotalCount() != 1000 {
		t.Fatalf("histogram round trip: %v, count %d", err, h.TotalCount())
	}
	if len(c.Series) != 1 || c.Series[0].Acquisitions != 1000 || c.Fairness.Clients != 1 || c.Violations.Overlaps != 3 {
		t.Errorf("series %+v, fairness %+v, violations %+v; want one second of 1000, one client, 3 overlaps", c.Series, c.Fairness, c.Violations)
	}
}

func TestNewCellFenceCounts(t *testing.T) {
	out := metrics.CellSummary{Measured: metrics.Merge(nil, nil), Warmup: metrics.Merge(nil, nil), Handoff: oracle.New(1, 1).Handoff()}
	c, err := record.NewCell(out, oracle.Report{StaleWrites: 7, RejectedWrites: 9})
	if err != nil {
		t.Fatal(err)
	}
	if c.Violations.StaleWrites != 7 || c.Violations.RejectedWrites != 9 {
		t.Errorf("violations %+v; want 7 stale and 9 rejected writes from the oracle", c.Violations)
	}
}
