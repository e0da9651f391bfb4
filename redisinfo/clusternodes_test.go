package redisinfo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The captured view: three masters that cover the slots once, three
// replicas each of one of them, one replica failed and disconnected.
func TestParseClusterNodesCaptured(t *testing.T) {
	for form, encode := range forms {
		t.Run(form, func(t *testing.T) {
			nodes, err := ParseClusterNodes(encode(captured(t, "cluster-nodes.txt")))
			if err != nil {
				t.Fatal(err)
			}
			if len(nodes) != 6 {
				t.Fatalf("%d nodes; want 6", len(nodes))
			}
			covered := make([]int, ClusterSlots)
			masters := map[string]bool{}
			var myself, failed []ClusterNode
			for _, n := range nodes {
				if len(n.ID) != 40 || !strings.HasPrefix(n.Addr, "127.0.0.1:") || n.BusPort == 0 || n.Hostname != "" {
					t.Errorf("node %+v: want a 40-digit id, a 127.0.0.1 address and a bus port", n)
				}
				if n.Master() {
					masters[n.ID] = true
					for _, r := range n.Slots {
						for s := r.First; s <= r.Last; s++ {
							covered[s]++
						}
					}
				}
				if n.Has("myself") {
					myself = append(myself, n)
				}
				if n.Failing() {
					failed = append(failed, n)
				}
			}
			if len(masters) != 3 {
				t.Errorf("%d masters; want 3", len(masters))
			}
			for s, c := range covered {
				if c != 1 {
					t.Fatalf("slot %d served %d times; want once", s, c)
				}
			}
			for _, n := range nodes {
				if n.Replica() && (!masters[n.MasterID] || len(n.Slots) != 0 || n.Master()) {
					t.Errorf("replica %+v: want it to follow one of the masters and serve no slot", n)
				}
				if n.Master() && n.MasterID != "" {
					t.Errorf("master %+v has a master", n)
				}
			}
			want := ClusterNode{ID: "798cd5d7bb91d7a32fdc487419dbaee89388bf46", Addr: "127.0.0.1:40055", BusPort: 39829,
				Flags: []string{"myself", "master"}, ConfigEpoch: 2, Connected: true, Slots: []SlotRange{{5461, 10921}}}
			if len(myself) != 1 || !equal(myself[0], want) || !myself[0].Usable() {
				t.Errorf("myself %+v; want %+v, usable", myself, want)
			}
			if len(failed) != 1 || !failed[0].Replica() || failed[0].Connected || failed[0].Usable() || failed[0].Addr != "127.0.0.1:33611" {
				t.Errorf("failed %+v; want the killed replica-1 at 127.0.0.1:33611, disconnected and not usable", failed)
			}
		})
	}
}

func equal(a, b ClusterNode) bool {
	return a.ID == b.ID && a.Addr == b.Addr && a.BusPort == b.BusPort && a.Hostname == b.Hostname &&
		slices.Equal(a.Flags, b.Flags) && a.MasterID == b.MasterID && a.ConfigEpoch == b.ConfigEpoch &&
		a.Connected == b.Connected && slices.Equal(a.Slots, b.Slots)
}

