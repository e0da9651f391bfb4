package variants

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// RetryKind names how a blocking acquire waits between tries.
type RetryKind string

// The retry kinds.
const (
	RetryNone  RetryKind = "none"   // one try; a held lock fails at once with ErrBusy
	RetrySpin  RetryKind = "spin"   // try again at once (a busy loop)
	RetryFixed RetryKind = "fixed"  // a fixed pause between tries
	RetryExp   RetryKind = "exp"    // exponential backoff from Min to Max, with jitter
	RetryRand  RetryKind = "random" // a pause drawn uniformly from Min to Max (Redlock's random delay)
)

// ErrBadRetry is wrapped by every ParseRetry error.
var ErrBadRetry = errors.New("bad retry policy")

const retryExamples = "none, spin, fixed:10ms, exp:1ms-100ms, random:1ms-10ms"

// RetryPolicy says how a blocking acquire waits between tries. The zero
// value means "not set".
type RetryPolicy struct {
	Kind RetryKind
	Min  time.Duration // the pause of fixed; the first pause of exp
	Max  time.Duration // the longest pause of exp
}

// ParseRetry parses none, spin, fixed:D or exp:MIN-MAX.
func ParseRetry(s string) (RetryPolicy, error) {
	bad := func(why string) (RetryPolicy, error) {
		return RetryPolicy{}, fmt.Errorf("%w: %q %s (examples: %s)", ErrBadRetry, s, why, retryExamples)
	}
	kind, arg, hasArg := strings.Cut(s, ":")
	switch RetryKind(kind) {
	case RetryNone, RetrySpin:
		if hasArg {
			return bad("takes no argument")
		}
		return RetryPolicy{Kind: RetryKind(kind)}, nil
	case RetryFixed:
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 {
			return bad("needs a positive pause")
		}
		return RetryPolicy{Kind: RetryFixed, Min: d, Max: d}, nil
	case RetryExp, RetryRand:
		lo, hi, ok := strings.Cut(arg, "-")
		min, err1 := time.ParseDuration(lo)
		max, err2 := time.ParseDuration(hi)
		if !ok || err1 != nil || err2 != nil || min <= 0 || max < min {
			return bad("needs MIN-MAX with 0 < MIN <= MAX")
		}
		return RetryPolicy{Kind: RetryKind(kind), Min: min, Max: max}, nil
	}
	return bad("is not a retry policy")
}

// String returns the policy in ParseRetry's syntax.
func (p RetryPolicy) String() string {
	switch p.Kind {
	case RetryFixed:
		return fmt.Sprintf("fixed:%v", p.Min)
	case RetryExp, RetryRand:
		return fmt.Sprintf("%s:%v-%v", p.Kind, p.Min, p.Max)
	}
	return string(p.Kind)
}

// IsZero reports whether no policy is set.
func (p RetryPolicy) IsZero() bool { return p.Kind == "" }

// MarshalText encodes the policy as its string.
func (p RetryPolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText parses the policy's string.
func (p *RetryPolicy) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = RetryPolicy{}
		return nil
	}
	q, err := ParseRetry(string(b))
	*p = q
	return err
}

// Delay is the pause before try number attempt+1 (attempt counts from 0).
// exp doubles from Min up to Max and keeps half of the pause fixed and the
// other half random ("equal jitter"), so waiters that collided spread out.
func (p RetryPolicy) Delay(attempt int, r *rand.Rand) time.Duration {
	switch p.Kind {
	case RetryFixed:
		return p.Min
	case RetryRand:
		return p.Min + time.Duration(r.Int64N(int64(p.Max-p.Min)+1))
	case RetryExp:
		d := p.Max
		if p.Min <= p.Max>>attempt { // Min<<attempt <= Max, without overflow
			d = p.Min << attempt
		}
		half := d / 2
		return half + time.Duration(r.Int64N(int64(d-half)+1))
	}
	return 0
}
