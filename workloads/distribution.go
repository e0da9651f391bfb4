package workloads

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// ErrBadDistribution is matched (with errors.Is) by every error of
// [ParseDistribution].
var ErrBadDistribution = errors.New("workloads: bad duration or distribution")

// distributionExamples ends every parse error message.
const distributionExamples = "(examples: 2ms, exp:2ms, uniform:1ms-5ms, normal:10ms,2ms)"

// inputError is an error of the package's parsers. Its message says what
// was wrong without naming the sentinel, so that a command line can prefix
// it with the flag name ("--hold: ..."); errors.Is matches the sentinel.
type inputError struct {
	msg      string
	sentinel error
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return e.sentinel }

func badDistribution(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...) + " " + distributionExamples, sentinel: ErrBadDistribution}
}

// kind is the shape of a Distribution.
type kind uint8

const (
	fixed kind = iota
	exponential
	uniform
	normal
)

// Distribution is a distribution of durations, used for hold and think
// times. The zero value is the fixed duration 0. Distributions are comparable
// with ==.
//
// Its text form, accepted by [ParseDistribution] and produced by
// [Distribution.String], is one of:
//
//	2ms               a fixed duration (any time.ParseDuration value; 0 means zero)
//	exp:2ms           exponential with mean 2ms
//	uniform:1ms-5ms   uniform between 1ms and 5ms inclusive
//	normal:10ms,2ms   normal with mean 10ms and standard deviation 2ms,
//	                  negative samples clamped to 0
type Distribution struct {
	kind kind
	// first is the fixed value, exponential mean, uniform minimum or
	// normal mean; second is the uniform maximum or normal standard
	// deviation, and zero otherwise.
	first, second time.Duration
}

// Fixed returns the distribution that always yields d. It panics if d is
// negative.
func Fixed(d time.Duration) Distribution {
	if d < 0 {
		panic(fmt.Sprintf("workloads: Fixed(%v): negative duration", d))
	}
	return Distribution{kind: fixed, first: d}
}

// ParseDistribution parses the text form of a Distribution (see
// [Distribution]). Errors wrap [ErrBadDistribution] and their messages give
// examples of valid input.
func ParseDistribution(s string) (Distribution, error) {
	if s == "" {
		return Distribution{}, badDistribution("empty duration or distribution")
	}
	name, args, hasKind := strings.Cut(s, ":")
	if !hasKind {
		d, err := time.ParseDuration(s)
		if err != nil {
			return Distribution{}, badDistribution("%q is not a duration or distribution", s)
		}
		if d < 0 {
			return Distribution{}, badDistribution("%q: durations must not be negative", s)
		}
		return Distribution{kind: fixed, first: d}, nil
	}

	switch name {
	case "exp":
		mean, err := parseNonNegative(s, args)
		if err != nil {
			return Distribution{}, err
		}
		return Distribution{kind: exponential, first: mean}, nil
	case "uniform":
		lowText, highText, ok := strings.Cut(args, "-")
		if !ok {
			return Distribution{}, badDistribution("%q: uniform needs min-max", s)
		}
		low, err := parseNonNegative(s, lowText)
		if err != nil {
			return Distribution{}, err
		}
		high, err := parseNonNegative(s, highText)
		if err != nil {
			return Distribution{}, err
		}
		if low > high {
			return Distribution{}, badDistribution("%q: min %v is greater than max %v", s, low, high)
		}
		return Distribution{kind: uniform, first: low, second: high}, nil
	case "normal":
		meanText, stddevText, ok := strings.Cut(args, ",")
		if !ok {
			return Distribution{}, badDistribution("%q: normal needs mean,stddev", s)
		}
		mean, err := parseNonNegative(s, meanText)
		if err != nil {
			return Distribution{}, err
		}
		stddev, err := parseNonNegative(s, stddevText)
		if err != nil {
			return Distribution{}, err
		}
		return Distribution{kind: normal, first: mean, second: stddev}, nil
	default:
		return Distribution{}, badDistribution("%q: unknown distribution %q (known: exp, normal, uniform)", s, name)
	}
}

// parseNonNegative parses one duration argument of the distribution s.
func parseNonNegative(s, arg string) (time.Duration, error) {
	d, err := time.ParseDuration(arg)
	if err != nil {
		return 0, badDistribution("%q: %q is not a duration", s, arg)
	}
	if d < 0 {
		return 0, badDistribution("%q: durations must not be negative", s)
	}
	return d, nil
}

// String returns the text form of d, which [ParseDistribution] parses back
// to a Distribution equal to d.
func (d Distribution) String() string {
	switch d.kind {
	case exponential:
		return "exp:" + d.first.String()
	case uniform:
		return "uniform:" + d.first.String() + "-" + d.second.String()
	case normal:
		return "normal:" + d.first.String() + "," + d.second.String()
	default:
		return d.first.String()
	}
}

// IsZero reports whether every sample of d is zero.
func (d Distribution) IsZero() bool { return d.first == 0 && d.second == 0 }

// Sample draws one duration from d using r; it never returns a negative
// duration and does not allocate. A fixed distribution ignores r (which may
// then be nil); other kinds need a non-nil r.
func (d Distribution) Sample(r *rand.Rand) time.Duration {
	switch d.kind {
	case exponential:
		return fromNanoseconds(r.ExpFloat64() * float64(d.first))
	case uniform:
		span := uint64(d.second - d.first) // no overflow: 0 <= first <= second
		return d.first + time.Duration(r.Uint64N(span+1))
	case normal:
		return fromNanoseconds(float64(d.first) + r.NormFloat64()*float64(d.second))
	default:
		return d.first
	}
}

// Mean returns the expected value of a sample of d. For a normal
// distribution this accounts for clamping negative samples to 0.
func (d Distribution) Mean() time.Duration {
	switch d.kind {
	case uniform:
		return d.first + (d.second-d.first)/2
	case normal:
		if d.second == 0 {
			return d.first
		}
		// E[max(0, X)] for X ~ N(μ, σ²) is μΦ(μ/σ) + σφ(μ/σ).
		mu, sigma := float64(d.first), float64(d.second)
		z := mu / sigma
		cdf := 0.5 * math.Erfc(-z/math.Sqrt2)
		pdf := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		return fromNanoseconds(mu*cdf + sigma*pdf)
	default: // fixed and exponential
		return d.first
	}
}

// fromNanoseconds rounds ns to a Duration, clamped to [0, the longest
// Duration].
func fromNanoseconds(ns float64) time.Duration {
	switch {
	case !(ns > 0): // also NaN
		return 0
	case ns >= math.MaxInt64: // float64(MaxInt64) is 2^63, just out of range
		return math.MaxInt64
	default:
		return time.Duration(math.Round(ns))
	}
}

// MarshalText returns the text form of d, so that d serializes as a string in
// JSON and other text encodings.
func (d Distribution) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses the text form of a Distribution into d.
func (d *Distribution) UnmarshalText(text []byte) error {
	parsed, err := ParseDistribution(string(text))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}
