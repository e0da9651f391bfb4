package clients

import (
	"sync"

	"github.com/redis/rueidis"
)

// movedRedirect lets a dedicated connection in a cluster follow a MOVED
// reply to its first command (or pipeline) to the node MOVED names, once.
// rueidis' dedicated cluster connections do not follow redirections, and
// it refreshes its slot map only after a random delay (up to a second):
// after a cluster failover every dedicated try on the failed-over slots
// failed with MOVED until then (measured: 160-330 errors in a 6 s cell of
// wait-replicas or notify, where lua-release had none). Only the first
// command is sent again, as nothing ran before it: a later one may depend
// on its connection's earlier commands (WAIT counts their writes).
type movedRedirect struct {
	cluster  rueidis.Client
	others   *nodeClients
	sent     bool     // the first command went out
	releases []func() // of the connections it followed to
}

// follow moves conn to the node that every one of results (the replies to
// conn's first command or pipeline) names in MOVED, and reports whether it
// did; the caller sends again. nil follows nothing.
func (m *movedRedirect) follow(conn *rueidisConn, results ...rueidis.RedisResult) bool {
	if m == nil || m.sent {
		return false
	}
	m.sent = true
	addr := ""
	for _, res := range results {
		re, ok := rueidis.IsRedisErr(res.Error())
		if !ok {
			return false
		}
		to, ok := re.IsMoved()
		if !ok || addr != "" && to != addr {
			return false
		}
		addr = to
	}
	node, ok := m.cluster.Nodes()[addr]
	if !ok {
		var err error
		if node, err = m.others.get(addr); err != nil {
			return false
		}
	}
	d, release := node.Dedicate()
	m.releases = append(m.releases, release)
	conn.doer = d
	return true
}

// release gives back the connections followed to.
func (m *movedRedirect) release() {
	for _, release := range m.releases {
		release()
	}
}

// nodeClients are clients of one cluster node each, for the nodes a
// cluster client does not list (rueidis lists the masters it knows, so not
// a replica just promoted), made when a dedicated connection first
// follows MOVED to one and kept until the cluster client closes.
type nodeClients struct {
	option rueidis.ClientOption // the cluster client's
	mu     sync.Mutex
	byAddr map[string]rueidis.Client
}

// get returns the client of the node at addr, connecting it first.
func (n *nodeClients) get(addr string) (rueidis.Client, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.byAddr[addr]; ok {
		return c, nil
	}
	opt := n.option
	opt.InitAddress, opt.ForceSingleClient = []string{addr}, true
	c, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, err
	}
	if n.byAddr == nil {
		n.byAddr = map[string]rueidis.Client{}
	}
	n.byAddr[addr] = c
	return c, nil
}

// close closes every client; nil closes nothing.
func (n *nodeClients) close() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range n.byAddr {
		c.Close()
	}
	n.byAddr = nil
}
