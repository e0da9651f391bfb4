package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
)

// ErrIncompatible is returned by Merge for records that did not measure the
// same thing.
var ErrIncompatible = errors.New("records do not fit together")

// cellKey identifies a cell across records.
type cellKey struct {
	variant, client, topology, product string
	clients, keys, limit               int
	repetition                         int
}

func keyOf(c *Cell) cellKey {
	return cellKey{c.Variant, c.Client, c.Topology, c.Product, c.Clients, c.Keys, c.Limit, c.Repetition}
}

// shardKeyOf identifies a cell across the shards of one run, whose cells
// have each its shard's share of the clients: by its place in the plan
// (index) instead of its clients.
func shardKeyOf(c *Cell, index int) cellKey {
	return cellKey{variant: c.Variant, client: c.Client, product: c.Product, keys: c.Keys, limit: c.Limit, repetition: c.Repetition, clients: -1 - index}
}

// checkShards checks that recs are all shards of one run, or none is a
// shard, and returns the missing shards' indexes and the shard count
// (0 when none is a shard).
func checkShards(recs []*Record) (missing []int, count int, err error) {
	if recs[0].Shard == nil {
		for i, r := range recs {
			if r.Shard != nil {
				return nil, 0, fmt.Errorf("%w: record %d is shard %s of run %s, record 1 is no shard", ErrIncompatible, i+1, r.Shard, r.RunID)
			}
		}
		return nil, 0, nil
	}
	first := recs[0]
	count = first.Shard.Count
	seen := map[int]bool{}
	for i, r := range recs {
		switch {
		case r.Shard == nil:
			return nil, 0, fmt.Errorf("%w: record %d (run %s) is no shard, record 1 is shard %s of run %s", ErrIncompatible, i+1, r.RunID, first.Shard, first.RunID)
		case r.RunID != first.RunID:
			return nil, 0, fmt.Errorf("%w: record %d is of run %s, record 1 of run %s: shards of one run share its run id", ErrIncompatible, i+1, r.RunID, first.RunID)
		case r.Shard.Count != count:
			return nil, 0, fmt.Errorf("%w: record %d is shard %s, record 1 shard %s: shards of one run share the shard count", ErrIncompatible, i+1, r.Shard, first.Shard)
		case seen[r.Shard.Index]:
			return nil, 0, fmt.Errorf("%w: shard %s of run %s given twice (record %d)", ErrIncompatible, r.Shard, r.RunID, i+1)
		}
		seen[r.Shard.Index] = true
	}
	for i := 1; i <= count; i++ {
		if !seen[i] {
			missing = append(missing, i)
		}
	}
	return missing, count, nil
}

// Merge combines records of the same configuration that ran side by side
// (shards of one load) into one: histograms are merged exactly, counters
// and throughputs summed, maxima kept; percentiles come from the merged
// histograms. Jain's index, which needs every client's count, is
// recomputed from the clients' counts, or where a record lacks them the
// lowest of the records'.
//
// Records of the shards of one run (--shard) must share the run id and
// shard count, each shard given once; their cells are matched by their
// place in the plan and the merged cell's clients are the sum of the
// shards'. A shard missing leaves the merge valid: the merged record lists
// it in MissingShards. The merged record is no shard.
func Merge(recs []*Record) (*Record, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: no records", ErrIncompatible)
	}
	missing, shards, err := checkShards(recs)
	if err != nil {
		return nil, err
	}
	first, err := json.Marshal(recs[0].Config)
	if err != nil {
		return nil, err
	}
	out := *recs[0]
	out.Cells = nil
	out.Shard, out.MissingShards, out.ShardCount = nil, missing, shards
	index := map[cellKey]int{}
	for i, r := range recs {
		if cfg, _ := json.Marshal(r.Config); string(cfg) != string(first) {
			return nil, fmt.Errorf("%w: record %d (run %s) has another configuration than record 1 (run %s)", ErrIncompatible, i+1, r.RunID, recs[0].RunID)
		}
		out.Interrupted = out.Interrupted || r.Interrupted
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if r.Finished.After(out.Finished) {
			out.Finished = r.Finished
		}
		for k, c := range r.Cells {
			key := keyOf(&c)
			if shards > 0 {
				key = shardKeyOf(&c, k)
			}
			j, seen := index[key]
			if !seen {
				index[key] = len(out.Cells)
				c.Series = slices.Clone(c.Series) // merged into in place: not the input's
				c.Counters = maps.Clone(c.Counters)
				out.Cells = append(out.Cells, c)
				continue
			}
			if err := mergeCell(&out.Cells[j], &c); err != nil {
				return nil, err
			}
			if shards > 0 {
				out.Cells[j].Clients += c.Clients
				out.Cells[j].ClockOffsetsMS = append(slices.Clone(out.Cells[j].ClockOffsetsMS), c.ClockOffsetsMS...)
			}
		}
	}
	return &out, nil
}

