package witness

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
)

var (
	//go:embed lua/waiting.lua
	waitingLua    string
	waitingScript = variants.NewScript(waitingLua)
	//go:embed lua/enter.lua
	enterLua    string
	enterScript = variants.NewScript(enterLua)
	//go:embed lua/leave.lua
	leaveLua    string
	leaveScript = variants.NewScript(leaveLua)
	//go:embed lua/report.lua
	reportLua    string
	reportScript = variants.NewScript(reportLua)
)

// Oracle is a cell's protected resources, kept in the witness: the shards
// of a run that open it with the same prefix share it. It implements
// [oracle.Oracle], with [oracle.Memory]'s meaning for every figure, but
// times everything with the witness's clock.
//
// A call that fails (the witness did not answer in time) is counted, and
// the holder goes on unwitnessed: [Oracle.Failures] says how many, and the
// figures are then a lower bound.
type Oracle struct {
	w      *Witness
	prefix string
	keys   []string // the resources' hashes
	limit  string
	reject string // "1" when stale writes are refused

	handoffMu sync.Mutex
	handoff   *hdrhistogram.Histogram
	// intruded holds, per entry left (resource and epoch), whether a later
	// holder was inside as it left, until Intruded asks.
	intruded sync.Map

	errMu    sync.Mutex // guards failures and firstErr
	failures int64
	firstErr error
	last     atomic.Pointer[oracle.Report] // the last report read
}

var _ oracle.Oracle = (*Oracle)(nil)

// Oracle returns the cell's oracle of resources resources under prefix
// (the run's prefix and the cell's), each admitting limit holders; with
// rejectStale its resources refuse stale fenced writes.
func (w *Witness) Oracle(prefix string, resources, limit int, rejectStale bool) *Oracle {
	o := &Oracle{w: w, prefix: prefix, limit: strconv.Itoa(limit), reject: "0", handoff: metrics.NewHistogram()}
	if rejectStale {
		o.reject = "1"
	}
	for i := range resources {
		o.keys = append(o.keys, prefix+"r"+strconv.Itoa(i))
	}
	o.last.Store(&oracle.Report{})
	return o
}

// Failures is how many calls to the witness failed, and the first error.
func (o *Oracle) Failures() (int64, error) {
	o.errMu.Lock()
	defer o.errMu.Unlock()
	return o.failures, o.firstErr
}

func (o *Oracle) failed(err error) {
	o.errMu.Lock()
	o.failures++
	if o.firstErr == nil {
		o.firstErr = err
	}
	o.errMu.Unlock()
}

func (o *Oracle) call(script *variants.Script, resource int, args ...string) (any, error) {
	reply, err := o.w.run(context.Background(), script, []string{o.key(resource)}, args...)
	if err != nil {
		o.failed(err)
	}
	return reply, err
}

func (o *Oracle) key(resource int) string {
	if resource < 0 || resource >= len(o.keys) {
		panic(fmt.Sprintf("witness: oracle resource %d out of range [0, %d)", resource, len(o.keys)))
	}
	return o.keys[resource]
}

// Waiting records that a client starts to wait for resource, its try
// having found it held.
func (o *Oracle) Waiting(resource int) {
	_, _ = o.call(waitingScript, resource, "wait", keepSeconds, o.limit)
}

// GaveUp records that a waiting client stopped waiting: it gave up, timed
// out, or is about to enter.
func (o *Oracle) GaveUp(resource int) {
	_, _ = o.call(waitingScript, resource, "gaveup", keepSeconds, o.limit)
}

// WaitingAt and GaveUpAt are Waiting and GaveUp: the witness times them
// with its own clock, and at is ignored.
func (o *Oracle) WaitingAt(resource int, _ time.Time) { o.Waiting(resource) }

// GaveUpAt is GaveUp (see WaitingAt).
func (o *Oracle) GaveUpAt(resource int, _ time.Time) { o.GaveUp(resource) }

// EnterFenced records a holder entering resource with fencing token token
// (0 for none) and reads the resource's counter. When the witness does not
// answer, the entry is unwitnessed: its exit is not sent.
func (o *Oracle) EnterFenced(resource int, token uint64) oracle.Entry {
	reply, err := o.call(enterScript, resource, o.limit, keepSeconds)
	v, ok := reply.([]any)
	if err != nil || !ok || len(v) != 3 {
		if err == nil {
			o.failed(fmt.Errorf("witness: unexpected enter reply %v", reply))
		}
		return oracle.NewEntry(resource, 0, unwitnessed, token)
	}
	counter, _ := v[0].(int64)
	epoch, _ := v[1].(int64)
	if gap, _ := v[2].(int64); gap >= 0 {
		o.handoffMu.Lock()
		metrics.RecordMicros(o.handoff, gap)
		o.handoffMu.Unlock()
	}
	return oracle.NewEntry(resource, counter, epoch, token)
}

