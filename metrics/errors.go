package metrics

import "github.com/lockbench/lockbench/measure"

// ClientError is one error a client met (an acquire or a release that failed
// other than by finding the lock held or timing out), as a recorder
// counts it: by kind.
type ClientError struct {
	// Kind names what failed: the Redis error prefix of a server's reply
	// (OOM, READONLY, MOVED, NOSCRIPT, ...), or timeout, connection
	// refused, connection reset, EOF, other.
	Kind string
	// Message is the server's reply for a Redis error; empty otherwise,
	// and then Err's text is the sample.
	Message string
	// Err is the error.
	Err error
}

// ErrorOverflow is the kind a recorder counts an error under when it has
// no slot left for a new kind.
const ErrorOverflow = "other kinds"

// maxErrorKinds is how many kinds of error one recorder tells apart: the
// last slot counts the rest, as ErrorOverflow.
const maxErrorKinds = 16

// errorSlot counts one kind of error in a recorder.
type errorSlot struct {
	kind   string
	count  int64
	sample string
}

// countError counts f in the slots: into its kind's slot, a free one, or
// the last, which counts every kind the others have no room for as
// ErrorOverflow. The first error of a kind gives its sample; after that,
// counting allocates nothing. Call it with the recorder's mutex held.
func countError(slots *[maxErrorKinds]errorSlot, f ClientError) {
	kind := f.Kind
	if kind == "" {
		kind = "other"
	}
	s := &slots[len(slots)-1]
	found := false
	for i := range len(slots) - 1 {
		if slots[i].kind == kind || slots[i].kind == "" {
			s, found = &slots[i], true
			break
		}
	}
	if !found {
		kind = ErrorOverflow
	}
	if s.count == 0 {
		s.kind, s.sample = kind, f.Message
		if s.sample == "" && f.Err != nil {
			s.sample = f.Err.Error()
		}
	}
	s.count++
}

// mergeErrors adds slots into byKind (made when nil), keeping the first
// sample of each kind, and returns it.
func mergeErrors(byKind map[string]measure.ErrorCount, slots *[maxErrorKinds]errorSlot) map[string]measure.ErrorCount {
	for _, s := range slots {
		if s.count == 0 {
			continue
		}
		if byKind == nil {
			byKind = map[string]measure.ErrorCount{}
		}
		c := byKind[s.kind]
		if c.Count == 0 {
			c.Sample = s.sample
		}
		c.Count += s.count
		byKind[s.kind] = c
	}
	return byKind
}
