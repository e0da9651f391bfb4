package faultsuite_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/topologies"
)

// timeline watches the data nodes of a topology from the test, apart from
// the runner: every 50 ms it reads each node's role and lock command
// counts (INFO replication and commandstats), so that a test can tell
// which node served the commands when, whatever the record says.
type timeline struct {
	stop  context.CancelFunc
	done  sync.WaitGroup
	mu    sync.Mutex
	polls map[string][]nodePoll // by node name, in time order
}

// nodePoll is one reading of one node.
type nodePoll struct {
	at       time.Time
	role     string           // master or slave
	commands map[string]int64 // calls, by command name
}

// lockCommands are the commands a lock sends, as commandstats names them.
var lockCommands = []string{"set", "get", "del", "evalsha", "eval", "wait", "blpop", "lpush", "pexpire"}

// watchTimeline starts a timeline of topo's masters and replicas; it
// stops when the test ends or at stopTimeline.
func watchTimeline(t *testing.T, topo topologies.Topology) *timeline {
	ctx, cancel := context.WithCancel(context.Background())
	tl := &timeline{stop: cancel, polls: map[string][]nodePoll{}}
	for _, n := range topo.Nodes() {
		if n.Role == topologies.RoleSentinel {
			continue
		}
		tl.done.Go(func() {
			conn, err := topologies.DialNode(ctx, n.Endpoint)
			if err != nil {
				t.Errorf("timeline: %v", err)
				return
			}
			defer conn.Close()
			ticker := time.NewTicker(50 * time.Millisecond)
			defer ticker.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-ticker.C:
				}
				pctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				info, err := conn.Info(pctx, "replication", "commandstats")
				cancel()
				if err != nil {
					continue // killed, paused, or slow: the next poll
				}
				p := nodePoll{at: time.Now(), commands: map[string]int64{}}
				p.role, _ = info.Field("replication", "role")
				for _, name := range lockCommands {
					if stat, err := info.Field("commandstats", "cmdstat_"+name); err == nil {
						calls, _, _ := strings.Cut(strings.TrimPrefix(stat, "calls="), ",")
						p.commands[name], _ = strconv.ParseInt(calls, 10, 64)
					}
				}
				tl.mu.Lock()
				tl.polls[n.Name] = append(tl.polls[n.Name], p)
				tl.mu.Unlock()
			}
		})
	}
	t.Cleanup(tl.close)
	return tl
}

func (tl *timeline) close() {
	tl.stop()
	tl.done.Wait()
}

// promoted is when node was first seen a master after it had been seen a
// replica; zero when never.
func (tl *timeline) promoted(node string) time.Time {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	wasReplica := false
	for _, p := range tl.polls[node] {
		switch {
		case p.role == "slave":
			wasReplica = true
		case p.role == "master" && wasReplica:
			return p.at
		}
	}
	return time.Time{}
}

// servedFrom is how many of the commands named (every lock command when
// none) node ran as a master from the first reading at or after from: the
// growth of its counts over the readings from then on while it reported
// itself a master, up to its last one (a node killed stops there).
func (tl *timeline) servedFrom(node string, from time.Time, names ...string) int64 {
	if len(names) == 0 {
		names = lockCommands
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var served int64
	var prev *nodePoll
	for i, p := range tl.polls[node] {
		if p.at.Before(from) {
			continue
		}
		if prev != nil && prev.role == "master" && p.role == "master" {
			for _, name := range names {
				served += max(p.commands[name]-prev.commands[name], 0)
			}
		}
		prev = &tl.polls[node][i]
	}
	return served
}

// served is when node, after from, was first seen to have run a lock
// command; zero when never.
func (tl *timeline) served(node string, from time.Time) time.Time {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	polls := tl.polls[node]
	for i := 1; i < len(polls); i++ {
		if polls[i-1].at.Before(from) {
			continue
		}
		for _, name := range lockCommands {
			if polls[i].commands[name] > polls[i-1].commands[name] {
				return polls[i].at
			}
		}
	}
	return time.Time{}
}
