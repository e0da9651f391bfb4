package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
)

// agreementDurations are the scenarios' durations in the agreement test:
// each ends once its faults have acted and a few cycles more have run, which
// is all its outcome depends on. A scenario not named keeps its own.
var agreementDurations = map[string]time.Duration{
	"baseline": 300 * time.Millisecond, "ticket-sale": time.Second, "long-hold": 1500 * time.Millisecond,
	"holder-pause": 2 * time.Second, "fencing": 1500 * time.Millisecond, "fencing-reject": 1500 * time.Millisecond,
	"holder-crash": 1500 * time.Millisecond, "crash-before-expire": 1500 * time.Millisecond,
	"release-race": 1500 * time.Millisecond, "redlock-minority": 2500 * time.Millisecond,
	"redlock-majority": 2500 * time.Millisecond, "client-skew": time.Second, "last-permit-race": time.Second,
	"network-latency": 2500 * time.Millisecond, "partition": 2500 * time.Millisecond, "server-clock-jump": 2 * time.Second,
	"sentinel-failover": 5 * time.Second, "split-brain": 7 * time.Second,
}

// agreementLeftOut are the scenarios the agreement test does not run: those
// whose outcome depends on timing (they predict nothing to check: Expect is
// empty). lockbench findings runs them too and counts their agreement.
var agreementLeftOut = map[string]string{
	"failover":        "whether an acquisition is lost in the failover depends on timing",
	"redlock-restart": "whether the restarted node forgets a held lock depends on timing",
	"clock-jump":      "what the jump does to the semaphores depends on when it falls",
}

// Porcupine's verdict on each cell's history and the oracle's count agree
// on every deterministic named scenario: a cell's critical sections are
// not linearizable exactly where the oracle counted overlaps.
func TestHistoryVerdictAgreesWithOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every deterministic scenario (about two minutes)")
	}
	t.Parallel() // each scenario on a topology of its own, beside the other parallel tests
	for _, s := range plan.Scenarios {
		if why, out := agreementLeftOut[s.Name]; out {
			t.Logf("%s left out: %s", s.Name, why)
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			var none time.Duration // no warm-up: a scenario's outcome is in its measured phase
			ov := plan.Overrides{Warmup: &none}
			if d, ok := agreementDurations[s.Name]; ok {
				ov.Duration = &d
			}
			p, err := plan.Build(&s, ov)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := runner.Run(context.Background(), p, runner.Options{History: &runner.HistoryOptions{Check: true}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rec.Cells {
				if c.Error != "" || c.History == nil || c.History.Check == nil || c.History.Cut {
					t.Fatalf("%s: no whole checked history (error %q, history %+v)", c.Variant, c.Error, c.History)
				}
				verdict := c.History.Check.Verdict
				if verdict == record.VerdictUnknown || c.History.Check.Error != "" {
					t.Errorf("%s: porcupine gave no verdict: %s %s", c.Variant, verdict, c.History.Check.Error)
					continue
				}
				if overlaps := c.Violations.Overlaps; (overlaps > 0) != (verdict == record.VerdictNotLinearizable) {
					t.Errorf("%s: porcupine says %s, the oracle counted %d overlaps", c.Variant, verdict, overlaps)
				}
				t.Logf("%s: %s, %d overlaps, %d events", c.Variant, verdict, c.Violations.Overlaps, c.History.Events)
			}
		})
	}
	for name := range agreementDurations {
		if _, err := plan.LookupScenario(name); err != nil {
			t.Errorf("agreementDurations: %v", err)
		}
	}
}
