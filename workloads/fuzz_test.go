package workloads

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The fuzz targets of the package's parsers. Their seeds are the forms of
// the README and the tests here, plus testdata/fuzz/<target>/.

// checkInputError fails t unless err is an error of the package's parsers:
// one line, wrapping sentinel.
func checkInputError(t *testing.T, in string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("%q: error %v does not wrap %v", in, err, sentinel)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") {
		t.Errorf("%q: error message is not one line: %q", in, msg)
	}
}

// FuzzParseDistribution checks the error's form, the range of every field
// and sample, and the String and JSON round trips.
func FuzzParseDistribution(f *testing.F) {
	for _, s := range []string{
		"2ms", "0", "0s", "1.5s", "1h2m3.000000004s", "2562047h47m16.854775807s",
		"exp:2ms", "exp:0", "uniform:1ms-5ms", "uniform:0-0", "uniform:0s-2562047h47m16.854775807s",
		"normal:10ms,2ms", "normal:0s,1s", "normal:2562047h47m16.854775807s,2562047h47m16.854775807s",
		"", "5x", "-2ms", "exp:", "poisson:2ms", "uniform:5ms-1ms", "uniform:-1ms-5ms", "normal:10ms", "2ms ",
		"uniform:0-2562047h47m16.854775807s", "exp:.5us", "poisson:1s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDistribution(s)
		if err != nil {
			checkInputError(t, s, err, ErrBadDistribution)
			if !strings.HasSuffix(err.Error(), distributionExamples) {
				t.Errorf("%q: error %q does not end with examples", s, err)
			}
			if d != (Distribution{}) {
				t.Errorf("%q: error %v with a non-zero distribution %#v", s, err, d)
			}
			return
		}
		if d.first < 0 || d.second < 0 || (d.kind == uniform && d.first > d.second) {
			t.Fatalf("%q: out of range: %#v", s, d)
		}
		again, err := ParseDistribution(d.String())
		if err != nil || again != d {
			t.Fatalf("%q: String %q does not parse back: %#v, %v; want %#v", s, d.String(), again, err, d)
		}
		text, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("%q: marshal: %v", s, err)
		}
		var decoded Distribution
		if err := json.Unmarshal(text, &decoded); err != nil || decoded != d {
			t.Fatalf("%q: JSON %s decodes to %#v, %v; want %#v", s, text, decoded, err, d)
		}
		if m := d.Mean(); m < 0 {
			t.Errorf("%q: negative mean %v", s, m)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 8 {
			x := d.Sample(r)
			if x < 0 {
				t.Fatalf("%q: negative sample %v", s, x)
			}
			if d.kind == uniform && (x < d.first || x > d.second) {
				t.Fatalf("%q: sample %v outside [%v, %v]", s, x, d.first, d.second)
			}
			if d.kind == fixed && x != d.first {
				t.Fatalf("%q: sample %v of a fixed %v", s, x, d.first)
			}
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{
		"5000", "constant:5000", "poisson:5000", "0.5", "1e7", "poisson:1e-3",
		"", "0", "-1", "1e8", "NaN", "+Inf", "poisson:", "burst:10", "5000 ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rate, arrivals, err := ParseRate(s)
		if err != nil {
			checkInputError(t, s, err, ErrBadRate)
			return
		}
		if !(rate > 0 && rate <= 1e7) {
			t.Fatalf("%q: rate %v out of (0, 1e7]", s, rate)
		}
		if arrivals != "constant" && arrivals != "poisson" {
			t.Fatalf("%q: arrivals %q", s, arrivals)
		}
		text := arrivals + ":" + strconv.FormatFloat(rate, 'g', -1, 64)
		rate2, arrivals2, err := ParseRate(text)
		if err != nil || rate2 != rate || arrivals2 != arrivals {
			t.Fatalf("%q: %q parses to %v, %q, %v; want %v, %q", s, text, rate2, arrivals2, err, rate, arrivals)
		}
	})
}

func FuzzParseStages(f *testing.F) {
	for _, s := range []string{
		"10s:1000,20s:5000,10s:0", "10s:5000", "1ns:0", "1m:1e7", " 5s:100 , 5s:200",
		"", "10s", "0s:100", "-1s:100", "10s:-1", "10s:1e8", "10s:1000,", "10s:NaN",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stages, err := ParseStages(s)
		if err != nil {
			checkInputError(t, s, err, ErrBadRate)
			if stages != nil {
				t.Errorf("%q: error %v with stages %v", s, err, stages)
			}
			return
		}
		if len(stages) == 0 {
			t.Fatalf("%q: no stages and no error", s)
		}
		var texts []string
		for _, st := range stages {
			if st.Duration <= 0 || !(st.Rate >= 0 && st.Rate <= 1e7) {
				t.Fatalf("%q: stage %#v out of range (duration > 0, rate in [0, 1e7])", s, st)
			}
			var one Stage
			if err := one.UnmarshalText([]byte(st.String())); err != nil || one != st {
				t.Fatalf("%q: stage %q unmarshals to %#v, %v; want %#v", s, st.String(), one, err, st)
			}
			texts = append(texts, st.String())
		}
		text := strings.Join(texts, ",")
		again, err := ParseStages(text)
		if err != nil || !slices.Equal(again, stages) {
			t.Fatalf("%q: %q parses to %v, %v; want %v", s, text, again, err, stages)
		}
		var total time.Duration
		for _, st := range stages {
			total += st.Duration
		}
		if StagesDuration(stages) != total {
			t.Errorf("%q: StagesDuration %v, want %v", s, StagesDuration(stages), total)
		}
	})
}
