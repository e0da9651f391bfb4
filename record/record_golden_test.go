package record_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

var update = flag.Bool("update", false, "rewrite the golden file in testdata")

// goldenFullRecord is a record of fixed values with every field set, even
// fields no one record sets together (a shard and a merge's missing
// shards): the golden file then pins the JSON name and encoding of each.
func goldenFullRecord() *record.Record {
	started := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	latency := func(base float64) measure.Latency {
		return measure.Latency{P50: base, P90: 2 * base, P99: 4 * base, P999: 8 * base, Max: 16 * base, Mean: 1.5 * base}
	}
	cell := record.Cell{
		Variant: "fenced", Client: "rueidis", Topology: "local:replicated?replicas=2", Product: "valkey 8.0.1", Clients: 8, Keys: 4, Repetition: 2, Limit: 1,
		ClockOffsetsMS: []float64{-12.5, 30}, Interrupted: true, Error: "cut short", Settings: "library defaults: expiry 8s", Fencing: true,
		Driver: &record.Driver{Name: "go-lua", Command: []string{"./go-lua"}, Library: "lockbench lua-release", Version: "lockbench 3e2abef0c1d2, rueidis v1.0.64",
			Language: "go 1.26.8", Procs: 4, TTL: 10 * time.Second, LibraryAcquireUS: latency(40), CPUSeconds: 0.75,
			Unanswered: []record.UnansweredRequests{{Process: 2, PID: 4242, Requests: 3, ByOp: map[string]int{"acquire": 2, "release": 1}, Answered: 17}}},
		ElapsedS: 2.5, Acquisitions: 2500, ThroughputPerS: 1000, ClientCPUSeconds: 0.5,
		AcquireLatencyUS: latency(100), AcquireLatencyRawUS: latency(90), ReleaseLatencyUS: latency(50), HoldTimeUS: latency(1000),
		HandoffLatencyUS: latency(200), OfferedPerS: 1200, Dropped: 7, LatenessUS: latency(10),
		Attempts: 3000, FailedAttempts: 500, Timeouts: 3, Errors: 2, Commands: 7500, CommandsPerAcquisition: 3,
		ErrorsByKind: map[string]measure.ErrorCount{"OOM": {Count: 1, Sample: "OOM command not allowed when used memory > 'maxmemory'."},
			"timeout": {Count: 1, Sample: "i/o timeout"}},
		Counters: map[string]int64{"unacked": 4},
		Server: &record.ServerCost{Commands: 7400, ByCommand: map[string]int64{"evalsha": 2500, "set": 4900}, Housekeeping: 12, CPUSeconds: 0.25,
			Nodes:                  []measure.NodeCost{{Node: "master", Role: "master", Commands: 7400, CPUSeconds: 0.2}},
			CommandsPerAcquisition: 2.96, ScriptRuns: 2500, CPUMicrosPerAcquisition: 100, AcquisitionsPerCore: 10000},
		ServerNote: "replica-1 restarted at 1.2s: counted from its restart",
		Fairness:   measure.Fairness{Clients: 2, MinPerClient: 1200, MaxPerClient: 1300, Jain: 0.99, PerClient: []int64{1200, 1300}},
		Violations: record.Violations{Overlaps: 1, MaxOccupancy: 2, TimeOverLimitMS: 0.5, LostUpdates: 1, CriticalSections: 2499,
			LeaseLost: 3, Abandoned: 2, StaleReleases: 1, StaleWrites: 4, RejectedWrites: 5, LongestUnavailableMS: 250, Crashed: 1},
		Witness: &record.WitnessInfo{Done: 2, Absent: []int{3}, Failures: 1, FirstFailure: "i/o timeout"},
		Warmup:  record.Warmup{Acquisitions: 400, Errors: 1, Timeouts: 1},
		Series: []measure.Second{{T: 1, Acquisitions: 1000, FailedAttempts: 200, Errors: 1, Timeouts: 1, Dropped: 3,
			AcquireP50US: 100, AcquireP99US: 400, AcquireHistogram: "second-histogram", Overlaps: 1, Holders: 1}},
		Faults: []measure.FaultEvent{{AtS: 1.25, Fault: "at=1s pause node=master for=500ms", Action: "pause", Node: "master", DurationS: 0.5, Error: "no such node"}},
		Margins: &record.Margins{TTLMS: 10000, ValidityLeftUS: latency(9000), ExpiredAtAcquire: 1, Holds: 2499, LateHolds: 2,
			LateUS: latency(300), Notices: 3, LateNotices: 1, LossNoticeUS: latency(20)},
		History: &record.HistoryInfo{Events: 20000, Dropped: 8, Cut: true, Path: "histories/fenced-c8.jsonl", Error: "disk full",
			Check: &record.HistoryCheck{Verdict: "not linearizable", Error: "timed out", View: "critical-sections",
				FailingKeys: []string{"lock:0"}, FailingSegments: 1, ElapsedMS: 12.5,
				Window: &record.HistoryWindow{Key: "lock:0", Leases: []int{4, 9}, Processes: []int{1, 2}, FromNS: 1000, ToNS: 5000,
					Ops: []string{"p0 enter lock:0 #6-7 ok"}}}},
		Histograms: record.Histograms{Acquire: "acquire-histogram", AcquireRaw: "acquire-raw-histogram", Release: "release-histogram",
			Hold: "hold-histogram", Handoff: "handoff-histogram", ValidityLeft: "validity-left-histogram", Late: "late-histogram",
			LossNotice: "loss-notice-histogram"},
	}
	return &record.Record{
		Schema: record.SchemaVersion, Tool: "lockbench", RunID: "20261130T120000-golden",
		Started: started, Finished: started.Add(time.Minute), Interrupted: true, Failure: "the Redis under test stopped answering",
		Host: record.Host{Hostname: "ci", OS: "linux", Arch: "amd64", CPUs: 2, GoVersion: "go1.26.8"},
		Config: record.RunConfig{
			Variants: []string{"fenced"}, Clients: []int{8}, Client: "rueidis",
			Topology: record.TopologySpec{Name: "local:replicated?replicas=2", Targets: []string{"redis://:xxxxx@127.0.0.1:7000"},
				Cluster: []string{"127.0.0.1:7001"}, Sentinels: []string{"127.0.0.1:26379"}, MasterName: "mymaster", TLSCA: "ca.pem", TLSInsecure: true},
			Workload: record.Workload{Clients: 8, Keys: 4, KeyPerClient: true, KeyDist: "zipf:1.2", Hold: "exp:2ms", Think: "uniform:1ms-5ms",
				Duration: 2 * time.Second, Ops: 5000, Warmup: 500 * time.Millisecond,
				Clocks: record.Clocks{Skew: "uniform:-500ms..500ms", Jumps: []string{"+2s@5s"}},
				Rate:   1200, Arrivals: "poisson", Pacing: "spin", Stages: []string{"10s:1000"}},
			TTL: 10 * time.Second, AcquireTimeout: 5 * time.Second, Retry: "exp:1ms-50ms", Limit: 1,
			Faults: []measure.FaultSpec{{At: time.Second, Kind: "step-delay", Node: "master", For: 500 * time.Millisecond, Delay: 300 * time.Millisecond,
				Step: "after-setnx", Fraction: 0.5, Count: 2, Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Jump: 30 * time.Second, Sides: "master|replicas"}},
			ClientGroups: []string{"a", "b"}, Scenario: "ticket-sale", Repeat: 2, Fence: record.FenceReject, WaitStrict: true, AllowDestructive: true,
			Drivers: []record.DriverSpec{{Name: "go-lua", Library: "lockbench lua-release", Language: "go", Command: []string{"./go-lua"},
				Requires: "make drivers", Summary: "the reference driver"}},
			DriverProcs: 4, InterruptRelease: true, Servers: []string{"valkey"},
		},
		Topology: record.TopologyInfo{Name: "local:replicated?replicas=2&cpu=0.15", Mode: "single",
			Nodes:          []record.Node{{Name: "master", Role: "master", Endpoint: record.Endpoint{Addr: "127.0.0.1:7000", Username: "bench", DB: 1}, Product: "valkey 8.0.1"}},
			Representative: true, ServerVersion: "valkey 8.0.1", StartupS: 0.04, CPUBudget: &record.CPUBudget{Share: 0.15, Mechanism: "cgroup v1 cpu.cfs_quota_us"}},
		Cells: []record.Cell{cell},
		Sweep: &record.Sweep{By: "clients", SLO: []string{"acquire.p99<5ms"}, MinGain: 0.05, TargetRate: 200000, MaxUtilization: 0.7,
			Variants: []record.SweepVariant{{Variant: "fenced", Stop: "the last step ran", Best: 0, Knee: 0,
				Points: []record.SweepPoint{{Clients: 8, OfferedPerS: 1200, ThroughputPerS: 1000, AcquireP99US: 400, CPUMicrosPerAcquisition: 100,
					Failed: []string{"acquire.p99<100us (got 400µs)"}, Error: "timeout", Masters: 2, BusiestShare: 0.6, MasterCores: 0.14}},
				Masters:  2,
				USL:      &record.USL{Lambda: 1000, Sigma: 0.05, Kappa: 0.001, R2: 0.99, Points: 4},
				FitError: "too few points",
				Nodes: &record.NodePlan{TargetRate: 200000, CPUMicrosPerAcq: 100, MaxUtilization: 0.7, PerNode: 7000, Nodes: 35, Skew: 1.2,
					Assumption: "Assumes one core per node."},
				NodesError: "no step met the SLO"}},
			Nodes: []int{1, 2},
			ScaleOut: []record.ScaleOut{{Variant: "fenced", NodeShare: 0.15, Budgeted: true, PerNode: 1500, CPUMicrosPerAcq: 100,
				Rows: []record.ScaleOutRow{{Nodes: 2, Clients: 8, ThroughputPerS: 1000, CPUMicrosPerAcq: 110, BusiestShare: 0.6, MasterCores: 0.14, Efficiency: 0.9, PredictedPerS: 2500, Ratio: 0.4,
					MatchedCPUMicrosPerAcq: 120, MatchedPredictedPerS: 2000, MatchedRatio: 0.5}},
				Note: "no prediction"}}},
		Shard:         &record.ShardInfo{Index: 1, Count: 3},
		MissingShards: []int{2},
		ShardCount:    3,
	}
}

