package clients

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// movedWait bounds how long a dedicated connection that met MOVED waits
// for go-redis to learn the slot's new master: it reloads the slots in
// the background, at most every 200 ms.
const movedWait = 250 * time.Millisecond

// goRedisMoved lets a dedicated connection in a cluster follow a MOVED
// reply to its first command (or pipeline) to the node MOVED names, once,
// as rueidis' does (movedRedirect): go-redis redirects the cluster
// client's own commands, not a node's connection (ClusterClient's
// MasterForKey, then Client.Conn). It has the client reload the slots,
// waits (at most movedWait) until they name that node the key's master,
// and moves the connection there. Only the first command is sent again, as
// nothing ran before it: a later one may depend on its connection's
// earlier commands.
type goRedisMoved struct {
	cluster *redis.ClusterClient
	key     string
	sent    bool          // the first command went out
	conns   []*redis.Conn // the connections it used, to close
}

// follow moves conn to the node that every one of errs (those of conn's
// first command or pipeline) names in MOVED, and reports whether it did;
// the caller sends again. nil follows nothing.
func (m *goRedisMoved) follow(ctx context.Context, conn *goRedisConn, errs ...error) bool {
	if m == nil || m.sent {
		return false
	}
	m.sent = true
	addr := ""
	for _, err := range errs {
		var re redis.Error
		if !errors.As(err, &re) {
			return false
		}
		fields := strings.Fields(re.Error())
		if len(fields) != 3 || fields[0] != "MOVED" || addr != "" && fields[2] != addr {
			return false
		}
		addr = fields[2]
	}
	m.cluster.ReloadState(ctx)
	deadline := time.Now().Add(movedWait)
	for {
		node, err := m.cluster.MasterForKey(ctx, m.key)
		if err == nil && node.Options().Addr == addr {
			c := node.Conn()
			m.conns = append(m.conns, c)
			conn.doer = c
			return true
		}
		if time.Until(deadline) <= 0 {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// close closes the connections used.
func (m *goRedisMoved) close() {
	for _, c := range m.conns {
		_ = c.Close()
	}
}
