package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/workloads"
)

// clientCost is the memory one simulated client takes, in KiB, with each
// client library.
type clientCost struct{ rueidis, goRedis int64 }

func (c clientCost) of(library string) int64 {
	if library == "go-redis" {
		return c.goRedis
	}
	return c.rueidis
}

// The memory a client costs, from the peak RSS (VmHWM) of a run of one
// cell of 10,000 clients (--duration 3s, on local; redlock on
// local:redlock, 5 nodes) less that of one client, per variant and
// library, rounded up. Measured on lockbench's own
// machine: most variants take 7-18 KiB a client on rueidis and 27-41 on
// go-redis; notify and wait-replicas 52 on rueidis; rueidislock, which
// opens a client library of its own per client, 392; redlock 6 (rueidis)
// and 24 (go-redis) per node a client. The figures below keep about twice
// that as a margin. (A peak of 394 MiB once seen under make test was the
// test binary's own: wait4's Maxrss of a child is never below its
// parent's peak on Linux; VmHWM read while the run runs, with the suites
// beside it, stays at 200-234 MiB.) Since rueidis' rings hold a
// command of every client (clients.Options.Callers: 2^14 slots of about
// 344 bytes on each pipelining connection at 10,000 clients, about 11 MB
// on 2 cores, twice that from 4) and go-redis' ordinary commands share
// 256 connections a node, lua-release at 10,000 clients for 10 s (1,000
// keys, 9 runs on the loaded 2 cores) peaked at 189-217 MiB on rueidis
// and 236-259 MiB on go-redis, 16-19 and 21-23 KiB a client over one
// client's 34-35 MiB: inside the figures below.
var (
	ordinaryCost  = clientCost{rueidis: 40, goRedis: 64}
	variantCosts  = map[string]clientCost{"notify": {72, 64}, "wait-replicas": {72, 56}, "rueidislock": {512, 512}}
	redlockCost   = clientCost{rueidis: 8, goRedis: 32} // per node
	baseMemoryKiB = int64(64 << 10)                     // the process, the topology's clients, the oracle
)

// estimateKiB is the memory the largest cell of p takes (shard's share of
// it, for a shard), in KiB, and its variant and clients.
func estimateKiB(p plan.Plan, shard *workloads.Shard) (kib int64, variant string, clients int) {
	for _, v := range p.Variants {
		perClient := ordinaryCost.of(p.Client)
		if c, ok := variantCosts[v]; ok {
			perClient = c.of(p.Client)
		}
		if v == "redlock" {
			perClient = redlockCost.of(p.Client) * int64(max(redlockNodes(p), 1))
		}
		for _, n := range p.Clients {
			if shard != nil {
				n = shard.Clients(n)
			}
			if est := int64(n) * perClient; est > kib {
				kib, variant, clients = est, v, n
			}
		}
	}
	return baseMemoryKiB + kib, variant, clients
}

// redlockNodes is how many servers redlock takes a lock on in p's
// topology.
func redlockNodes(p plan.Plan) int {
	if n := len(p.Topology.Targets); n > 0 {
		return n
	}
	if kind, params, err := p.Topology.LocalParams(); err == nil && kind == "redlock" {
		return params["nodes"]
	}
	return 1
}

// checkMemory refuses, before anything is allocated, a plan whose
// clients would take more memory than the machine has available
// (MemAvailable of /proc/meminfo; where there is none, nothing is
// checked).
func checkMemory(p plan.Plan, shard *workloads.Shard) error {
	available, ok := availableKiB()
	if !ok {
		return nil
	}
	need, variant, clients := estimateKiB(p, shard)
	if need <= available {
		return nil
	}
	return usagef("--clients: %d clients of %s on %s would take about %s of memory (estimated), more than the %s this machine has available (MemAvailable); give fewer clients, or spread them over machines with --shard i/N",
		clients, variant, p.Client, kibString(need), kibString(available))
}

// availableKiB reads MemAvailable from /proc/meminfo.
func availableKiB() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			n, err := strconv.ParseInt(fields[1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// kibString shows an amount of KiB in MiB, GiB or TiB.
func kibString(kib int64) string {
	switch {
	case kib >= 1<<30:
		return fmt.Sprintf("%.1f TiB", float64(kib)/(1<<30))
	case kib >= 1<<20:
		return fmt.Sprintf("%.1f GiB", float64(kib)/(1<<20))
	default:
		return fmt.Sprintf("%.0f MiB", float64(kib)/(1<<10))
	}
}
