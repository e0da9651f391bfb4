package workloads_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/workloads"
)

func TestParseSkew(t *testing.T) {
	good := []struct {
		in   string
		want workloads.Skew
	}{
		{"0", workloads.Skew{}},
		{"+200ms", workloads.Skew{Min: 200 * time.Millisecond, Max: 200 * time.Millisecond}},
		{"-1s", workloads.Skew{Min: -time.Second, Max: -time.Second}},
		{"uniform:-500ms..500ms", workloads.Skew{Min: -500 * time.Millisecond, Max: 500 * time.Millisecond}},
		{"uniform:0s..1s", workloads.Skew{Min: 0, Max: time.Second}},
	}
	for _, tc := range good {
		got, err := workloads.ParseSkew(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSkew(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if again, err := workloads.ParseSkew(got.String()); err != nil || again != got {
			t.Errorf("ParseSkew(%q) = %+v, %v; want the round trip of %q to give %+v", got.String(), again, err, tc.in, got)
		}
	}

	for _, in := range []string{"", "5x", "uniform:1s..-1s", "uniform:1s", "uniform:-1s-1s"} {
		got, err := workloads.ParseSkew(in)
		if !errors.Is(err, workloads.ErrBadClock) {
			t.Errorf("ParseSkew(%q) = %+v, %v; want an error matching ErrBadClock", in, got, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, `"`+in+`"`) || !strings.Contains(msg, "examples") {
			t.Errorf("ParseSkew(%q) error %q should quote the input and give examples", in, msg)
		}
	}
}

func TestParseJump(t *testing.T) {
	good := []struct {
		in   string
		want workloads.Jump
	}{
		{"+2s@5s", workloads.Jump{By: 2 * time.Second, At: 5 * time.Second}},
		{"-1s@0s", workloads.Jump{By: -time.Second, At: 0}},
	}
	for _, tc := range good {
		got, err := workloads.ParseJump(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseJump(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.in {
			t.Errorf("ParseJump(%q).String() = %q; want the input back", tc.in, got.String())
		}
	}

	bad := []struct{ in, why string }{
		{"2s@5s", "needs a sign"},
		{"+2s", "needs @AT"},
		{"+0s@1s", "a jump of zero"},
		{"+2s@-1s", "a negative time"},
		{"x@y", "not durations"},
		{"", "empty"},
		{"@5s", "no jump"},
	}
	for _, tc := range bad {
		got, err := workloads.ParseJump(tc.in)
		if !errors.Is(err, workloads.ErrBadClock) {
			t.Errorf("ParseJump(%q) (%s) = %+v, %v; want an error matching ErrBadClock", tc.in, tc.why, got, err)
		}
	}
}

func FuzzParseSkew(f *testing.F) {
	for _, s := range []string{"0", "+200ms", "-1s", "uniform:-500ms..500ms", "uniform:0s..1s", "uniform:1s..1s",
		"", "5x", "uniform:1s..-1s", "uniform:1s", "uniform:-1s-1s", "uniform:0...5s", "uniform:..", "-9223372036854775808ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		skew, err := workloads.ParseSkew(s)
		if err != nil {
			if !errors.Is(err, workloads.ErrBadClock) {
				t.Fatalf("ParseSkew(%q) error %v does not match ErrBadClock", s, err)
			}
			return
		}
		if skew.Min > skew.Max {
			t.Fatalf("ParseSkew(%q) = %+v: Min > Max", s, skew)
		}
		again, err := workloads.ParseSkew(skew.String())
		if err != nil || again != skew {
			t.Fatalf("ParseSkew(%q) = %+v, whose String %q parses as %+v, %v", s, skew, skew.String(), again, err)
		}
	})
}

func FuzzParseJump(f *testing.F) {
	for _, s := range []string{"+2s@5s", "-1s@0s", "2s@5s", "+2s", "+0s@1s", "+2s@-1s", "x@y", "@", "+@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		jump, err := workloads.ParseJump(s)
		if err != nil {
			if !errors.Is(err, workloads.ErrBadClock) {
				t.Fatalf("ParseJump(%q) error %v does not match ErrBadClock", s, err)
			}
			return
		}
		again, err := workloads.ParseJump(jump.String())
		if err != nil || again != jump {
			t.Fatalf("ParseJump(%q) = %+v, whose String %q parses as %+v, %v", s, jump, jump.String(), again, err)
		}
	})
}

// wantNow checks that clock.Now(), read between before and after on the
// machine's clock, is the machine's time moved by offset.
func wantNow(t *testing.T, clock *workloads.Clock, offset time.Duration, what string) {
	t.Helper()
	before := time.Now()
	got := clock.Now()
	after := time.Now()
	if got.Before(before.Add(offset)) || got.After(after.Add(offset)) {
		t.Errorf("%s: Now() is %v from the machine's clock; want %v", what, got.Sub(before), offset)
	}
}

func TestNewClock(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Now()

	t.Run("uniform skew", func(t *testing.T) {
		skew := workloads.Skew{Min: -500 * time.Millisecond, Max: 500 * time.Millisecond}
		offsets := map[time.Duration]bool{}
		for range 100 {
			c := workloads.Clocks{Skew: skew}.NewClock(r, start)
			off := c.Offset()
			if off < skew.Min || off > skew.Max {
				t.Errorf("offset %v outside [%v, %v]", off, skew.Min, skew.Max)
			}
			offsets[off] = true
		}
		if len(offsets) < 2 {
			t.Errorf("100 clients drew the same offset %v", offsets)
		}
	})

	t.Run("fixed skew", func(t *testing.T) {
		for _, off := range []time.Duration{0, 200 * time.Millisecond, -time.Second} {
			c := workloads.Clocks{Skew: workloads.Skew{Min: off, Max: off}}.NewClock(r, start)
			if c.Offset() != off {
				t.Errorf("fixed skew %v gave offset %v", off, c.Offset())
			}
			wantNow(t, c, off, "fixed skew "+off.String())
		}
	})

	t.Run("jump", func(t *testing.T) {
		const at = 30 * time.Millisecond
		start := time.Now()
		c := workloads.Clocks{Jumps: []workloads.Jump{{By: time.Hour, At: at}}}.NewClock(r, start)
		wantNow(t, c, 0, "before the jump")
		if elapsed := time.Since(start); elapsed >= at {
			t.Logf("the machine took %v to read the clock; the before-the-jump check may have seen the jump", elapsed)
		}
		time.Sleep(at + 20*time.Millisecond)
		wantNow(t, c, time.Hour, "after the jump")
		if c.Offset() != 0 {
			t.Errorf("Offset() = %v after a jump; want 0 (jumps left out)", c.Offset())
		}
	})
}

func TestClocksIsZero(t *testing.T) {
	tests := []struct {
		clocks workloads.Clocks
		want   bool
	}{
		{workloads.Clocks{}, true},
		{workloads.Clocks{Skew: workloads.Skew{Min: -time.Second, Max: -time.Second}}, false},
		{workloads.Clocks{Skew: workloads.Skew{Max: time.Second}}, false},
		{workloads.Clocks{Jumps: []workloads.Jump{{By: time.Second, At: time.Second}}}, false},
	}
	for _, tc := range tests {
		if got := tc.clocks.IsZero(); got != tc.want {
			t.Errorf("%+v.IsZero() = %v; want %v", tc.clocks, got, tc.want)
		}
	}
}

func TestClocksJSON(t *testing.T) {
	in := workloads.Clocks{
		Skew:  workloads.Skew{Min: -500 * time.Millisecond, Max: 500 * time.Millisecond},
		Jumps: []workloads.Jump{{By: 2 * time.Second, At: 5 * time.Second}, {By: -time.Second, At: 10 * time.Second}},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"skew":"uniform:-500ms..500ms","jumps":["+2s@5s","-1s@10s"]}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s; want %s", b, want)
	}
	var out workloads.Clocks
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("json.Unmarshal(%s): %v", b, err)
	}
	if out.Skew != in.Skew || !slices.Equal(out.Jumps, in.Jumps) {
		t.Errorf("JSON round trip gave %+v; want %+v", out, in)
	}

	var bad workloads.Clocks
	if err := json.Unmarshal([]byte(`{"skew":"5x"}`), &bad); !errors.Is(err, workloads.ErrBadClock) {
		t.Errorf("json.Unmarshal of a bad skew: %v; want an error matching ErrBadClock", err)
	}
}
