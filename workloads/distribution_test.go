package workloads

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseDistribution(t *testing.T) {
	tests := []struct {
		in         string
		want       Distribution
		wantString string
		wantMean   time.Duration
	}{
		{"2ms", Distribution{kind: fixed, first: 2 * time.Millisecond}, "2ms", 2 * time.Millisecond},
		{"0", Distribution{}, "0s", 0},
		{"0s", Distribution{}, "0s", 0},
		{"1.5s", Distribution{kind: fixed, first: 1500 * time.Millisecond}, "1.5s", 1500 * time.Millisecond},
		{"exp:2ms", Distribution{kind: exponential, first: 2 * time.Millisecond}, "exp:2ms", 2 * time.Millisecond},
		{"exp:0", Distribution{kind: exponential}, "exp:0s", 0},
		{"uniform:1ms-5ms", Distribution{kind: uniform, first: time.Millisecond, second: 5 * time.Millisecond}, "uniform:1ms-5ms", 3 * time.Millisecond},
		{"uniform:2ms-2ms", Distribution{kind: uniform, first: 2 * time.Millisecond, second: 2 * time.Millisecond}, "uniform:2ms-2ms", 2 * time.Millisecond},
		{"normal:10ms,2ms", Distribution{kind: normal, first: 10 * time.Millisecond, second: 2 * time.Millisecond}, "normal:10ms,2ms", 10 * time.Millisecond},
		{"normal:10ms,0s", Distribution{kind: normal, first: 10 * time.Millisecond}, "normal:10ms,0s", 10 * time.Millisecond},
		// Clamping at 0 raises the mean: σ·φ(0) for a zero mean.
		{"normal:0s,1s", Distribution{kind: normal, second: time.Second}, "normal:0s,1s", 398942280 * time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDistribution(tt.in)
			if err != nil {
				t.Fatalf("ParseDistribution(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseDistribution(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String() = %q, want %q", s, tt.wantString)
			}
			if m := got.Mean(); m != tt.wantMean {
				t.Errorf("Mean() = %v, want %v", m, tt.wantMean)
			}
		})
	}
}

func TestParseDistributionErrors(t *testing.T) {
	tests := []struct {
		in          string
		wantMessage string // a substring of the error message
	}{
		{"", "empty duration or distribution"},
		{"5x", `"5x" is not a duration or distribution`},
		{"5", `"5" is not a duration or distribution`},
		{"-2ms", "must not be negative"},
		{"exp:-2ms", "must not be negative"},
		{"exp:", `"" is not a duration`},
		{"exp:2", `"2" is not a duration`},
		{"poisson:2ms", `unknown distribution "poisson" (known: exp, normal, uniform)`},
		{"Exp:2ms", `unknown distribution "Exp"`},
		{":2ms", `unknown distribution ""`},
		{"uniform:5ms-1ms", "min 5ms is greater than max 1ms"},
		{"uniform:1ms", "uniform needs min-max"},
		{"uniform:1ms-", `"" is not a duration`},
		{"uniform:1ms-5ms-9ms", `"5ms-9ms" is not a duration`},
		{"uniform:-1ms-5ms", `"" is not a duration`},
		{"normal:10ms", "normal needs mean,stddev"},
		{"normal:10ms,-2ms", "must not be negative"},
		{"normal:10ms,2x", `"2x" is not a duration`},
		{"2ms ", `"2ms " is not a duration or distribution`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := ParseDistribution(tt.in)
			if err == nil {
				t.Fatalf("ParseDistribution(%q) = %v, want an error", tt.in, d)
			}
			if !errors.Is(err, ErrBadDistribution) {
				t.Errorf("error %v does not wrap ErrBadDistribution", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMessage) {
				t.Errorf("error %q does not contain %q", msg, tt.wantMessage)
			}
			if !strings.HasSuffix(msg, distributionExamples) {
				t.Errorf("error %q does not end with examples", msg)
			}
			if strings.Contains(msg, "--") || strings.Contains(msg, "workloads:") {
				t.Errorf("error %q names a flag or the package; the caller adds the flag", msg)
			}
		})
	}
}

func TestParseDistributionExactMessage(t *testing.T) {
	_, err := ParseDistribution("5x")
	const want = `"5x" is not a duration or distribution (examples: 2ms, exp:2ms, uniform:1ms-5ms, normal:10ms,2ms)`
	if err == nil || err.Error() != want {
		t.Errorf("ParseDistribution(\"5x\") error = %v, want %s", err, want)
	}
}

