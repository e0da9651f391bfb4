package runner

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// fullPlan is a plan with every field the record echoes set.
func fullPlan(t *testing.T) plan.Plan {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	hold, err := workloads.ParseDistribution("exp:2ms")
	must(err)
	think, err := workloads.ParseDistribution("uniform:1ms-5ms")
	must(err)
	skew, err := workloads.ParseSkew("uniform:-500ms..500ms")
	must(err)
	jump, err := workloads.ParseJump("+2s@5s")
	must(err)
	stages, err := workloads.ParseStages("10s:1000,5s:2000")
	must(err)
	retry, err := variants.ParseRetry("exp:1ms-50ms")
	must(err)
	keyDist, err := workloads.ParseKeyDist("zipf:1.2")
	must(err)
	fault, err := faults.Parse("at=0s step-delay step=between-get-and-del delay=300ms fraction=0.5 count=2")
	must(err)
	latency, err := faults.Parse("at=1s latency node=master latency=20ms jitter=5ms for=2s")
	must(err)
	clock, err := faults.Parse("at=1s clock node=master jump=-10s")
	must(err)
	split, err := faults.Parse("at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s")
	must(err)
	return plan.Plan{
		Variants: []string{"fenced", "lua-release"}, Clients: []int{4, 8}, Client: "go-redis", Servers: []string{"redis", "valkey"},
		Topology: topologies.Spec{Name: "target", Targets: []string{"redis://bench:secret@127.0.0.1:7000/1"}, Cluster: []string{"127.0.0.1:7001"},
			Sentinels: []string{"127.0.0.1:26379"}, MasterName: "mymaster", TLSCA: "ca.pem", TLSInsecure: true, Password: "hidden"},
		Workload: workloads.Spec{Clients: 3, Keys: 4, KeyPerClient: true, KeyDist: keyDist, Hold: hold, Think: think, Duration: 2 * time.Second, Ops: 500,
			Warmup: 500 * time.Millisecond, Clocks: workloads.Clocks{Skew: skew, Jumps: []workloads.Jump{jump}}, Rate: 1200, Arrivals: "poisson", Pacing: workloads.PacingSpin,
			Stages: stages},
		TTL: 10 * time.Second, AcquireTimeout: 5 * time.Second, Retry: retry, Limit: 3,
		Faults: []faults.Fault{fault, latency, clock, split}, ClientGroups: []string{"a", "b"}, Scenario: "ticket-sale", Repeat: 2, Fence: plan.FenceReject, WaitStrict: true, AllowDestructive: true,
		Drivers: []driver.Manifest{{Name: "go-lua", Library: "lockbench lua-release", Language: "go", Command: []string{"./go-lua"},
			Requires: "make drivers", Summary: "the reference driver", Dir: "/drivers/go-lua"}},
		DriverProcs: 4, InterruptRelease: true,
	}
}

// unset lists the fields of v that the JSON encoding writes and that hold
// their zero value; a value that encodes as text is one field.
func unset(v reflect.Value, path string) []string {
	if _, text := v.Interface().(encoding.TextMarshaler); text || v.Kind() != reflect.Struct {
		if v.IsZero() {
			return []string{path}
		}
		return nil
	}
	var zero []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Tag.Get("json") == "-" || !f.IsExported() {
			continue
		}
		zero = append(zero, unset(v.Field(i), path+"."+f.Name)...)
	}
	return zero
}

// The record's config is the plan's JSON, field for field, passwords
// masked; and the plan's JSON decodes as a config (old records do).
func TestConfigOfEchoesThePlan(t *testing.T) {
	full := fullPlan(t)
	if zero := unset(reflect.ValueOf(full), "Plan"); len(zero) > 0 {
		t.Fatalf("the test's plan leaves %v unset: set them, and echo them in record.RunConfig (configOf)", zero)
	}
	for name, p := range map[string]plan.Plan{"full": full, "empty": {}, "defaults": (plan.Plan{}).WithDefaults()} {
		redacted := p
		redacted.Topology = p.Topology.Redacted()
		want, err := json.Marshal(redacted)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(configOf(p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the record's config\n%s\nis not the plan's JSON\n%s", name, got, want)
		}
		dec := json.NewDecoder(bytes.NewReader(want))
		dec.DisallowUnknownFields()
		var c record.RunConfig
		if err := dec.Decode(&c); err != nil || !reflect.DeepEqual(c, configOf(p)) {
			t.Errorf("%s: the plan's JSON decodes as config %+v (%v), want %+v", name, c, err, configOf(p))
		}
	}
	if got, _ := json.Marshal(configOf(full)); bytes.Contains(got, []byte("secret")) || bytes.Contains(got, []byte("hidden")) {
		t.Errorf("the record's config has a password: %s", got)
	}
}

// The notes show a fault as the faults package writes it.
func TestConfigFaultsReadAsFaults(t *testing.T) {
	specs := []string{"at=5s pause node=master for=3s", "at=2s kill node=node-1", "at=2s restart node=node-2 delay=1s",
		"at=1s latency node=master latency=20ms jitter=5ms for=2s", "at=1s holder-crash", "at=1s holder-pause for=2s",
		"at=0s step-delay step=between-get-and-del delay=300ms fraction=0.5", "at=0s step-crash step=after-setnx count=1",
		"at=1s clock node=node-3 jump=+30s", "at=1s clock node=master jump=-10s",
		"at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s",
		"at=1s reset node=master fraction=0.3 for=1s", "at=1s reset sides=master|replicas"}
	var p plan.Plan
	for _, spec := range specs {
		f, err := faults.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		p.Faults = append(p.Faults, f)
	}
	for i, f := range configOf(p).Faults {
		if f.String() != p.Faults[i].String() {
			t.Errorf("%q: the record writes %q, the faults package %q", specs[i], f.String(), p.Faults[i].String())
		}
	}
	notes := strings.Join(render.Notes(&record.Record{Config: configOf(p)}), "\n")
	if !strings.Contains(notes, "fault at=5s pause node=master for=3s") {
		t.Errorf("notes do not name the faults:\n%s", notes)
	}
}

// The record says which variants hand out fencing tokens, from the
// registry, and what the servers' counters say a cell cost.
func TestRecordFromTheRun(t *testing.T) {
	if !fencing("fenced") || fencing("lua-release") || fencing("no-such-variant") {
		t.Errorf("fencing: fenced %v, lua-release %v, unknown %v; want true, false, false", fencing("fenced"), fencing("lua-release"), fencing("no-such-variant"))
	}
	cost := newServerCost(metrics.ServerCost{Commands: 3000, ByCommand: map[string]int64{"evalsha": 1000, "set": 2000}, CPUSeconds: 0.1,
		Nodes: []measure.NodeCost{{Node: "master", Role: "master", Commands: 3000, CPUSeconds: 0.1}}}, 1000)
	if cost.CommandsPerAcquisition != 3 || cost.ScriptRuns != 1000 || cost.CPUMicrosPerAcquisition != 100 || cost.AcquisitionsPerCore != 10000 ||
		len(cost.Nodes) != 1 || cost.Nodes[0].Commands != 3000 {
		t.Errorf("server cost %+v; want 3 commands, 100 µs per acquisition, 1000 script runs, 10000 acq/s per core, the node's cost", cost)
	}
}
