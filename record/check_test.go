package record_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
)

func TestCheck(t *testing.T) {
	c := &record.Cell{Acquisitions: 10, Timeouts: 2}
	c.Violations.Overlaps, c.Violations.LongestUnavailableMS = 3, 750
	for cond, want := range map[string]bool{
		"overlaps>0": true, "overlaps=0": false, "overlaps>=3": true, "overlaps<3": false,
		"unavailable_ms<800": true, "unavailable_ms>2000": false, "timeouts>0": true, "acquisitions<=10": true,
	} {
		got, err := record.Check(cond, c)
		if err != nil || got != want {
			t.Errorf("Check(%q) = %v, %v; want %v", cond, got, err, want)
		}
	}
	for _, bad := range []string{"overlap>0", "overlaps>x", "overlaps"} {
		if _, err := record.Check(bad, c); !errors.Is(err, record.ErrBadCheck) {
			t.Errorf("Check(%q): %v; want record.ErrBadCheck", bad, err)
		}
	}
}

func TestParseThreshold(t *testing.T) {
	c := &record.Cell{ThroughputPerS: 1500}
	c.AcquireLatencyUS.P99 = 4200 // µs
	c.Violations.Overlaps = 0
	for text, want := range map[string]bool{
		"acquire.p99<5ms": true, "acquire.p99 < 4ms": false, "acquire.p99<=4200": true, "acquire.p99>4.2ms": false,
		"overlaps==0": true, "overlaps=0": true, "overlaps!=0": false, "throughput>=1000": true, "throughput<1000": false,
	} {
		th, err := record.ParseThreshold(text)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", text, err)
			continue
		}
		if got, _ := th.Holds(c); got != want {
			t.Errorf("%q holds = %v, want %v", text, got, want)
		}
	}
	for text, why := range map[string]string{
		"acquire.p99":          "METRIC OP VALUE",
		"latency<5ms":          "unknown metric",
		"overlaps<lots":        "not a number",
		"throughput>5ms":       "not a number",
		"acquire.p99<5parsecs": "not a number or a duration",
	} {
		if _, err := record.ParseThreshold(text); !errors.Is(err, record.ErrBadCheck) || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseThreshold(%q) = %v; want record.ErrBadCheck saying %q", text, err, why)
		}
	}
}
