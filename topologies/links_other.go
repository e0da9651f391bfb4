//go:build !linux

package topologies

import "net"

// peerPID cannot tell which process opened a connection outside Linux:
// every connection from a node to another node's front is on the link
// from FromOther there.
func peerPID(net.Conn, map[int]string) (int, error) { return 0, errNoPeer }
