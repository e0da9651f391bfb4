package record

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// SchemaVersion is the version of the record format written here. Decode
// reads it, and migrates records of the versions before it that it still
// knows (see readable); it refuses any other.
const SchemaVersion = 3

// Record is everything one run measured, with the configuration that
// produced it. Its types are this package's own: a record is read,
// merged, compared and rendered without the packages that ran it.
type Record struct {
	Schema      int       `json:"schema"`
	Tool        string    `json:"tool"`
	RunID       string    `json:"run_id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Interrupted bool      `json:"interrupted"`
	// Failure says why a run that measured something failed: the Redis
	// under test stopped answering. The figures up to then stand; the
	// cells after it count errors.
	Failure  string       `json:"failure,omitempty"`
	Host     Host         `json:"host"`
	Config   RunConfig    `json:"config"`
	Topology TopologyInfo `json:"topology"`
	Cells    []Cell       `json:"cells"`
	// Sweep is set on the records of lockbench sweep.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Shard is set on the record of one shard of a sharded run (--shard):
	// its cells' Clients are the shard's own, Config keeps the whole
	// run's. A merged record has none.
	Shard *ShardInfo `json:"shard,omitempty"`
	// MissingShards are the shards (by index, from 1) a merge of a sharded
	// run lacked: its figures cover only the others.
	MissingShards []int `json:"missing_shards,omitempty"`
	// ShardCount is, on a merged record of a sharded run, how many shards
	// the run had.
	ShardCount int `json:"shard_count,omitempty"`
}

// ShardInfo says which shard of a sharded run (--shard i/N) a record is:
// Index from 1 to Count.
type ShardInfo struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String returns the shard as i/N.
func (s ShardInfo) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Host describes the machine that ran the load.
type Host struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
}

// ThisHost describes the running machine.
func ThisHost() Host {
	name, _ := os.Hostname()
	return Host{Hostname: name, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}

// TopologyInfo says what Redis the run measured.
type TopologyInfo struct {
	// Name is the topology's canonical name, e.g. local:cluster?masters=3&replicas=0.
	Name string `json:"name"`
	// Mode is single, cluster or independent.
	Mode string `json:"mode"`
	// Nodes are every node with its role and address (no passwords).
	Nodes []Node `json:"nodes"`
	// Representative is false for the embedded miniredis, whose figures say
	// nothing of a real server.
	Representative bool `json:"representative"`
	// ServerVersion names the servers the run measured, each as its
	// product and version ("redis 7.0.15", "valkey 8.0.1"), comma
	// separated; records before lockbench read the product, Redis'
	// version alone ("7.0.15").
	ServerVersion string `json:"server_version,omitempty"`
	// StartupS is how long the topology took to start and answer.
	StartupS float64 `json:"startup_s"`
	// CPUBudget is the share of a core each data node was held to (a
	// local topology's cpu parameter, --node-cpu); nil for none.
	CPUBudget *CPUBudget `json:"cpu_budget,omitempty"`
}

// CPUBudget is the share of one core each data node was held to, and how.
type CPUBudget struct {
	// Share is the budget, in (0, 1] of a core.
	Share float64 `json:"share_of_core"`
	// Mechanism is how it was held: "cgroup v2 cpu.max" or "cgroup v1
	// cpu.cfs_quota_us".
	Mechanism string `json:"mechanism"`
}

// Node is one process of the topology.
type Node struct {
	// Name identifies the node for faults: master, replica-1, sentinel-1,
	// master-2, node-3.
	Name string `json:"name"`
	// Role is master, replica or sentinel.
	Role     string   `json:"role"`
	Endpoint Endpoint `json:"endpoint"`
	// Product is the node's server and version from its INFO server
	// ("valkey 8.0.1", "redis 7.0.15"); "" when it did not say. A run on
	// several servers (--servers) lists the nodes of each.
	Product string `json:"product,omitempty"`
}

// Endpoint is where a node listens, without its password.
type Endpoint struct {
	Addr     string `json:"addr"`
	Username string `json:"username,omitempty"`
	DB       int    `json:"db,omitempty"`
}