func TestDistributionRoundTrip(t *testing.T) {
	for _, in := range []string{
		"0", "1ns", "2ms", "1.5s", "1h2m3.000000004s", "2562047h47m16.854775807s",
		"exp:2ms", "exp:1.234567ms", "uniform:0-0", "uniform:1ms-5ms", "uniform:0s-2562047h47m16.854775807s",
		"normal:10ms,2ms", "normal:0s,0s",
	} {
		d, err := ParseDistribution(in)
		if err != nil {
			t.Fatalf("ParseDistribution(%q): %v", in, err)
		}
		again, err := ParseDistribution(d.String())
		if err != nil {
			t.Fatalf("ParseDistribution(%q) (String of %q): %v", d.String(), in, err)
		}
		if again != d {
			t.Errorf("%q: String %q re-parses to %#v, want %#v", in, d.String(), again, d)
		}
	}
}

func TestDistributionJSON(t *testing.T) {
	type options struct {
		Hold  Distribution `json:"hold"`
		Think Distribution `json:"think"`
	}
	in := options{
		Hold:  Distribution{kind: exponential, first: 2 * time.Millisecond},
		Think: Distribution{kind: uniform, first: time.Millisecond, second: 5 * time.Millisecond},
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if want := `{"hold":"exp:2ms","think":"uniform:1ms-5ms"}`; string(data) != want {
		t.Errorf("Marshal = %s, want %s", data, want)
	}
	var out options
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if out != in {
		t.Errorf("Unmarshal = %+v, want %+v", out, in)
	}
	err = json.Unmarshal([]byte(`{"hold":"5x"}`), &out)
	if !errors.Is(err, ErrBadDistribution) {
		t.Errorf("Unmarshal of a bad distribution: error %v, want one wrapping ErrBadDistribution", err)
	}
}

func TestIsZero(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"0", true}, {"exp:0s", true}, {"uniform:0s-0s", true}, {"normal:0s,0s", true},
		{"1ns", false}, {"exp:1ms", false}, {"uniform:0s-1ms", false}, {"normal:0s,1ms", false},
	}
	for _, tt := range tests {
		d, err := ParseDistribution(tt.in)
		if err != nil {
			t.Fatalf("ParseDistribution(%q): %v", tt.in, err)
		}
		if got := d.IsZero(); got != tt.want {
			t.Errorf("%q: IsZero = %v, want %v", tt.in, got, tt.want)
		}
	}
	if !(Distribution{}).IsZero() {
		t.Error("zero Distribution: IsZero = false")
	}
}

func TestFixed(t *testing.T) {
	d := Fixed(3 * time.Millisecond)
	if got := d.Sample(nil); got != 3*time.Millisecond {
		t.Errorf("Sample = %v, want 3ms (and nil r ignored)", got)
	}
	if d.String() != "3ms" {
		t.Errorf("String = %q, want 3ms", d.String())
	}
}

func mustParse(t *testing.T, s string) Distribution {
	t.Helper()
	d, err := ParseDistribution(s)
	if err != nil {
		t.Fatalf("ParseDistribution(%q): %v", s, err)
	}
	return d
}

// sampleStats draws n samples and returns their mean, minimum and maximum.
func sampleStats(d Distribution, n int) (mean float64, lowest, highest time.Duration) {
	r := rand.New(rand.NewPCG(1, 2))
	lowest, highest = math.MaxInt64, math.MinInt64
	var sum float64
	for range n {
		s := d.Sample(r)
		sum += float64(s)
		lowest, highest = min(lowest, s), max(highest, s)
	}
	return sum / float64(n), lowest, highest
}

func TestSampleStatistics(t *testing.T) {
	const n = 100_000
	tests := []struct {
		in              string
		lowest, highest time.Duration // bounds every sample must respect
	}{
		{"exp:2ms", 0, math.MaxInt64},
		{"uniform:1ms-5ms", time.Millisecond, 5 * time.Millisecond},
		{"uniform:7us-7us", 7 * time.Microsecond, 7 * time.Microsecond},
		{"normal:10ms,2ms", 0, math.MaxInt64},
		{"normal:1ms,2ms", 0, math.MaxInt64}, // often clamped at 0
		{"2ms", 2 * time.Millisecond, 2 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d := mustParse(t, tt.in)
			mean, lowest, highest := sampleStats(d, n)
			if lowest < tt.lowest || highest > tt.highest {
				t.Errorf("samples in [%v, %v], want within [%v, %v]", lowest, highest, tt.lowest, tt.highest)
			}
			want := float64(d.Mean())
			if math.Abs(mean-want) > 0.05*want {
				t.Errorf("sample mean %v, want within 5%% of Mean() %v", time.Duration(mean), d.Mean())
			}
		})
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, in := range []string{"2ms", "exp:2ms", "uniform:1ms-5ms", "normal:10ms,2ms"} {
		d := mustParse(t, in)
		if allocs := testing.AllocsPerRun(1000, func() { d.Sample(r) }); allocs != 0 {
			t.Errorf("%s: Sample allocates %v times per call, want 0", in, allocs)
		}
	}
}
