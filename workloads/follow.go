package workloads

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Follow measures how soon a cell's clients follow a failover: from the
// moment a promotion was seen (Mark), the first try on a lock name that the
// failed master served to be answered (busy or acquired: a command the new
// master served for a client) and the first acquisition there. The clients
// feed it with an atomic store per answer; Spec.Follow, nil for none.
//
// Which lock names moved is told from the answers themselves, with no
// knowledge of slots: a name answered in the second half of the time from
// the fault that caused the promotion to the promotion was on a master
// that kept serving, unless it was silent from about the fault (its first
// quarter) past that half: its master failed and the clients followed in
// the moments between the promotion and the watch seeing it (one poll),
// timed then before the promotion seen, a negative figure. A name not
// answered in the second half was on the master that failed (the replies
// in flight when it stopped are read just after). A cluster's other
// masters' names keep being answered; under Sentinel every name moves.
type Follow struct {
	epoch time.Time // the origin of the times below
	// lastAnswered is, per lock name, when a try on it was last answered
	// (ns since epoch, 0 for never).
	lastAnswered []atomic.Int64
	// silences are, per lock name, its longest silence since the last
	// Mark.
	silences []silence
	mu       sync.Mutex
	marks    atomic.Pointer[[]*followMark]
}

// silence is a lock name's longest time with no answer: from its answer
// before to the one after (ns since epoch), and the first acquisition at
// or after its end (0 for none yet). length and pending let the clients
// skip mu when they have nothing to change.
type silence struct {
	length            atomic.Int64
	pending           atomic.Bool // no acquisition after the silence yet
	mu                sync.Mutex
	from, to, acquire int64 // guarded by mu
}

// Never is a FollowTimes figure of what did not happen before the cell
// ended.
const Never = time.Duration(math.MinInt64)

// followMark is one promotion seen: which lock names moved, and their
// first answers after it (or, for a name the clients followed before it
// was seen, the answers that ended its silence).
type followMark struct {
	node                        string
	seen                        time.Time
	at, cause                   int64  // ns since epoch: the promotion seen, the fault that caused it
	moved                       []bool // per lock name: on the master that failed
	firstAnswered, firstAcquire []atomic.Int64
}

// FollowTimes are how long after a promotion was seen the clients first
// had a try on a moved lock name answered (Served) and first acquired one
// (Acquired): negative when they did before it was seen, Never when they
// did not before the cell ended. Moved is how many lock names moved: 0
// when every name kept being answered from the fault to the promotion
// (none was on the master that failed), and both figures are then 0.
type FollowTimes struct {
	// Node is the node promoted, Seen when the promotion was seen.
	Node             string
	Seen             time.Time
	Served, Acquired time.Duration
	Moved            int
}

// NewFollow returns a Follow of a cell of spec (its lock names).
func NewFollow(spec Spec) *Follow {
	keys := max(spec.Keys, 1)
	if spec.KeyPerClient {
		keys = max(keys, spec.FirstClient+spec.Clients)
	}
	return &Follow{epoch: time.Now(), lastAnswered: make([]atomic.Int64, keys), silences: make([]silence, keys)}
}

// Mark says that node's promotion was seen at at, caused by a fault that
// began at cause; Times(i) reads the i-th mark's figures. Nil marks
// nothing.
func (f *Follow) Mark(node string, at, cause time.Time) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	m := &followMark{node: node, seen: at, at: max(int64(at.Sub(f.epoch)), 1), cause: int64(cause.Sub(f.epoch)),
		moved:         make([]bool, len(f.lastAnswered)),
		firstAnswered: make([]atomic.Int64, len(f.lastAnswered)), firstAcquire: make([]atomic.Int64, len(f.lastAnswered))}
	half, quarter := m.cause+(m.at-m.cause)/2, m.cause+(m.at-m.cause)/4
	for k := range f.lastAnswered {
		from, to, acquire := f.silences[k].take()
		switch {
		case f.lastAnswered[k].Load() < half: // silent still
			m.moved[k] = true
		case from <= quarter && to >= half: // followed before the promotion was seen
			m.moved[k] = true
			m.firstAnswered[k].Store(to)
			m.firstAcquire[k].Store(acquire)
		}
	}
	var marks []*followMark
	if old := f.marks.Load(); old != nil {
		marks = append(marks, *old...)
	}
	marks = append(marks, m)
	f.marks.Store(&marks)
}

// answered records that a try on name k was answered at, and acquired it
// when acquired is set.
func (f *Follow) answered(k int, at time.Time, acquired bool) {
	if f == nil || k >= len(f.lastAnswered) {
		return
	}
	t := int64(at.Sub(f.epoch))
	if prev := f.lastAnswered[k].Swap(t); prev > 0 {
		f.silences[k].ended(prev, t)
	}
	if acquired {
		f.silences[k].acquired(t)
	}
	marks := f.marks.Load()
	if marks == nil {
		return
	}
	for _, m := range *marks {
		if t < m.at {
			continue
		}
		if m.firstAnswered[k].Load() == 0 {
			m.firstAnswered[k].CompareAndSwap(0, t)
		}
		if acquired && m.firstAcquire[k].Load() == 0 {
			m.firstAcquire[k].CompareAndSwap(0, t)
		}
	}
}

// Times are the figures of the i-th Mark; false when there is none.
func (f *Follow) Times(i int) (FollowTimes, bool) {
	if f == nil || f.marks.Load() == nil || i >= len(*f.marks.Load()) {
		return FollowTimes{}, false
	}
	m := (*f.marks.Load())[i]
	earliest := func(firsts []atomic.Int64, k int, acc *int64) {
		if v := firsts[k].Load(); v > 0 && (*acc == 0 || v < *acc) {
			*acc = v
		}
	}
	t := FollowTimes{Node: m.node, Seen: m.seen}
	var served, acquired int64
	for k, moved := range m.moved {
		if !moved {
			continue
		}
		t.Moved++
		earliest(m.firstAnswered, k, &served)
		earliest(m.firstAcquire, k, &acquired)
	}
	if t.Moved == 0 {
		return t, true
	}
	since := func(v int64) time.Duration {
		if v == 0 {
			return Never
		}
		return time.Duration(v - m.at)
	}
	t.Served, t.Acquired = since(served), since(acquired)
	return t, true
}

// ended records a time with no answer from from to to, when it is the
// longest since the last take.
func (s *silence) ended(from, to int64) {
	if to-from <= s.length.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if to-from > s.length.Load() {
		s.from, s.to, s.acquire = from, to, 0
		s.length.Store(to - from)
		s.pending.Store(true)
	}
}

// acquired records an acquisition at t: the first after the silence when
// none came before.
func (s *silence) acquired(t int64) {
	if !s.pending.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending.Load() && t >= s.to {
		s.acquire = t
		s.pending.Store(false)
	}
}

// take returns the longest silence and the first acquisition after it,
// and forgets them: the next Mark looks at the silences after this one.
func (s *silence) take() (from, to, acquire int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from, to, acquire = s.from, s.to, s.acquire
	s.from, s.to, s.acquire = 0, 0, 0
	s.length.Store(0)
	s.pending.Store(false)
	return from, to, acquire
}
