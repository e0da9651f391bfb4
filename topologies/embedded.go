package topologies

import "github.com/alicebob/miniredis/v2"

// Embedded is an in-process miniredis: the fallback on a machine without
// redis-server. It runs commands one at a time in Go, so its latency and
// throughput say nothing of a real server.
type Embedded struct{ m *miniredis.Miniredis }

var _ Topology = (*Embedded)(nil)

// StartEmbedded starts a miniredis on a free loopback port.
func StartEmbedded() (*Embedded, error) {
	m, err := miniredis.Run()
	if err != nil {
		return nil, err
	}
	return &Embedded{m: m}, nil
}

func (e *Embedded) Name() string { return "embedded" }
func (e *Embedded) Access() Access {
	return Access{Mode: ModeSingle, Endpoints: []Endpoint{{Addr: e.m.Addr()}}}
}
func (e *Embedded) Nodes() []Node {
	return []Node{{Name: "master", Role: RoleMaster, Endpoint: Endpoint{Addr: e.m.Addr()}}}
}
func (e *Embedded) Managed() bool        { return true }
func (e *Embedded) Representative() bool { return false }

// Close stops the miniredis.
func (e *Embedded) Close() error { e.m.Close(); return nil }
