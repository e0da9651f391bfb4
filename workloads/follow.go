package workloads

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Follow measures how soon a cell's clients follow a failover: from the
// moment a promotion was seen (Mark), the first time the clients'
// commands reached the new master (Arrived: the role watch reads the
// node's connections, topologies.RoleChange) and the first acquisition
// after that. It holds whatever the failover's kind: after a graceful
// failover the old master keeps answering until it is demoted, so the
// clients' answers alone cannot tell which master served them. The
// clients feed it with an atomic load per acquisition; Spec.Follow, nil
// for none.
type Follow struct {
	epoch    time.Time // the origin of the times below
	mu       sync.Mutex
	marks    []followMark
	arrivals atomic.Pointer[[]*followArrival]
}

// Never is a FollowTimes figure of what did not happen before the cell
// ended.
const Never = time.Duration(math.MinInt64)

// followMark is one promotion seen.
type followMark struct {
	node      string
	seen      time.Time
	at, cause int64 // ns since epoch: the promotion seen, the fault that caused it
}

// followArrival is one time the clients' commands first reached a node,
// and the first acquisition at or after it (ns since epoch, 0 for none
// yet).
type followArrival struct {
	node         string
	at           int64
	firstAcquire atomic.Int64
}

// FollowTimes are how long after a promotion was seen the clients'
// commands first reached the new master (Served) and the clients first
// acquired a lock after that (Acquired): negative when they did before it
// was seen (within the watch's poll), Never when they did not before the
// cell ended.
type FollowTimes struct {
	// Node is the node promoted, Seen when the promotion was seen.
	Node             string
	Seen             time.Time
	Served, Acquired time.Duration
}

// NewFollow returns a Follow of a cell.
func NewFollow() *Follow { return &Follow{epoch: time.Now()} }

// Mark says that node's promotion was seen at at, caused by a fault that
// began at cause; Times(i) reads the i-th mark's figures. Nil marks
// nothing.
func (f *Follow) Mark(node string, at, cause time.Time) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.marks = append(f.marks, followMark{node: node, seen: at, at: f.since(at), cause: f.since(cause)})
}

// Arrived says that the clients' commands were first seen on node at at.
// Nil records nothing.
func (f *Follow) Arrived(node string, at time.Time) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var arrivals []*followArrival
	if old := f.arrivals.Load(); old != nil {
		arrivals = append(arrivals, *old...)
	}
	arrivals = append(arrivals, &followArrival{node: node, at: f.since(at)})
	f.arrivals.Store(&arrivals)
}

func (f *Follow) since(t time.Time) int64 { return max(int64(t.Sub(f.epoch)), 1) }

// acquired records an acquisition at at: the first after each arrival
// before it that has none yet.
func (f *Follow) acquired(at time.Time) {
	if f == nil {
		return
	}
	arrivals := f.arrivals.Load()
	if arrivals == nil {
		return
	}
	t := f.since(at)
	for _, a := range *arrivals {
		if t >= a.at && a.firstAcquire.Load() == 0 {
			a.firstAcquire.CompareAndSwap(0, t)
		}
	}
}

// Times are the figures of the i-th Mark, from the first arrival on its
// node since the fault that caused it; false when there is no such mark.
func (f *Follow) Times(i int) (FollowTimes, bool) {
	if f == nil {
		return FollowTimes{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.marks) {
		return FollowTimes{}, false
	}
	m := f.marks[i]
	t := FollowTimes{Node: m.node, Seen: m.seen, Served: Never, Acquired: Never}
	if arrivals := f.arrivals.Load(); arrivals != nil {
		for _, a := range *arrivals {
			if a.node != m.node || a.at < m.cause {
				continue
			}
			t.Served = time.Duration(a.at - m.at)
			if acquire := a.firstAcquire.Load(); acquire > 0 {
				t.Acquired = time.Duration(acquire - m.at)
			}
			break
		}
	}
	return t, true
}
