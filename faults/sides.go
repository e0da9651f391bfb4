package faults

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/topologies"
)

// The group names a side may use besides node names and the client
// groups' own (clients-a, ...).
const (
	GroupMasters   = "masters"   // the nodes that are masters when the fault starts
	GroupReplicas  = "replicas"  // the nodes that are replicas then
	GroupSentinels = "sentinels" // every sentinel
	GroupClients   = "clients"   // every client group; the only one when the run has no groups
)

// parseSides reads the value of sides=: two comma lists of names split by
// "|", no name twice; it returns them as String writes them.
func parseSides(value string) (string, error) {
	parts := strings.Split(value, "|")
	if len(parts) != 2 {
		return "", fmt.Errorf("sides=%q is not two sides split by | (sides=master,clients-a|replicas,sentinels)", value)
	}
	var seen []string
	for _, part := range parts {
		for _, name := range strings.Split(part, ",") {
			switch {
			case name == "":
				return "", fmt.Errorf("sides=%q has an empty name (names: nodes, %s, %s, %s, %s and client groups)",
					value, GroupMasters, GroupReplicas, GroupSentinels, GroupClients)
			case slices.Contains(seen, name):
				return "", fmt.Errorf("sides=%q names %s twice: the sides overlap", value, name)
			}
			seen = append(seen, name)
		}
	}
	return value, nil
}

// sideNames are the names of f's two sides, as given: a network fault
// given by node=X is X against the clients.
func sideNames(f Fault) (a, b []string) {
	if f.Sides == "" {
		return []string{f.Node}, []string{GroupClients}
	}
	left, right, _ := strings.Cut(f.Sides, "|")
	return strings.Split(left, ","), strings.Split(right, ",")
}

// errNoMember: a side's name is no node or group, or a group with no
// member.
var errNoMember = errors.New("no such node or group")

// members resolves the names of a side into the nodes (by name, with
// their roles now) and client groups it holds.
func members(names []string, nodes []topologies.Node, groups []string) (map[string]bool, error) {
	byRole := map[string]topologies.Role{GroupMasters: topologies.RoleMaster, GroupReplicas: topologies.RoleReplica,
		GroupSentinels: topologies.RoleSentinel}
	set := map[string]bool{}
	for _, name := range names {
		found := false
		switch role, isGroup := byRole[name]; {
		case isGroup:
			for _, n := range nodes {
				if n.Role == role {
					set[n.Name], found = true, true
				}
			}
		case name == GroupClients:
			for _, g := range groups {
				set[g], found = true, true
			}
		case slices.Contains(groups, name) || slices.ContainsFunc(nodes, func(n topologies.Node) bool { return n.Name == name }):
			set[name], found = true, true
		}
		if !found {
			return nil, fmt.Errorf("%w %q", errNoMember, name)
		}
	}
	return set, nil
}

// cut is the links a network fault acts on: from a member of one side to
// a member of the other.
type cut struct{ a, b map[string]bool }

func (c cut) crosses(l topologies.Link) bool {
	return c.a[l.From] && c.b[l.To] || c.b[l.From] && c.a[l.To]
}

// resolve resolves f's sides against the topology's nodes and the run's
// client groups.
func resolve(f Fault, nodes []topologies.Node, groups []string) (cut, error) {
	left, right := sideNames(f)
	a, err := members(left, nodes, groups)
	if err != nil {
		return cut{}, err
	}
	b, err := members(right, nodes, groups)
	if err != nil {
		return cut{}, err
	}
	for m := range a {
		if b[m] {
			return cut{}, fmt.Errorf("%s is on both sides: the sides overlap", m)
		}
	}
	isNode := func(set map[string]bool) bool {
		return slices.ContainsFunc(nodes, func(n topologies.Node) bool { return set[n.Name] })
	}
	if !isNode(a) && !isNode(b) {
		return cut{}, errors.New("no link joins the sides: clients connect to nodes, not to each other")
	}
	return cut{a, b}, nil
}

// CheckSides reports the first network fault whose sides do not fit the
// topology's nodes (with their roles) and the run's client groups: a name
// that is no node or group (or a group with no member, such as sentinels
// where there are none), sides that share a member, or sides with no
// link between them.
func CheckSides(faults []Fault, nodes []topologies.Node, groups []string) error {
	for _, f := range faults {
		if !f.Kind.OnNetwork() {
			continue
		}
		if _, err := resolve(f, nodes, groups); err != nil {
			var names []string
			for _, n := range nodes {
				names = append(names, n.Name)
			}
			clientGroups := GroupClients
			if !slices.Equal(groups, []string{GroupClients}) {
				clientGroups = strings.Join(append([]string{GroupClients}, groups...), ", ")
			}
			return fmt.Errorf("%w %q: %w (nodes: %s; groups: %s, %s, %s, %s)", ErrBadFault, f, err, strings.Join(names, ", "),
				GroupMasters, GroupReplicas, GroupSentinels, clientGroups)
		}
	}
	return nil
}
