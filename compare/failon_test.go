package compare_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/record"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		text     string
		metric   string
		relative bool
	}{
		{"acquire.p99:+10%", "acquire.p99", true},
		{"throughput:-5%", "throughput", true},
		{"throughput:-60%", "throughput", true},
		{"acquire.p50:+0%", "acquire.p50", true},
		{"server.cpu_us:+2.5%", "server.cpu_us", true},
		{" handoff.p99 : + 20 % ", "handoff.p99", true},
		{"overlaps:>0", "overlaps", false},
		{"lost_updates:!=0", "lost_updates", false},
		{"stale_releases:>=1", "stale_releases", false},
		{"acquire.p99:>5ms", "acquire.p99", false},
		{"acquire.p99:> 250us", "acquire.p99", false},
		{"acquire.p99:>=5000", "acquire.p99", false},
		{"throughput:<1000", "throughput", false},
		{"throughput:<=1e3", "throughput", false},
		{"timeouts:==0", "timeouts", false},
		{"overlaps:=0", "overlaps", false}, // = is ==, as in --check
	} {
		r, err := compare.ParseRule(tc.text)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tc.text, err)
			continue
		}
		if r.Metric != tc.metric || r.Relative() != tc.relative || r.Text != tc.text {
			t.Errorf("ParseRule(%q) = metric %q relative %v text %q; want %q %v", tc.text, r.Metric, r.Relative(), r.Text, tc.metric, tc.relative)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // all in the error's one line
	}{
		{"", []string{"METRIC:+N%", "overlaps:>0"}},
		{"throughput", []string{"METRIC:OP VALUE"}},
		{"throughput:", []string{"METRIC:+N%"}},
		{":+5%", []string{"METRIC:+N%"}},
		{"overlaps>0", []string{"METRIC:OP VALUE"}},
		{"thruput:-5%", []string{`unknown metric "thruput"`, "known:", "throughput", "acquire.p99"}},
		{"throughput:+5%", []string{"higher is better", "write throughput:-5%"}},
		{"acquire.p99:-10%", []string{"lower is better", "write acquire.p99:+10%"}},
		{"acquire.p99:10%", []string{"sign", "acquire.p99:+10%"}},
		{"acquire.p99:+%", []string{"not a percent"}},
		{"acquire.p99:+ten%", []string{`"ten" is not a percent`}},
		{"acquire.p99:+-5%", []string{"not a percent"}},
		{"overlaps:>x", []string{`"x" is not a number`}},
		{"overlaps:>5ms", []string{`"5ms" is not a number`}},
		{"acquire.p99:>fast", []string{`"fast" is not a number or a duration`}},
		{"overlaps:0", []string{"METRIC:OP VALUE"}},
	} {
		_, err := compare.ParseRule(tc.text)
		if err == nil {
			t.Errorf("ParseRule(%q): no error", tc.text)
			continue
		}
		if !errors.Is(err, compare.ErrBadRule) {
			t.Errorf("ParseRule(%q): %v does not wrap ErrBadRule", tc.text, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, `"`+tc.text+`"`) {
			t.Errorf("ParseRule(%q): %q is not one line naming the rule", tc.text, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("ParseRule(%q): %q lacks %q", tc.text, msg, w)
			}
		}
	}
	if _, err := compare.ParseRule("thruput:-5%"); !errors.Is(err, record.ErrUnknownMetric) {
		t.Errorf("an unknown metric's error %v does not wrap record.ErrUnknownMetric", err)
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"acquire.p99:+10%", "throughput:-5%", "overlaps:>0", "acquire.p99:>5ms", "x:y", ":%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := compare.ParseRule(text)
		if err != nil {
			if !errors.Is(err, compare.ErrBadRule) {
				t.Fatalf("ParseRule(%q): %v does not wrap ErrBadRule", text, err)
			}
			return
		}
		if _, err := record.LookupFigure(r.Metric); err != nil {
			t.Fatalf("ParseRule(%q) accepted metric %q: %v", text, r.Metric, err)
		}
	})
}
