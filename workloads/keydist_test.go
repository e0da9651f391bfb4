package workloads

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestParseKeyDist(t *testing.T) {
	for _, good := range []string{"uniform", "zipf:1.2", "zipf:0.8", "hot:0.5", "hot:1"} {
		d, err := ParseKeyDist(good)
		if err != nil || d.String() != good {
			t.Errorf("ParseKeyDist(%q) = %v, %v", good, d, err)
		}
	}
	for _, bad := range []string{"zipf", "zipf:0", "zipf:-1", "hot:0", "hot:1.5", "hot:x", "uniform:2", "pareto:1"} {
		if _, err := ParseKeyDist(bad); !errors.Is(err, ErrBadKeyDist) {
			t.Errorf("ParseKeyDist(%q): %v, want ErrBadKeyDist", bad, err)
		}
	}
}

// Zipf's first name takes 1/H(n, s) of the picks, hot:F's F plus its
// uniform share; every pick is a name.
func TestKeyDistPicks(t *testing.T) {
	const n, picks = 100, 200000
	for _, tc := range []struct {
		dist      string
		first     float64 // the first name's expected share
		tolerance float64
	}{
		{"zipf:1.2", 1 / harmonic(n, 1.2), 0.01},
		{"hot:0.5", 0.5 + 0.5/n, 0.01},
	} {
		d, _ := ParseKeyDist(tc.dist)
		pick := d.picker(n)
		r := rand.New(rand.NewPCG(1, 2))
		first := 0
		for range picks {
			k := pick(r)
			if k < 0 || k >= n {
				t.Fatalf("%s picked %d of %d names", tc.dist, k, n)
			}
			if k == 0 {
				first++
			}
		}
		if got := float64(first) / picks; got < tc.first-tc.tolerance || got > tc.first+tc.tolerance {
			t.Errorf("%s: the first name took %.3f of the picks, want %.3f", tc.dist, got, tc.first)
		}
	}
	if (KeyDist{}).picker(n) != nil {
		t.Error("uniform has a picker; want the caller's IntN")
	}
}

func harmonic(n int, s float64) float64 {
	h := 0.0
	for i := 1; i <= n; i++ {
		h += math.Pow(float64(i), -s)
	}
	return h
}
