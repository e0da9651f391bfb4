package bugs

import (
	"fmt"
	"math"
)

// Tally is a side's runs counted: in how many of those that ran the bug
// was seen, with the 95 % Wilson score interval of that proportion, and
// how many could not run.
type Tally struct {
	Seen, Ran, Failed int
	Low, High         float64
}

// z95 is the standard normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Count tallies a side's runs.
func (s Side) Count() Tally {
	var t Tally
	for _, r := range s.Runs {
		switch {
		case r.Failed != "":
			t.Failed++
		case r.Seen:
			t.Seen++
			t.Ran++
		default:
			t.Ran++
		}
	}
	t.Low, t.High = wilson(t.Seen, t.Ran)
	return t
}

// wilson is the 95 % Wilson score interval of k successes in n trials
// ([0, 1] for none).
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p, nf, z2 := float64(k)/float64(n), float64(n), z95*z95
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// String is "3 of 5 (23–88 %)", with the runs that could not run.
func (t Tally) String() string {
	s := fmt.Sprintf("%d of %d (%.0f–%.0f %%)", t.Seen, t.Ran, 100*t.Low, 100*t.High)
	if t.Failed > 0 {
		s += fmt.Sprintf(", %d could not run", t.Failed)
	}
	return s
}

// Verdicts.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	Inconclusive  = "inconclusive"
)

// Verdict is the result's: reproduced when the bug showed in most runs on
// the affected version and in none on the fixed one; not reproduced when
// it showed in no run on the affected version; inconclusive otherwise
// (seen on the fixed version too, seen in few runs, or runs that could
// not run).
func (r Result) Verdict() string {
	a, f := r.Affected.Count(), r.Fixed.Count()
	switch {
	case a.Failed > 0 || f.Failed > 0 || a.Ran == 0 || f.Ran == 0:
		return Inconclusive
	case a.Seen == 0:
		return NotReproduced
	case 2*a.Seen > a.Ran && f.Seen == 0:
		return Reproduced
	}
	return Inconclusive
}
