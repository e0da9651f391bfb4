package workloads

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// ErrBadClock is matched (with errors.Is) by every error of ParseSkew and
// ParseJump.
var ErrBadClock = errors.New("workloads: bad clock setting")

// Skew spreads the clients' clocks: each client's clock runs at a fixed
// offset from the machine's, drawn uniformly from [Min, Max] (a fixed offset
// when Min == Max). The zero value is no skew.
//
// Its text form is a signed duration (+200ms, -1s, 0) or
// uniform:MIN..MAX (uniform:-500ms..500ms).
type Skew struct{ Min, Max time.Duration }

// maxSkew bounds a clock offset; anything larger is a typo, not a clock.
const maxSkew = 24 * time.Hour

// ParseSkew parses a skew.
func ParseSkew(s string) (Skew, error) {
	bad := func(why string) (Skew, error) {
		return Skew{}, &inputError{fmt.Sprintf("%q %s (examples: +200ms, -1s, uniform:-500ms..500ms)", s, why), ErrBadClock}
	}
	if body, ok := strings.CutPrefix(s, "uniform:"); ok {
		lo, hi, ok := strings.Cut(body, "..")
		min, err1 := time.ParseDuration(lo)
		max, err2 := time.ParseDuration(hi)
		if !ok || err1 != nil || err2 != nil || min > max {
			return bad("needs uniform:MIN..MAX with MIN <= MAX")
		}
		if min < -maxSkew || max > maxSkew {
			return bad("is beyond ±24h")
		}
		return Skew{Min: min, Max: max}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return bad("is not a clock offset")
	}
	if d < -maxSkew || d > maxSkew {
		return bad("is beyond ±24h")
	}
	return Skew{Min: d, Max: d}, nil
}

func signed(d time.Duration) string {
	if d > 0 {
		return "+" + d.String()
	}
	return d.String()
}

// String returns the skew in ParseSkew's form.
func (s Skew) String() string {
	if s.Min == s.Max {
		return signed(s.Min)
	}
	return fmt.Sprintf("uniform:%v..%v", s.Min, s.Max)
}

// MarshalText encodes the skew as its string.
func (s Skew) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses the skew's string.
func (s *Skew) UnmarshalText(b []byte) error {
	v, err := ParseSkew(string(b))
	*s = v
	return err
}

// Jump moves every client's clock by By when At has passed since the cell
// started (warm-up included). Its text form is +2s@5s or -1s@10s.
type Jump struct{ By, At time.Duration }

// ParseJump parses a jump.
func ParseJump(s string) (Jump, error) {
	by, at, ok := strings.Cut(s, "@")
	jump, err1 := time.ParseDuration(by)
	when, err2 := time.ParseDuration(at)
	if !ok || err1 != nil || err2 != nil || jump == 0 || when < 0 || (by[0] != '+' && by[0] != '-') {
		return Jump{}, &inputError{fmt.Sprintf("%q is not a clock jump (examples: +2s@5s jumps every client clock 2s ahead 5s into the cell, -1s@10s)", s), ErrBadClock}
	}
	return Jump{By: jump, At: when}, nil
}

// String returns the jump in ParseJump's form.
func (j Jump) String() string { return signed(j.By) + "@" + j.At.String() }

// MarshalText encodes the jump as its string.
func (j Jump) MarshalText() ([]byte, error) { return []byte(j.String()), nil }

// UnmarshalText parses the jump's string.
func (j *Jump) UnmarshalText(b []byte) error {
	v, err := ParseJump(string(b))
	*j = v
	return err
}

// Clocks are the clients' clocks of a workload. The zero value gives every
// client the machine's clock.
type Clocks struct {
	Skew  Skew   `json:"skew"`
	Jumps []Jump `json:"jumps,omitempty"`
}

// IsZero reports whether every client gets the machine's clock.
func (c Clocks) IsZero() bool { return c.Skew == Skew{} && len(c.Jumps) == 0 }

// Clock is one client's clock: the machine's, plus the client's offset,
// plus the jumps whose time has come.
type Clock struct {
	offset time.Duration
	start  time.Time
	jumps  []Jump
}

// NewClock returns a client's clock for a cell that started at start,
// drawing its offset from r.
func (c Clocks) NewClock(r *rand.Rand, start time.Time) *Clock {
	offset := c.Skew.Min
	if spread := c.Skew.Max - c.Skew.Min; spread > 0 {
		offset += time.Duration(r.Int64N(int64(spread) + 1))
	}
	return &Clock{offset: offset, start: start, jumps: c.Jumps}
}

// Offset is the client's fixed offset, jumps left out.
func (c *Clock) Offset() time.Duration { return c.offset }

// ShareOffset gives the client other's offset: a client whose lock lives
// in a process shared with others has that process's clock (a lock
// driver's). NewLock calls it, before the client's first operation.
func (c *Clock) ShareOffset(other *Clock) { c.offset = other.offset }

// Jumps are the clock's jumps and the time their At counts from.
func (c *Clock) Jumps() (start time.Time, jumps []Jump) { return c.start, c.jumps }

// Now is the client's time.
func (c *Clock) Now() time.Time {
	d := c.offset
	if len(c.jumps) > 0 {
		elapsed := time.Since(c.start)
		for _, j := range c.jumps {
			if elapsed >= j.At {
				d += j.By
			}
		}
	}
	return time.Now().Add(d)
}
