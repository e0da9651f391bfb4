package workloads

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadShard is returned by ParseShard for text that is not i/N.
var ErrBadShard = errors.New("not a shard")

// Shard is one of Count processes that split one load between them:
// Index from 1 to Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard parses i/N (1-based, 1 <= i <= N).
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return Shard{}, fmt.Errorf("%w: %q (want i/N with 1 <= i <= N, e.g. 1/3)", ErrBadShard, s)
	}
	return Shard{Index: index, Count: count}, nil
}

// String returns the shard as i/N.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Clients is the shard's share of n clients: the clients split as evenly as
// possible, the first n mod Count shards taking one more. It may be 0.
func (s Shard) Clients(n int) int { return int(s.share(int64(n))) }

// FirstClient is the run-wide number (from 0) of the shard's first client
// of n: the clients of the shards before it.
func (s Shard) FirstClient(n int) int {
	first := 0
	for i := 1; i < s.Index; i++ {
		first += Shard{Index: i, Count: s.Count}.Clients(n)
	}
	return first
}

// Ops is the shard's share of a closed loop's n acquisitions, split as the
// clients are.
func (s Shard) Ops(n int64) int64 { return s.share(n) }

func (s Shard) share(n int64) int64 {
	count, index := int64(s.Count), int64(s.Index)
	share := n / count
	if index <= n%count {
		share++
	}
	return share
}

// Apply returns the shard's share of spec, a cell's load of n clients: its
// share of the clients (in an open loop, of the cap on acquisitions in
// progress), of the offered rate, stages scaled alike, and of --ops.
func (s Shard) Apply(spec Spec) Spec {
	spec.FirstClient = s.FirstClient(spec.Clients)
	spec.Clients = s.Clients(spec.Clients)
	if s.Count == 1 {
		return spec
	}
	spec.Rate /= float64(s.Count)
	if spec.Stages != nil {
		stages := make([]Stage, len(spec.Stages))
		for i, st := range spec.Stages {
			stages[i] = Stage{Duration: st.Duration, Rate: st.Rate / float64(s.Count)}
		}
		spec.Stages = stages
	}
	spec.Ops = s.Ops(spec.Ops)
	return spec
}
