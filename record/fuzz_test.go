package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/measure"
)

// FuzzParseThreshold checks that ParseThreshold either fails with a
// one-line ErrBadCheck or gives a known figure, a canonical operator and a
// number as the limit, which written back as METRIC OP NUMBER parses to
// the same threshold. Seeds: the README's --slo and scenario expectations,
// plus testdata/fuzz/FuzzParseThreshold/.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{
		"acquire.p99<5ms", "acquire.p99<50ms", "overlaps==0", "overlaps=0", "overlaps>0", "lost_updates=0",
		"stale_releases>0", "unavailable_ms<800", "throughput>=1000", "acquire.p50 <= 250us", "server.cpu_us!=1.5",
		"handoff.p99>1e3", "", "overlaps", "colour<5", "overlaps<five", "throughput<5ms", "overlaps==NaN", "acquire.max>=-Inf",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		th, err := ParseThreshold(text)
		if err != nil {
			if !errors.Is(err, ErrBadCheck) {
				t.Errorf("%q: error %v does not wrap ErrBadCheck", text, err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") {
				t.Errorf("%q: error message is not one line: %q", text, msg)
			}
			return
		}
		if th.Text != text {
			t.Errorf("%q: Text %q", text, th.Text)
		}
		if _, err := LookupFigure(th.metric); err != nil {
			t.Fatalf("%q: metric %q: %v", text, th.metric, err)
		}
		if !slices.Contains([]string{"<", "<=", ">", ">=", "==", "!="}, th.op) {
			t.Fatalf("%q: operator %q", text, th.op)
		}
		// A NaN limit is a check that never holds (or, with !=, always).
		if math.IsNaN(th.limit) {
			t.Fatalf("%q: limit is NaN", text)
		}
		if want := th.op == "<=" || th.op == ">=" || th.op == "=="; th.Meets(th.limit) != want {
			t.Errorf("%q: Meets(its own limit %v) = %v", text, th.limit, !want)
		}
		canonical := th.metric + th.op + strconv.FormatFloat(th.limit, 'g', -1, 64)
		again, err := ParseThreshold(canonical)
		if err != nil || again.metric != th.metric || again.op != th.op || again.limit != th.limit {
			t.Fatalf("%q: %q parses to %+v, %v; want %+v", text, canonical, again, err, th)
		}
	})
}

// fuzzRecord is a small record as a run writes it.
func fuzzRecord(f *testing.F) []byte {
	started := time.Date(2026, 11, 30, 11, 41, 16, 0, time.UTC)
	rec := Record{
		Schema: SchemaVersion, Tool: "lockbench", RunID: "20261130T114116-20dca4",
		Started: started, Finished: started.Add(4 * time.Second),
		Host: Host{Hostname: "ci", OS: "linux", Arch: "amd64", CPUs: 2, GoVersion: "go1.26.8"},
		Config: RunConfig{
			Variants: []string{"lua-release"}, Clients: []int{8},
			Workload: Workload{Keys: 1, Hold: "exp:2ms", Think: "0s", Duration: 3 * time.Second, Warmup: 500 * time.Millisecond},
			TTL:      10 * time.Second, AcquireTimeout: 10 * time.Second, Limit: 1, Repeat: 1, Fence: FenceCount,
			Faults: []measure.FaultSpec{{At: time.Second, Kind: "holder-pause", For: 500 * time.Millisecond}},
		},
		Topology: TopologyInfo{Name: "local", Mode: "single", StartupS: 0.01},
		Cells: []Cell{{
			Variant: "lua-release", Client: "rueidis", Topology: "local", Clients: 8, Keys: 1, Repetition: 1, Limit: 1,
			ElapsedS: 3, Acquisitions: 3000, ThroughputPerS: 1000,
			AcquireLatencyUS: measure.Latency{P50: 120, P90: 300, P99: 900, P999: 1500, Max: 2000},
			Attempts:         3100, FailedAttempts: 100, Commands: 9000, CommandsPerAcquisition: 3,
			Counters:   map[string]int64{"unacked": 0},
			Violations: Violations{CriticalSections: 3000, MaxOccupancy: 1, LongestUnavailableMS: 2.5},
			Series:     []measure.Second{{}},
		}},
	}
	data, err := json.Marshal(rec)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzDecode checks that Decode either fails with a one-line ErrBadRecord
// or gives a lockbench record of this schema (a schema-2 record
// migrated) that encodes to JSON which decodes again to the same JSON.
// Seeds: a small real record, cut short, of another schema and tool,
// empty and not JSON, schema 2 with a sweep, plus testdata/fuzz/FuzzDecode/.
func FuzzDecode(f *testing.F) {
	valid := fuzzRecord(f)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte{})
	f.Add([]byte("not json"))
	f.Add([]byte(`{"schema":1,"tool":"lockbench"}`))
	f.Add([]byte(`{"schema":2,"tool":"vegeta"}`))
	f.Add([]byte(`{"schema":2,"tool":"lockbench","colour":"red"}`))
	f.Add([]byte(`{"schema":2,"tool":"lockbench","config":{"workload":{"hold":"uniform:5ms-1ms"}}}`))
	f.Add([]byte(`{"schema":2,"tool":"lockbench","config":{"workload":{"stages":["10s:1000"],"clocks":{"skew":"+200ms","jumps":["+2s@5s"]}},"retry":"exp:1ms-50ms"}}`))
	f.Add([]byte(`{"schema":2,"tool":"lockbench","sweep":{"by":"clients","variants":[{"variant":"fenced","shards":{"per_shard":1e4,"shards":2}}]},"cells":[{"variant":"fenced"}]}`))
	f.Add([]byte(`{"schema":2,"tool":"lockbench","sweep":{"variants":[{"shards":{},"nodes":{}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const where = "fuzz.json"
		rec, err := Decode(where, data)
		if err != nil {
			if rec != nil {
				t.Errorf("error %v with a record", err)
			}
			if !errors.Is(err, ErrBadRecord) {
				t.Errorf("error %v does not wrap ErrBadRecord", err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, where+": ") {
				t.Errorf("error message is not one line starting with where it read: %q", msg)
			}
			return
		}
		if rec.Tool != "lockbench" || rec.Schema != SchemaVersion {
			t.Fatalf("decoded tool %q schema %d", rec.Tool, rec.Schema)
		}
		encoded, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		again, err := Decode(where, encoded)
		if err != nil {
			t.Fatalf("a re-encoded record does not decode: %v\n%s", err, encoded)
		}
		encodedAgain, err := json.Marshal(again)
		if err != nil || !bytes.Equal(encoded, encodedAgain) {
			t.Fatalf("a record changes when encoded and decoded (%v):\n%s\nthen\n%s", err, encoded, encodedAgain)
		}
	})
}
