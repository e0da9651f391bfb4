package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// costBench is a lua-release lock on a counted client of a topology, with
// snapshots around its cycles.
type costBench struct {
	topo    topologies.Topology
	library string
	conn    clients.Client
	counted *variants.Counted
	lock    variants.Lock
}

func newCostBench(t *testing.T, topo topologies.Topology, library string) *costBench {
	t.Helper()
	// Connected before the first snapshot, so that its own setup is not
	// between the snapshots.
	conn, err := clients.Dial(context.Background(), topo.Access(), clients.Options{Library: library})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	none, err := variants.ParseRetry("none")
	if err != nil {
		t.Fatal(err)
	}
	counted := variants.NewCounted(conn)
	lock, err := variants.New("lua-release", variants.Config{Conn: counted, Prefix: "lbtest:", Retry: none})
	if err != nil {
		t.Fatal(err)
	}
	return &costBench{topo: topo, library: library, conn: conn, counted: counted, lock: lock}
}

func (b *costBench) snapshot(t *testing.T) []metrics.ServerSnapshot {
	t.Helper()
	snaps, err := snapshotServers(context.Background(), b.topo.Access(), b.topo.Nodes(), b.library)
	if err != nil {
		t.Fatal(err)
	}
	return snaps
}

// cycles acquires and releases a lock cycles times, over keys locks in
// turn, and returns how many commands the client sent.
func (b *costBench) cycles(t *testing.T, cycles, keys int) int64 {
	t.Helper()
	ctx := context.Background()
	start := b.counted.Commands()
	for i := range cycles {
		lease, err := b.lock.Acquire(ctx, fmt.Sprintf("k%d", i%keys))
		if err != nil {
			t.Fatalf("cycle %d: acquire: %v", i, err)
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatalf("cycle %d: release: %v", i, err)
		}
	}
	return b.counted.Commands() - start
}

// usec is the microseconds the servers spent in the commands named, from
// their commandstats, on masters.
func usec(before, after []metrics.ServerSnapshot, names ...string) int64 {
	var total int64
	for _, a := range after {
		for _, b := range before {
			if a.Node != b.Node || a.Role != "master" {
				continue
			}
			for _, name := range names {
				total += a.Commands[name].UsecTotal - b.Commands[name].UsecTotal
			}
		}
	}
	return total
}

// clientSent is the commands a lua-release client sent, out of what Redis
// counted: its script's GET and DEL count too, and so do what replicas and
// sentinels send a master on their own clocks (REPLCONF ACK every second,
// sentinels' PING, INFO and hello PUBLISH), more of which fall between two
// snapshots the longer a loaded machine makes the cycles take.
func clientSent(cost metrics.ServerCost) int64 {
	n := cost.Commands - cost.ByCommand["get"] - cost.ByCommand["del"]
	for _, background := range []string{"replconf", "ping", "info", "publish"} {
		n -= cost.ByCommand[background]
	}
	return n
}

func within(got, want, tolerance int64) bool { return got >= want-tolerance && got <= want+tolerance }

// 100 uncontended lua-release cycles on one node cost Redis 200 commands
// sent by the client (a SET and an EVALSHA each, plus one EVAL after the
// first NOSCRIPT), as many as the client counted, and 200 more that the
// script runs (a GET and a DEL), which Redis counts as well.
func TestServerCostOfLuaRelease(t *testing.T) {
	const cycles = 100
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			b := newCostBench(t, topotest.Local(t), lib)
			idle := b.snapshot(t) // a pair of snapshots with nothing between: their own cost
			before := b.snapshot(t)
			overhead := metrics.Cost(idle, before)
			clientCommands := b.cycles(t, cycles, 1)
			after := b.snapshot(t)
			cost := metrics.Cost(before, after)

			if len(after) != 1 || after[0].Node != "master" || after[0].Role != "master" {
				t.Fatalf("snapshots %+v; want the one master", after)
			}
			sent := clientSent(cost)
			if !within(sent, 2*cycles, 2) || !within(cost.Commands, 4*cycles, 2) {
				t.Errorf("Redis ran %d commands, %d of them sent by the client (%v); want %d ± 2 and %d ± 2",
					cost.Commands, sent, cost.ByCommand, 4*cycles, 2*cycles)
			}
			if cost.ByCommand["set"] != cycles || !within(cost.ByCommand["evalsha"], cycles, 1) ||
				cost.ByCommand["get"] != cycles || cost.ByCommand["del"] != cycles {
				t.Errorf("by command %v; want set, get, del %d and evalsha about %d", cost.ByCommand, cycles, cycles)
			}
			if !within(sent, clientCommands, 2) {
				t.Errorf("Redis ran %d commands sent by the client, the client counted %d", sent, clientCommands)
			}
			if cost.CPUSeconds < 0 || math.IsNaN(cost.CPUSeconds) {
				t.Errorf("CPU seconds %v", cost.CPUSeconds)
			}
			if overhead.Commands != 0 {
				t.Errorf("two snapshots in a row cost %d commands (%v); want none but housekeeping", overhead.Commands, overhead.ByCommand)
			}
			t.Logf("%s: %d commands, %d sent (client counted %d), housekeeping %d, %v; Redis CPU %.1f µs per cycle "+
				"(a snapshot pair alone: %.0f µs), in-command time %.2f µs per cycle",
				lib, cost.Commands, sent, clientCommands, cost.Housekeeping, cost.ByCommand,
				cost.CPUSeconds*1e6/cycles, overhead.CPUSeconds*1e6, float64(usec(before, after, "set", "evalsha", "eval"))/cycles)
		})
	}
}

