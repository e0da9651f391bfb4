package topologies

import "testing"

// CLIENT LIST as a promoted replica answers it (Redis 7.0): Sentinel's
// connections, the replication link from the old master (flags M, its
// last command a replicated SET), lockbench's watch, and one client's
// connection that ran a lock command. Only that one is a client's, and
// only when it is newer than the baseline.
func TestClientConnections(t *testing.T) {
	const list = "id=3 addr=127.0.0.1:5001 laddr=127.0.0.1:6380 fd=8 name=sentinel-1-cmd age=9 idle=0 flags=N db=0 cmd=ping\n" +
		"id=4 addr=127.0.0.1:5002 laddr=127.0.0.1:6380 fd=9 name=sentinel-1-pubsub age=9 idle=0 flags=P db=0 cmd=subscribe\n" +
		"id=5 addr=127.0.0.1:6379 laddr=127.0.0.1:6380 fd=10 name= age=9 idle=0 flags=M db=0 cmd=set\n" +
		"id=9 addr=127.0.0.1:5003 laddr=127.0.0.1:6380 fd=11 name= age=1 idle=0 flags=N db=0 cmd=role\n" +
		"id=12 addr=127.0.0.1:5004 laddr=127.0.0.1:6380 fd=12 name= age=0 idle=0 flags=N db=0 cmd=evalsha\n"
	for _, tc := range []struct {
		after  int64
		client bool
	}{{0, true}, {11, true}, {12, false}} {
		newest, client := clientConnections(list, tc.after)
		if newest != 12 || client != tc.client {
			t.Errorf("clientConnections(after %d) = %d, %v; want 12, %v", tc.after, newest, client, tc.client)
		}
	}
	if _, client := clientConnections(list[:len(list)-len("id=12 addr=127.0.0.1:5004 laddr=127.0.0.1:6380 fd=12 name= age=0 idle=0 flags=N db=0 cmd=evalsha\n")], 0); client {
		t.Error("Sentinel's, the replication link's and the watch's connections count as a client's")
	}
	if _, client := clientConnections("id=7 addr=x flags=N cmd=client|list\n", 0); client {
		t.Error("CLIENT LIST itself counts as a client's command")
	}
}
