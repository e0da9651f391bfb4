package variants_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

func TestParseRetry(t *testing.T) {
	good := []struct {
		in   string
		want variants.RetryPolicy
	}{
		{"none", variants.RetryPolicy{Kind: variants.RetryNone}},
		{"spin", variants.RetryPolicy{Kind: variants.RetrySpin}},
		{"fixed:10ms", variants.RetryPolicy{Kind: variants.RetryFixed, Min: 10 * time.Millisecond, Max: 10 * time.Millisecond}},
		{"fixed:1s", variants.RetryPolicy{Kind: variants.RetryFixed, Min: time.Second, Max: time.Second}},
		{"exp:1ms-100ms", variants.RetryPolicy{Kind: variants.RetryExp, Min: time.Millisecond, Max: 100 * time.Millisecond}},
		{"random:1ms-10ms", variants.RetryPolicy{Kind: variants.RetryRand, Min: time.Millisecond, Max: 10 * time.Millisecond}},
		{"exp:5ms-5ms", variants.RetryPolicy{Kind: variants.RetryExp, Min: 5 * time.Millisecond, Max: 5 * time.Millisecond}},
	}
	for _, tc := range good {
		t.Run(tc.in, func(t *testing.T) {
			got, err := variants.ParseRetry(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("ParseRetry(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			if s := got.String(); s != tc.in {
				t.Errorf("String() = %q; want %q", s, tc.in)
			}
			text, err := got.MarshalText()
			if err != nil {
				t.Fatal(err)
			}
			var back variants.RetryPolicy
			if err := back.UnmarshalText(text); err != nil || back != got {
				t.Errorf("UnmarshalText(%q) = %+v, %v; want %+v", text, back, err, got)
			}
		})
	}

	bad := []string{
		"", "fixed", "fixed:", "fixed:-1ms", "fixed:0s", "fixed:10", "exp:5ms-1ms", "exp:1ms", "exp:1ms-",
		"exp:-1ms-5ms", "exp:0s-1ms", "wait", "spin:1ms", "none:", "NONE", "fixed 10ms",
	}
	for _, in := range bad {
		t.Run("bad/"+in, func(t *testing.T) {
			got, err := variants.ParseRetry(in)
			if !errors.Is(err, variants.ErrBadRetry) {
				t.Fatalf("ParseRetry(%q) = %+v, %v; want ErrBadRetry", in, got, err)
			}
			if !strings.Contains(err.Error(), "examples: none, spin, fixed:10ms, exp:1ms-100ms") {
				t.Errorf("error %q does not give the examples", err)
			}
			if !got.IsZero() {
				t.Errorf("ParseRetry(%q) returned %+v with its error; want the zero policy", in, got)
			}
		})
	}

	var p variants.RetryPolicy
	if err := p.UnmarshalText(nil); err != nil || !p.IsZero() {
		t.Errorf("UnmarshalText(empty) = %+v, %v; want the zero policy", p, err)
	}
}

// checkDelays checks Delay for attempts 0 to 69: fixed always waits Min;
// exp doubles from Min and keeps the pause in [d/2, d], d never above Max.
func checkDelays(t *testing.T, p variants.RetryPolicy, draws int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for attempt := range 70 {
		d := p.Min // Min doubled attempt times, capped at Max
		for range attempt {
			if d > p.Max/2 {
				d = p.Max
				break
			}
			d *= 2
		}
		d = min(d, p.Max)
		for range draws {
			got := p.Delay(attempt, r)
			switch {
			case p.Kind == variants.RetryFixed && got != p.Min:
				t.Fatalf("%v: Delay(%d) = %v; want %v", p, attempt, got, p.Min)
			case p.Kind == variants.RetryExp && (got < d/2 || got > d || got > p.Max):
				t.Fatalf("%v: Delay(%d) = %v; want within [%v, %v]", p, attempt, got, d/2, d)
			case (p.Kind == variants.RetryNone || p.Kind == variants.RetrySpin) && got != 0:
				t.Fatalf("%v: Delay(%d) = %v; want 0", p, attempt, got)
			}
		}
	}
}

func TestRetryDelay(t *testing.T) {
	for _, s := range []string{
		"none", "spin", "fixed:3ms", "exp:1ms-100ms", "exp:1ns-1ns", "exp:7ms-7ms", "random:1ms-10ms",
		"exp:1ms-2562047h", // no cap in sight: the doubling must not overflow
		"exp:20s-1000h",    // Min<<29 overflows int64
		"exp:1h-2562047h",
	} {
		t.Run(s, func(t *testing.T) {
			p, err := variants.ParseRetry(s)
			if err != nil {
				t.Fatal(err)
			}
			checkDelays(t, p, 50)
		})
	}

	// The jitter spreads: exp's pauses at one attempt are not all equal.
	p, _ := variants.ParseRetry("exp:1ms-100ms")
	r := rand.New(rand.NewPCG(3, 4))
	seen := map[time.Duration]bool{}
	for range 100 {
		seen[p.Delay(3, r)] = true
	}
	if len(seen) < 10 {
		t.Errorf("100 pauses of exp at attempt 3 took only %d values; want jitter", len(seen))
	}
}

func FuzzParseRetry(f *testing.F) {
	for _, s := range []string{
		"none", "spin", "fixed:10ms", "exp:1ms-100ms", "fixed", "fixed:-1ms", "exp:5ms-1ms",
		"exp:1ms", "wait", "spin:1ms", "exp:20s-1000h", "fixed:1.5ns", "exp:+1ms-1h", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := variants.ParseRetry(s)
		if err != nil {
			if !errors.Is(err, variants.ErrBadRetry) {
				t.Fatalf("ParseRetry(%q) error %v does not wrap ErrBadRetry", s, err)
			}
			return
		}
		back, err := variants.ParseRetry(p.String())
		if err != nil || back != p {
			t.Fatalf("ParseRetry(%q) = %+v; its String %q parses to %+v, %v", s, p, p.String(), back, err)
		}
		checkDelays(t, p, 2)
	})
}

// A retry policy parses from the syntax of --retry and prints back in it.
func Example_retryPolicy() {
	p, err := variants.ParseRetry("exp:1ms-100ms")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p, p.Kind, p.Min, p.Max)
	_, err = variants.ParseRetry("wait")
	fmt.Println(err)
	// Output:
	// exp:1ms-100ms exp 1ms 100ms
	// bad retry policy: "wait" is not a retry policy (examples: none, spin, fixed:10ms, exp:1ms-100ms, random:1ms-10ms)
}
