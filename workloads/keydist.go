package workloads

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// ErrBadKeyDist is wrapped by ParseKeyDist's errors.
var ErrBadKeyDist = errors.New("workloads: bad key distribution")

// KeyDist is how clients pick the lock name of each acquisition among
// Keys names: uniformly (the zero value), by a Zipf law of exponent S
// (name i, from 0, with weight 1/(i+1)^S: a few hot names), or a fraction
// F of acquisitions on name 0 and the rest uniform over all (one hot name).
type KeyDist struct {
	kind  string  // "", "zipf" or "hot"
	param float64 // zipf's exponent S, hot's fraction F
}

// ParseKeyDist parses uniform, zipf:S (S > 0) or hot:F (F in (0, 1]).
func ParseKeyDist(s string) (KeyDist, error) {
	kind, arg, _ := strings.Cut(s, ":")
	bad := func(why string) (KeyDist, error) {
		return KeyDist{}, fmt.Errorf("%w: %q %s (examples: uniform, zipf:1.2, hot:0.5)", ErrBadKeyDist, s, why)
	}
	switch kind {
	case "", "uniform":
		if arg != "" {
			return bad("takes no parameter")
		}
		return KeyDist{}, nil
	case "zipf", "hot":
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || (kind == "hot" && v > 1) {
			if kind == "zipf" {
				return bad("needs an exponent above 0")
			}
			return bad("needs a fraction in (0, 1]")
		}
		return KeyDist{kind: kind, param: v}, nil
	}
	return bad("is not uniform, zipf:S or hot:F")
}

// IsUniform reports whether names are picked uniformly.
func (k KeyDist) IsUniform() bool { return k.kind == "" }

// String is the distribution in ParseKeyDist's syntax.
func (k KeyDist) String() string {
	if k.kind == "" {
		return "uniform"
	}
	return k.kind + ":" + strconv.FormatFloat(k.param, 'g', -1, 64)
}

// MarshalText writes String.
func (k KeyDist) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses ParseKeyDist's syntax.
func (k *KeyDist) UnmarshalText(b []byte) error {
	d, err := ParseKeyDist(string(b))
	*k = d
	return err
}

// picker returns the function that picks one of n names with a client's
// random source; nil for uniform (the caller's IntN). Zipf's cumulative
// weights are computed once and shared, read only.
func (k KeyDist) picker(n int) func(*rand.Rand) int {
	switch {
	case n <= 1 || k.kind == "":
		return nil
	case k.kind == "hot":
		f := k.param
		return func(r *rand.Rand) int {
			if r.Float64() < f {
				return 0
			}
			return r.IntN(n)
		}
	}
	cdf := make([]float64, n)
	sum := 0.0
	for i := range n {
		sum += math.Pow(float64(i+1), -k.param)
		cdf[i] = sum
	}
	return func(r *rand.Rand) int {
		u := r.Float64() * sum
		return min(sort.SearchFloat64s(cdf, u), n-1)
	}
}