func TestParseClusterNodesForms(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       ClusterNode
		usable     bool
	}{
		{"no address", "a1 :0@0 master,noaddr - 1 2 0 disconnected",
			ClusterNode{ID: "a1", Flags: []string{"master", "noaddr"}}, false},
		{"myself before it learns its address", "a1 :7000@17000 myself,master - 0 0 0 connected",
			ClusterNode{ID: "a1", BusPort: 17000, Flags: []string{"myself", "master"}, Connected: true}, false},
		{"hostname", "a1 10.0.0.1:7000@17000,node-1.example myself,master - 0 0 5 connected 0-99 100 200-300",
			ClusterNode{ID: "a1", Addr: "10.0.0.1:7000", BusPort: 17000, Hostname: "node-1.example", Flags: []string{"myself", "master"},
				ConfigEpoch: 5, Connected: true, Slots: []SlotRange{{0, 99}, {100, 100}, {200, 300}}}, true},
		{"aux fields, no hostname", "a1 10.0.0.1:7000@17000,,shard-id=ab master - 0 0 1 connected",
			ClusterNode{ID: "a1", Addr: "10.0.0.1:7000", BusPort: 17000, Flags: []string{"master"}, ConfigEpoch: 1, Connected: true}, true},
		{"IPv6", "a1 ::1:7000@17000 slave b2 0 0 3 connected",
			ClusterNode{ID: "a1", Addr: "[::1]:7000", BusPort: 17000, Flags: []string{"slave"}, MasterID: "b2", ConfigEpoch: 3, Connected: true}, true},
		{"before Redis 4, no bus port", "a1 127.0.0.1:7000 master - 0 0 1 connected 0-16383",
			ClusterNode{ID: "a1", Addr: "127.0.0.1:7000", Flags: []string{"master"}, ConfigEpoch: 1, Connected: true,
				Slots: []SlotRange{{0, 16383}}}, true},
		{"slots moving", "a1 127.0.0.1:7000@17000 master - 0 0 1 connected 0-10 [11->-b2] [12-<-c3] 13",
			ClusterNode{ID: "a1", Addr: "127.0.0.1:7000", BusPort: 17000, Flags: []string{"master"}, ConfigEpoch: 1, Connected: true,
				Slots: []SlotRange{{0, 10}, {13, 13}}}, true},
		{"suspected", "a1 127.0.0.1:7000@17000 master,fail? - 0 0 1 connected",
			ClusterNode{ID: "a1", Addr: "127.0.0.1:7000", BusPort: 17000, Flags: []string{"master", "fail?"}, ConfigEpoch: 1, Connected: true}, false},
		{"in handshake", "a1 127.0.0.1:7000@17000 handshake - 0 0 0 connected",
			ClusterNode{ID: "a1", Addr: "127.0.0.1:7000", BusPort: 17000, Flags: []string{"handshake"}, Connected: true}, false},
		{"noflags", "a1 127.0.0.1:7000@17000 noflags - 0 0 0 connected",
			ClusterNode{ID: "a1", Addr: "127.0.0.1:7000", BusPort: 17000, Connected: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, err := ParseClusterNodes(tc.line + "\n")
			if err != nil || len(nodes) != 1 {
				t.Fatalf("got %+v, %v", nodes, err)
			}
			if !equal(nodes[0], tc.want) || nodes[0].Usable() != tc.usable {
				t.Errorf("got %+v (usable %v)\nwant %+v (usable %v)", nodes[0], nodes[0].Usable(), tc.want, tc.usable)
			}
		})
	}
	if nodes, err := ParseClusterNodes(""); err != nil || len(nodes) != 0 {
		t.Errorf("an empty reply: %v, %v; want no node", nodes, err)
	}
}

func TestParseClusterNodesMalformed(t *testing.T) {
	good := "a1 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-16383"
	for _, tc := range []struct{ name, text string }{
		{"too few fields", "a1 127.0.0.1:7000@17000 master - 0 0 1"},
		{"no port", "a1 127.0.0.1@17000 master - 0 0 1 connected"},
		{"port not a port", "a1 127.0.0.1:70000@17000 master - 0 0 1 connected"},
		{"bus port not a port", "a1 127.0.0.1:7000@x master - 0 0 1 connected"},
		{"epoch not a number", "a1 127.0.0.1:7000@17000 master - 0 0 x connected"},
		{"link state", "a1 127.0.0.1:7000@17000 master - 0 0 1 up"},
		{"slot beyond the last", "a1 127.0.0.1:7000@17000 master - 0 0 1 connected 16384"},
		{"slots backwards", "a1 127.0.0.1:7000@17000 master - 0 0 1 connected 10-5"},
		{"slot not a number", "a1 127.0.0.1:7000@17000 master - 0 0 1 connected a-b"},
		{"an id twice", good + "\n" + good},
		{"an error, not CLUSTER NODES", "ERR This instance has cluster support disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if nodes, err := ParseClusterNodes(tc.text); !errors.Is(err, ErrMalformed) {
				t.Errorf("got %+v, %v; want ErrMalformed", nodes, err)
			}
		})
	}
}

func FuzzParseClusterNodes(f *testing.F) {
	f.Add(captured(f, "cluster-nodes.txt"))
	f.Add("a1 ::1:7000@17000,host slave b2 0 0 3 connected 0-5 [6->-b2] 7\n")
	f.Fuzz(func(t *testing.T, text string) {
		nodes, err := ParseClusterNodes(text)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		ids := map[string]bool{}
		for _, n := range nodes {
			if n.ID == "" || ids[n.ID] || n.ConfigEpoch < 0 {
				t.Errorf("node %+v", n)
			}
			ids[n.ID] = true
			for _, r := range n.Slots {
				if r.First < 0 || r.First > r.Last || r.Last >= ClusterSlots {
					t.Errorf("node %s: slots %+v", n.ID, r)
				}
			}
		}
	})
}

// The masters of a cluster and the slots they serve, from CLUSTER NODES.
func ExampleParseClusterNodes() {
	nodes, err := ParseClusterNodes(`07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range nodes {
		if n.Master() {
			fmt.Println(n.Addr, n.Slots)
		} else {
			fmt.Println(n.Addr, "follows", n.MasterID[:8])
		}
	}
	// Output:
	// 127.0.0.1:30004 follows e7d1eecc
	// 127.0.0.1:30002 [{5461 10922}]
	// 127.0.0.1:30001 [{0 5460}]
	// 127.0.0.1:30003 [{10923 16383}]
}