// zeroFields lists the fields of v that hold their zero value (Best and
// Knee, indexes, may be 0), recursing into structs, pointers and slices.
func zeroFields(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return []string{path}
		}
		return zeroFields(v.Elem(), path)
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{path}
		}
		return zeroFields(v.Index(0), path+"[0]")
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			break
		}
		var zero []string
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if name != "Best" && name != "Knee" {
				zero = append(zero, zeroFields(v.Field(i), path+"."+name)...)
			}
		}
		return zero
	}
	if v.IsZero() {
		return []string{path}
	}
	return nil
}

// TestRecordGolden pins the JSON encoding of a record, every field set;
// go test ./record -run TestRecordGolden -update rewrites
// testdata/record.golden.json. A change of it is a change of the schema:
// raise SchemaVersion and migrate the version before (migrate.go).
func TestRecordGolden(t *testing.T) {
	rec := goldenFullRecord()
	if zero := zeroFields(reflect.ValueOf(rec).Elem(), "Record"); len(zero) > 0 {
		t.Fatalf("the golden record leaves fields unset, so the golden file would not pin them: %v", zero)
	}
	var buf bytes.Buffer
	if err := render.Render(&buf, rec, "json"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "record.golden.json")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./record -run TestRecordGolden -update to create it)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("the record's JSON changed; if intended, raise SchemaVersion (and migrate) or run go test ./record -run TestRecordGolden -update.\ngot:\n%s\nwant:\n%s", buf.String(), want)
	}
	// The golden file decodes to the record it came from.
	got, err := record.Decode(path, want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		gotJSON, _ := json.Marshal(got)
		t.Errorf("the golden file decodes to another record:\n%s", gotJSON)
	}
}
