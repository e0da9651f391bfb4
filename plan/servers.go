package plan

import (
	"slices"
	"strings"

	"github.com/lockbench/lockbench/topologies"
)

// servers checks the servers given (--server, --servers; flag names the
// one given) and returns them: each must name a server binary that is
// there (topologies.ServerBinary), once, and the topology must be one
// lockbench starts. A default topology that fell back to the embedded
// miniredis for want of redis-server runs the servers given instead, on
// local:single.
func (b *builder) servers(given []string, flag string, topo *topologies.Spec, topologyGiven bool) []string {
	if len(given) == 0 {
		if given != nil {
			b.fail(flag, "give at least one: %s, %s or a server binary's path", topologies.ServerRedis, topologies.ServerValkey)
		}
		return nil
	}
	b.set(flag, true, false)
	for i, server := range given {
		if server == "" {
			b.fail(flag, "an empty name: give %s, %s or a server binary's path", topologies.ServerRedis, topologies.ServerValkey)
			continue
		}
		if slices.Contains(given[:i], server) {
			b.fail(flag, "%s given twice", server)
		}
		_, err := topologies.ServerBinary(server)
		b.failOn(flag, err)
	}
	if topo.Name == "embedded" && !topologyGiven {
		topo.Name = "local:single" // the fallback of a missing redis-server
	}
	if !strings.HasPrefix(topo.Name, "local") {
		b.fail(flag, "chooses the server of the local topologies lockbench starts, and %s is not one (give --topology local:...)", topo.Name)
	}
	return slices.Clone(given)
}

// CheckServers checks servers given to flag as Build does, for a command
// that builds its plans later (lockbench findings, calibrate): each names
// a server binary that is there, once. Its error is a *SettingError.
func CheckServers(flag string, servers []string) error {
	b := &builder{origin: map[string]origin{}}
	b.servers(servers, flag, &topologies.Spec{Name: "local"}, false)
	return b.err
}
