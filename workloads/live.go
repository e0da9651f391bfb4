package workloads

import (
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/oracle"
)

// liveSubBuckets is how many buckets each power of two of the live latency
// histogram has (2^3: a bucket is at most 12.5 % wide); liveBuckets covers
// 1 µs to beyond 100 s.
const (
	liveSubBits    = 3
	liveSubBuckets = 1 << liveSubBits
	liveBuckets    = 30 * liveSubBuckets
)

// Live is what a run cell has done so far, readable while it runs: the
// clients update it with one or two atomic adds per event, each client in
// the shard of its stripe of recorders (Shard), so that clients
// on different cores seldom write to one cache line, and Snapshot adds
// the shards up from any goroutine. It counts the whole cell, warm-up
// included. The zero value is ready; a nil *Live counts nothing. Set
// Spec.Live to have a run feed one.
type Live struct {
	shards [liveShards]LiveShard
	oracle atomic.Pointer[oracle.Oracle]
}

// liveShards is how many shards a Live has: as many as a cell's stripes
// of recorders.
const liveShards = maxStripes

// LiveShard is the counts of the clients of one stripe. Its methods count
// nothing on a nil shard (that of a nil Live).
type LiveShard struct {
	busy, errors, timeouts atomic.Int64
	acquireSumMicros       atomic.Int64
	acquire                [liveBuckets]atomic.Int64 // successful acquisitions by latency (µs)
	_                      [64]byte                  // off the next shard's lines
}

// Shard is the shard of stripe i (taken mod liveShards); nil for a nil l.
func (l *Live) Shard(i int) *LiveShard {
	if l == nil {
		return nil
	}
	return &l.shards[i%liveShards]
}

// LiveSnapshot is a Live read at one time. Acquire counts successful
// acquisitions by latency bucket; LiveBucketBound gives each bucket's upper
// bound.
type LiveSnapshot struct {
	Acquisitions, Busy, Errors, Timeouts, Overlaps int64
	// AcquireSum is the acquisitions' latencies added up.
	AcquireSum time.Duration
	Acquire    [liveBuckets]int64
}

// Snapshot reads l; a nil l reads as zero.
func (l *Live) Snapshot() LiveSnapshot {
	var s LiveSnapshot
	if l == nil {
		return s
	}
	for i := range l.shards {
		sh := &l.shards[i]
		for b := range sh.acquire {
			n := sh.acquire[b].Load()
			s.Acquire[b] += n
			s.Acquisitions += n
		}
		s.Busy += sh.busy.Load()
		s.Errors += sh.errors.Load()
		s.Timeouts += sh.timeouts.Load()
		s.AcquireSum += time.Duration(sh.acquireSumMicros.Load()) * time.Microsecond
	}
	if o := l.oracle.Load(); o != nil {
		s.Overlaps = (*o).Report().Overlaps
	}
	return s
}

// Sub returns what happened between before and s.
func (s LiveSnapshot) Sub(before LiveSnapshot) LiveSnapshot {
	d := LiveSnapshot{
		Acquisitions: s.Acquisitions - before.Acquisitions, Busy: s.Busy - before.Busy, Errors: s.Errors - before.Errors,
		Timeouts: s.Timeouts - before.Timeouts, Overlaps: s.Overlaps - before.Overlaps, AcquireSum: s.AcquireSum - before.AcquireSum,
	}
	for i := range s.Acquire {
		d.Acquire[i] = s.Acquire[i] - before.Acquire[i]
	}
	return d
}

// Add returns the sum of s and o.
func (s LiveSnapshot) Add(o LiveSnapshot) LiveSnapshot {
	d := LiveSnapshot{
		Acquisitions: s.Acquisitions + o.Acquisitions, Busy: s.Busy + o.Busy, Errors: s.Errors + o.Errors,
		Timeouts: s.Timeouts + o.Timeouts, Overlaps: s.Overlaps + o.Overlaps, AcquireSum: s.AcquireSum + o.AcquireSum,
	}
	for i := range s.Acquire {
		d.Acquire[i] = s.Acquire[i] + o.Acquire[i]
	}
	return d
}

// AcquireQuantile returns the acquire latency at quantile q (0 to 1) of
// the snapshot, the upper bound of its bucket (at most 12.5 % high); 0
// without acquisitions.
func (s LiveSnapshot) AcquireQuantile(q float64) time.Duration {
	if s.Acquisitions <= 0 {
		return 0
	}
	rank := int64(q*float64(s.Acquisitions) + 0.5)
	rank = min(max(rank, 1), s.Acquisitions)
	var seen int64
	for i, n := range s.Acquire {
		if seen += n; seen >= rank {
			return LiveBucketBound(i)
		}
	}
	return LiveBucketBound(liveBuckets - 1)
}

// LiveBucketBound is the upper bound (exclusive) of live latency bucket i.
func LiveBucketBound(i int) time.Duration {
	if i < liveSubBuckets {
		return time.Duration(i+1) * time.Microsecond
	}
	e, m := i/liveSubBuckets+liveSubBits-1, int64(i%liveSubBuckets)
	return time.Duration((liveSubBuckets+m+1)<<(e-liveSubBits)) * time.Microsecond
}

// liveBucket is the bucket of a latency of us microseconds.
func liveBucket(us int64) int {
	if us < liveSubBuckets {
		return int(max(us, 0))
	}
	e := bits.Len64(uint64(us)) - 1
	i := (e-liveSubBits+1)*liveSubBuckets + int((us>>(e-liveSubBits))&(liveSubBuckets-1))
	return min(i, liveBuckets-1)
}

// attach makes the oracle's overlaps part of the snapshots.
func (l *Live) attach(o oracle.Oracle) {
	if l != nil {
		l.oracle.Store(&o)
	}
}

// Acquired counts a successful acquisition of the given latency.
func (l *LiveShard) Acquired(latency time.Duration) {
	if l != nil {
		us := latency.Microseconds()
		l.acquire[liveBucket(us)].Add(1)
		l.acquireSumMicros.Add(us)
	}
}

// BusyTry counts a try at acquiring that found the lock held.
func (l *LiveShard) BusyTry() {
	if l != nil {
		l.busy.Add(1)
	}
}

// Failed counts a Redis or network error.
func (l *LiveShard) Failed() {
	if l != nil {
		l.errors.Add(1)
	}
}

// TimedOut counts an acquisition given up after the acquire timeout.
func (l *LiveShard) TimedOut() {
	if l != nil {
		l.timeouts.Add(1)
	}
}
