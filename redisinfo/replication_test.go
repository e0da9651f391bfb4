package redisinfo

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestParseReplicationRole(t *testing.T) {
	for _, tc := range []struct{ name, info, want string }{
		{"captured master", captured(t, "info-master.txt"), "master"},
		{"captured replica", captured(t, "info-replica.txt"), "replica"},
		{"replica", "# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\n", "replica"},
		{"no section", "# CPU\nused_cpu_sys:1\n", ""},
		{"no role", "# Replication\nconnected_slaves:0\n", ""},
		{"unknown role", "# Replication\nrole:sentinel\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseReplication(tc.info)
			if got := r.Role; got != tc.want || (tc.want == "") != errors.Is(err, ErrMalformed) {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The captured master lists both replicas; the captured replica is one of
// them and names the master at its port, in sync.
func TestParseReplicationCaptured(t *testing.T) {
	masterText, replicaText := captured(t, "info-master.txt"), captured(t, "info-replica.txt")
	master, err := ParseReplication(masterText)
	if err != nil {
		t.Fatal(err)
	}
	replica, err := ParseReplication(replicaText)
	if err != nil {
		t.Fatal(err)
	}
	masterPort, _ := Field(masterText, "server", "tcp_port")
	replicaPort, _ := Field(replicaText, "server", "tcp_port")

	want := []Replica{
		{Addr: "127.0.0.1:" + replicaPort, State: "online", Offset: 163},
		{Addr: "127.0.0.1:43843", State: "online", Offset: 163},
	}
	if master.Role != "master" || master.MasterAddr != "" || master.LinkUp || master.Offset != 200 || !slices.Equal(master.Replicas, want) {
		t.Errorf("master %+v; want a master at offset 200 with replicas %+v", master, want)
	}
	if replica.Role != "replica" || replica.MasterAddr != "127.0.0.1:"+masterPort || !replica.LinkUp || replica.Offset != 200 || len(replica.Replicas) != 0 {
		t.Errorf("replica %+v; want a replica of 127.0.0.1:%s, link up, at offset 200", replica, masterPort)
	}
	// Parsed whole, the same.
	info, err := Parse(replicaText)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := info.Replication(); err != nil || again.MasterAddr != replica.MasterAddr || again.Offset != replica.Offset {
		t.Errorf("Info.Replication = %+v, %v; ParseReplication said %+v", again, err, replica)
	}
}

func TestParseReplicationForms(t *testing.T) {
	r, err := ParseReplication("# Replication\nrole:master\nslave0:ip=::1,port=7001,state=wait_bgsave,offset=0,lag=3\n" +
		"slave1:ip=10.0.0.2,port=7002\nslave3:ip=10.0.0.4,port=7004,state=online\n")
	want := []Replica{
		{Addr: "[::1]:7001", State: "wait_bgsave", Lag: 3 * time.Second},
		{Addr: "10.0.0.2:7002"}, // slave3 is not slave2: the list stops at the gap
	}
	if err != nil || !slices.Equal(r.Replicas, want) {
		t.Errorf("replicas %+v, %v; want %+v", r.Replicas, err, want)
	}
	r, err = ParseReplication("# Replication\nrole:slave\nmaster_host:::1\nmaster_port:7000\nmaster_link_status:down\n")
	if err != nil || r.MasterAddr != "[::1]:7000" || r.LinkUp {
		t.Errorf("replica %+v, %v; want of [::1]:7000, link down", r, err)
	}
}

func TestParseReplicationMalformed(t *testing.T) {
	for _, tc := range []struct{ name, info string }{
		{"offset not a number", "# Replication\nrole:master\nmaster_repl_offset:lots\n"},
		{"negative offset", "# Replication\nrole:master\nmaster_repl_offset:-1\n"},
		{"replica without port", "# Replication\nrole:master\nslave0:ip=127.0.0.1,state=online\n"},
		{"replica port not a port", "# Replication\nrole:master\nslave0:ip=127.0.0.1,port=70000\n"},
		{"replica attr not key=value", "# Replication\nrole:master\nslave0:ip=127.0.0.1,port=1,online\n"},
		{"replica lag not a number", "# Replication\nrole:master\nslave0:ip=127.0.0.1,port=1,lag=x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r, err := ParseReplication(tc.info); !errors.Is(err, ErrMalformed) {
				t.Errorf("got %+v, %v; want ErrMalformed", r, err)
			}
		})
	}
}

// Where a replica stands, from its INFO replication.
func ExampleParseReplication() {
	r, err := ParseReplication("# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\n" +
		"master_link_status:up\r\nslave_repl_offset:1200\r\nmaster_repl_offset:1200\r\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Role, "of", r.MasterAddr, "link up:", r.LinkUp, "at", r.Offset)
	// Output:
	// replica of 127.0.0.1:6379 link up: true at 1200
}
