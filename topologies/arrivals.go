package topologies

import (
	"context"
	"strconv"
	"strings"
)

// adminCommands are the commands that are no client's lock work: what
// Sentinel, replication, cluster clients and lockbench's own watches and
// meters send (CLIENT LIST shows a connection's last command).
var adminCommands = map[string]bool{
	"NULL": true, "ping": true, "info": true, "role": true, "client": true, "cluster": true, "config": true,
	"hello": true, "auth": true, "select": true, "command": true, "echo": true, "quit": true, "reset": true,
	"publish": true, "subscribe": true, "psubscribe": true, "ssubscribe": true, "unsubscribe": true,
	"punsubscribe": true, "sunsubscribe": true, "replconf": true, "psync": true, "sync": true,
	"sentinel": true, "replicaof": true, "slaveof": true, "failover": true, "multi": true, "exec": true,
	"script": true, "debug": true, "memory": true, "latency": true, "slowlog": true, "readonly": true,
	"readwrite": true, "asking": true, "time": true, "dbsize": true, "monitor": true, "lastsave": true,
}

// arrivals tells when clients' commands first reach a node: a normal
// connection (not a replication link) whose last command is a client's,
// opened after the baseline, the newest connection the node had when the
// watch began or last saw it demoted. Connection ids only grow within one
// process; ids below the baseline say the node was restarted, and every
// connection is then new.
type arrivals struct {
	baseline int64
	arrived  bool
	started  bool
}

// ask reads the node's connections (CLIENT LIST) and reports whether the
// clients arrived at this ask: true once, until reset. A node that does
// not answer is asked again at the next tick.
func (a *arrivals) ask(ctx context.Context, conn *NodeConn) (bool, error) {
	text, err := conn.text(ctx, "CLIENT", "LIST")
	if err != nil {
		return false, err
	}
	newest, client := clientConnections(text, a.baseline)
	switch {
	case !a.started:
		a.started, a.baseline = true, newest
		return false, nil
	case newest < a.baseline: // restarted: every connection is new
		a.baseline = 0
		_, client = clientConnections(text, 0)
	}
	if client && !a.arrived {
		a.arrived = true
		return true, nil
	}
	return false, nil
}

// reset makes the connections open now old: the node was demoted, and
// the clients' next arrival is after its next promotion.
func (a *arrivals) reset() { a.arrived, a.started = false, false }

// clientConnections reads CLIENT LIST's text: the newest connection's id,
// and whether a connection newer than after ran a client's command.
func clientConnections(text string, after int64) (newest int64, client bool) {
	for line := range strings.SplitSeq(text, "\n") {
		var id int64
		var flags, cmd string
		for field := range strings.FieldsSeq(line) {
			key, value, _ := strings.Cut(field, "=")
			switch key {
			case "id":
				id, _ = strconv.ParseInt(value, 10, 64)
			case "flags":
				flags = value
			case "cmd":
				cmd, _, _ = strings.Cut(value, "|")
			}
		}
		newest = max(newest, id)
		if id > after && cmd != "" && !adminCommands[cmd] && !strings.ContainsAny(flags, "MS") {
			client = true
		}
	}
	return newest, client
}