// On a cluster the commands add up across masters; on a replicated
// topology the replica's CPU time counts and its commands do not.
func TestServerCostAcrossNodes(t *testing.T) {
	t.Parallel() // exact counts on topologies of its own
	const cycles, keys = 50, 12
	for _, tc := range []struct {
		topology string
		nodes    []string // name/role, in snapshot order
		replicas bool
	}{
		{"local:cluster?masters=3", []string{"master-1/master", "master-2/master", "master-3/master"}, false},
		{"local:cluster?masters=3&replicas=1", []string{"master-1/master", "master-2/master", "master-3/master",
			"replica-1/replica", "replica-2/replica", "replica-3/replica"}, true},
		{"local:replicated?replicas=1", []string{"master/master", "replica-1/replica"}, true},
		{"local:sentinel?replicas=1&sentinels=3", []string{"master/master", "replica-1/replica"}, true},
	} {
		t.Run(tc.topology, func(t *testing.T) {
			topo := topotest.Start(t, tc.topology)
			for _, lib := range clients.Names {
				t.Run(lib, func(t *testing.T) {
					b := newCostBench(t, topo, lib)
					before := b.snapshot(t)
					clientCommands := b.cycles(t, cycles, keys)
					if tc.replicas { // the replica has applied every write
						if _, err := b.counted.Do(context.Background(), variants.Bare("WAIT", "1", "2000")); err != nil {
							t.Fatal(err)
						}
						clientCommands++
					}
					after := b.snapshot(t)
					cost := metrics.Cost(before, after)

					for _, snaps := range [][]metrics.ServerSnapshot{before, after} {
						var got []string
						for _, s := range snaps {
							got = append(got, s.Node+"/"+s.Role)
						}
						if !slices.Equal(got, tc.nodes) {
							t.Fatalf("snapshot of %v; want %v", got, tc.nodes)
						}
					}
					for _, name := range []string{"set", "evalsha", "get", "del"} {
						if cost.ByCommand[name] != cycles {
							t.Errorf("by command %v; want set, evalsha, get and del %d", cost.ByCommand, cycles)
							break
						}
					}
					if sent := clientSent(cost); !within(sent, clientCommands, 2) {
						t.Errorf("Redis ran %d commands sent by the client (%v), the client counted %d", sent, cost.ByCommand, clientCommands)
					}
					var masterCommands, busyMasters, replicaCommands int64
					var cpu float64
					for _, n := range cost.Nodes {
						cpu += n.CPUSeconds
						switch n.Role {
						case "master":
							masterCommands += n.Commands
							if n.Commands > 0 {
								busyMasters++
							}
						case "replica":
							replicaCommands += n.Commands
						}
					}
					if masterCommands != cost.Commands {
						t.Errorf("masters ran %d commands, the total is %d", masterCommands, cost.Commands)
					}
					if topo.Access().Mode == topologies.ModeCluster && busyMasters < 2 {
						t.Errorf("%d keys landed on %d master(s): %+v", keys, busyMasters, cost.Nodes)
					}
					if tc.replicas && replicaCommands == 0 {
						t.Errorf("the replica applied no commands: %+v", cost.Nodes)
					}
					if len(cost.Nodes) != len(tc.nodes) || math.Abs(cpu-cost.CPUSeconds) > 1e-9 || cost.CPUSeconds < 0 {
						t.Errorf("CPU %v s is not the sum over every node %+v", cost.CPUSeconds, cost.Nodes)
					}
					t.Logf("%s: %d commands (client %d) %v, replica applied %d; CPU %.1f µs per cycle over %d nodes %+v",
						lib, cost.Commands, clientCommands, cost.ByCommand, replicaCommands, cost.CPUSeconds*1e6/cycles, len(cost.Nodes), cost.Nodes)
				})
			}
		})
	}
}