// unwitnessed is the epoch of an entry the witness did not record.
const unwitnessed = -1

// Exit writes the holder's update; it reports whether the resource took
// it (a stale write is refused under rejectStale).
func (o *Oracle) Exit(e oracle.Entry) bool { return o.leave(e, "exit") }

// Abandon records that the holder of e left without writing.
func (o *Oracle) Abandon(e oracle.Entry) { o.leave(e, "abandon") }

// EnterFencedAt, ExitAt and AbandonAt are EnterFenced, Exit and Abandon:
// the witness times every event with its own clock, and at is ignored.
func (o *Oracle) EnterFencedAt(resource int, token uint64, _ time.Time) oracle.Entry {
	return o.EnterFenced(resource, token)
}

// ExitAt is Exit (see EnterFencedAt).
func (o *Oracle) ExitAt(e oracle.Entry, _ time.Time) bool { return o.Exit(e) }

// AbandonAt is Abandon (see EnterFencedAt).
func (o *Oracle) AbandonAt(e oracle.Entry, _ time.Time) { o.Abandon(e) }

func (o *Oracle) leave(e oracle.Entry, how string) bool {
	if e.Epoch() == unwitnessed {
		return true
	}
	reply, err := o.call(leaveScript, e.Resource(), o.limit, how,
		strconv.FormatInt(e.ValueRead(), 10), strconv.FormatUint(e.Token(), 10), o.reject, strconv.FormatInt(e.Epoch(), 10))
	v, ok := reply.([]any)
	if err != nil || !ok || len(v) != 2 {
		return true
	}
	o.intruded.Store(entryKey{e.Resource(), e.Epoch()}, v[1] == int64(1))
	return v[0] == int64(1)
}

// entryKey names an entry of the cell.
type entryKey struct {
	resource int
	epoch    int64
}

// Intruded reports whether a holder that entered e's resource after e was
// inside it when e's holder left (never, with a limit above 1). Ask it
// once, after Exit or Abandon of e, as the workload does: the answer comes
// with the leaving, in the same round trip.
func (o *Oracle) Intruded(e oracle.Entry) bool {
	in, _ := o.intruded.LoadAndDelete(entryKey{e.Resource(), e.Epoch()})
	return o.limit == "1" && in == true
}

// Report returns what the witness has seen on the cell's resources, from
// every shard. When the witness does not answer it returns the last report
// it read.
func (o *Oracle) Report() oracle.Report {
	rep, err := o.report(context.Background())
	if err != nil {
		o.failed(err)
		return *o.last.Load()
	}
	return rep
}

func (o *Oracle) report(ctx context.Context) (oracle.Report, error) {
	reply, err := o.w.run(ctx, reportScript, o.keys, o.limit)
	if err != nil {
		return oracle.Report{}, err
	}
	v, ok := reply.([]any)
	if !ok || len(v) != 10 {
		return oracle.Report{}, fmt.Errorf("witness: unexpected report %v", reply)
	}
	n := make([]int64, len(v))
	for i, x := range v {
		n[i], _ = x.(int64)
	}
	rep := oracle.Report{
		Overlaps: n[0], MaxOccupancy: n[1], TimeOverLimit: time.Duration(n[2]) * time.Microsecond,
		CriticalSections: n[3], Abandoned: n[4], StaleWrites: n[5], RejectedWrites: n[6],
		Counter: n[7], Holders: n[8], LongestUnavailable: time.Duration(n[9]) * time.Microsecond,
	}
	if o.limit == "1" {
		rep.LostUpdates = rep.CriticalSections - rep.Counter
	}
	o.last.Store(&rep)
	return rep, nil
}

// Handoff returns a copy of the handoff histogram of the entries made
// through this Oracle (µs): this process's share of the cell's handoffs.
func (o *Oracle) Handoff() *hdrhistogram.Histogram {
	o.handoffMu.Lock()
	defer o.handoffMu.Unlock()
	h := metrics.NewHistogram()
	h.Merge(o.handoff)
	return h
}