// mergeCell adds b into a, field by field as cellMergeRules says.
func mergeCell(a, b *Cell) error {
	w, err := mergeWitness(a, b)
	if err != nil {
		return err
	}
	mergeFields(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), "", w)
	if a.Acquisitions > 0 {
		a.CommandsPerAcquisition = float64(a.Commands) / float64(a.Acquisitions)
	}
	if len(a.Fairness.PerClient) == a.Fairness.Clients {
		a.Fairness = measure.FairnessOf(a.Fairness.PerClient) // every count known: exact
	}
	if a.Server != nil && b.Server != nil {
		cost := *a.Server // not the input's
		mergeFields(reflect.ValueOf(&cost).Elem(), reflect.ValueOf(b.Server).Elem(), "Server.", w)
		cost.Relate(a.Acquisitions)
		a.Server = &cost
	} else {
		a.Server = nil // one cell without: the sum would be short
	}
	for i := range b.Series {
		if i == len(a.Series) {
			a.Series = append(a.Series, measure.Second{T: i})
		}
		t, s := &a.Series[i], &b.Series[i]
		if err := mergeSecond(t, s); err != nil {
			return fmt.Errorf("record: merge %s second %d: %w", a.Variant, i, err)
		}
		mergeFields(reflect.ValueOf(t).Elem(), reflect.ValueOf(s).Elem(), "Series.", w)
	}
	for _, h := range []struct {
		into *string
		from string
		lat  *measure.Latency
	}{
		{&a.Histograms.Acquire, b.Histograms.Acquire, &a.AcquireLatencyUS},
		{&a.Histograms.AcquireRaw, b.Histograms.AcquireRaw, &a.AcquireLatencyRawUS},
		{&a.Histograms.Release, b.Histograms.Release, &a.ReleaseLatencyUS},
		{&a.Histograms.Hold, b.Histograms.Hold, &a.HoldTimeUS},
		{&a.Histograms.Handoff, b.Histograms.Handoff, &a.HandoffLatencyUS},
	} {
		merged, err := mergeEncoded(*h.into, h.from)
		if err != nil {
			return fmt.Errorf("record: merge %s: %w", a.Variant, err)
		}
		encoded, err := metrics.EncodeHistogram(merged)
		if err != nil {
			return err
		}
		*h.into, *h.lat = encoded, metrics.Quantiles(merged)
	}
	mergeHistory(a, b, w)
	return mergeMargins(a, b, w)
}

// mergeSecond merges the acquire latencies of second s into t (its
// counts are mergeFields'). Their acquire histograms merge exactly and
// give the second's p50 and p99. A second with acquisitions but no
// histogram (a record from before they were kept) makes the merged one
// unknown: its histogram is dropped and its p50 and p99 are the larger of
// the two, an approximation.
func mergeSecond(t, s *measure.Second) error {
	known := func(s *measure.Second) bool { return s.AcquireHistogram != "" || s.Acquisitions == 0 }
	exact := known(t) && known(s)
	switch {
	case !exact:
		t.AcquireHistogram = ""
		t.AcquireP99US = max(t.AcquireP99US, s.AcquireP99US)
		t.AcquireP50US = max(t.AcquireP50US, s.AcquireP50US)
	case s.AcquireHistogram == "":
		// Nothing to add.
	case t.AcquireHistogram == "":
		t.AcquireHistogram, t.AcquireP50US, t.AcquireP99US = s.AcquireHistogram, s.AcquireP50US, s.AcquireP99US
	default:
		merged, err := mergeEncoded(t.AcquireHistogram, s.AcquireHistogram)
		if err != nil {
			return err
		}
		if t.AcquireHistogram, err = metrics.EncodeHistogram(merged); err != nil {
			return err
		}
		t.AcquireP50US = float64(merged.ValueAtQuantile(50))
		t.AcquireP99US = float64(merged.ValueAtQuantile(99))
	}
	return nil
}

func mergeEncoded(a, b string) (*hdrhistogram.Histogram, error) {
	ha, err := metrics.DecodeHistogram(a)
	if err != nil {
		return nil, err
	}
	hb, err := metrics.DecodeHistogram(b)
	if err != nil {
		return nil, err
	}
	ha.Merge(hb)
	return ha, nil
}