// An external Sentinel topology lists only sentinels: the snapshots ask
// them for the data nodes — the master and its replica, for a failover
// may make either the master during a cell — and cover both, each with
// the role it reports.
func TestSnapshotSentinelNodes(t *testing.T) {
	t.Parallel() // roles compared, not timed: on a topology of its own
	topo := topotest.Start(t, "local:sentinel?replicas=1&sentinels=3")
	var sentinels []topologies.Node
	roleAt := map[string]string{}
	for _, n := range topo.Nodes() {
		if n.Role == topologies.RoleSentinel {
			sentinels = append(sentinels, n)
		} else {
			roleAt[n.Endpoint.Addr] = string(n.Role)
		}
	}
	for _, lib := range clients.Names {
		snaps, err := snapshotServers(context.Background(), topo.Access(), sentinels, lib)
		if err != nil {
			t.Fatalf("%s: %v", lib, err)
		}
		got := map[string]string{}
		for _, s := range snaps {
			if s.Commands == nil {
				t.Errorf("%s: snapshot of %s without commandstats", lib, s.Node)
			}
			got[s.Node] = s.Role // named by address: the sentinels do not know the names
		}
		if len(snaps) != 2 || !maps.Equal(got, roleAt) {
			t.Errorf("%s: snapshots of %v; want the master and the replica, %v", lib, got, roleAt)
		}
	}
}

// A node that does not answer fails the snapshot within the timeout, and
// the nodes that answer are still there.
func TestSnapshotUnansweringNode(t *testing.T) {
	// It waits on timeouts, bounded with 500 ms to spare: beside the other
	// parallel tests, on a server and listeners of its own.
	t.Parallel()
	topo := topotest.Local(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never replies
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		var held []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil { // closed at the end of the test
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	closedAddr := refusingAddr(t)
	nodes := append(topo.Nodes(),
		topologies.Node{Name: "silent", Role: topologies.RoleMaster, Endpoint: topologies.Endpoint{Addr: silent.Addr().String()}},
		topologies.Node{Name: "closed", Role: topologies.RoleReplica, Endpoint: topologies.Endpoint{Addr: closedAddr}},
		topologies.Node{Name: "sentinel-1", Role: topologies.RoleSentinel, Endpoint: topologies.Endpoint{Addr: closedAddr}},
	)
	for _, lib := range clients.Names {
		began := time.Now()
		snaps, err := snapshotServers(context.Background(), topo.Access(), nodes, lib)
		took := time.Since(began)
		if err == nil || !errors.Is(err, clients.ErrUnreachable) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: error %v; want the silent and closed nodes named", lib, err)
		}
		if took > snapshotTimeout+500*time.Millisecond {
			t.Errorf("%s: took %v; the bound is %v", lib, took, snapshotTimeout)
		}
		if len(snaps) != 1 || snaps[0].Node != "master" {
			t.Errorf("%s: snapshots %+v; want the master's", lib, snaps)
		}
		t.Logf("%s: %v after %v", lib, err, took.Round(time.Millisecond))
	}
}

// snapshotServers opens, takes and closes one set of snapshots.
func snapshotServers(ctx context.Context, access topologies.Access, nodes []topologies.Node, library string) ([]metrics.ServerSnapshot, error) {
	s, err := openSnapshots(ctx, access, nodes, library)
	defer s.close()
	if err != nil && len(s.nodes) == 0 {
		return nil, err
	}
	snaps, terr := s.take(ctx)
	return snaps, errors.Join(err, terr)
}

// refusingAddr is a loopback address that refuses connections for the
// whole test: a TCP socket bound to it and never listening, without
// SO_REUSEADDR, so that no other test's server or listener can take the
// port meanwhile. (A port picked by listening and closing again was
// taken by a redis-server of a parallel test in CI, which then answered
// as the "closed" node.)
func refusingAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
