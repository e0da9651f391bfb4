package faults

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/topologies"
)

func TestParseSides(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Fault
	}{
		{"at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s",
			Fault{At: time.Second, Kind: Partition, Sides: "master,clients-a|replicas,sentinels,clients-b", For: 5 * time.Second}},
		{"at=0s latency sides=masters|replicas latency=300ms",
			Fault{Kind: Latency, Sides: "masters|replicas", Latency: 300 * time.Millisecond}},
	} {
		got, err := Parse(tc.spec)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.spec, got, err, tc.want)
			continue
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("%q does not round-trip: %q → %+v, %v", tc.spec, got.String(), again, err)
		}
	}
	for spec, why := range map[string]string{
		"at=1s partition sides=master":                     "two sides split by |",
		"at=1s partition sides=a|b|c":                      "two sides split by |",
		"at=1s partition sides=master,|replicas":           "empty name",
		"at=1s partition sides=master|master":              "the sides overlap",
		"at=1s partition sides=master,replicas|replicas":   "the sides overlap",
		"at=1s partition node=master sides=master|clients": "not both",
		"at=1s pause sides=master|replicas":                "sides= goes with the network faults",
		"at=1s partition":                                  "no node=",
	} {
		_, err := Parse(spec)
		if !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), why) {
			t.Errorf("Parse(%q) = %v; want ErrBadFault saying %q", spec, err, why)
		}
	}
}

// sentinelNodes are local:sentinel's nodes as it starts.
var sentinelNodes = []topologies.Node{
	{Name: "master", Role: topologies.RoleMaster},
	{Name: "replica-1", Role: topologies.RoleReplica}, {Name: "replica-2", Role: topologies.RoleReplica},
	{Name: "sentinel-1", Role: topologies.RoleSentinel}, {Name: "sentinel-2", Role: topologies.RoleSentinel},
}

func mustParse(t *testing.T, spec string) Fault {
	t.Helper()
	f, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A fault acts on the links between its sides, both ways, and on no
// other; node=X is X against every client group.
func TestSidesCut(t *testing.T) {
	groups := []string{"clients-a", "clients-b"}
	link := func(from, to string) topologies.Link { return topologies.Link{From: from, To: to} }
	for spec, want := range map[string]map[topologies.Link]bool{
		"at=1s partition sides=master,clients-a|replicas,sentinels,clients-b": {
			link("replica-1", "master"): true, link("sentinel-2", "master"): true, link("master", "replica-2"): true,
			link("clients-b", "master"): true, link("clients-a", "sentinel-1"): true, link("clients-a", "replica-1"): true,
			link("clients-a", "master"): false, link("clients-b", "replica-1"): false, link("replica-2", "replica-1"): false,
			link("sentinel-1", "sentinel-2"): false, link(topologies.FromLockbench, "master"): false,
		},
		"at=1s partition node=replica-1": {
			link("clients-a", "replica-1"): true, link("clients-b", "replica-1"): true,
			link("master", "replica-1"): false, link("clients-a", "master"): false,
		},
		"at=1s latency sides=master|replica-1 latency=1ms": {
			link("replica-1", "master"): true, link("master", "replica-1"): true, link("replica-2", "master"): false,
		},
	} {
		c, err := resolve(mustParse(t, spec), sentinelNodes, groups)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		for l, cut := range want {
			if c.crosses(l) != cut {
				t.Errorf("%s: link %s cut %v, want %v", spec, l, c.crosses(l), cut)
			}
		}
	}
}

func TestCheckSides(t *testing.T) {
	groups := []string{"clients-a", "clients-b"}
	good := []Fault{mustParse(t, "at=1s partition sides=master,clients-a|replicas,sentinels,clients-b"),
		mustParse(t, "at=1s partition node=master"), mustParse(t, "at=1s pause node=master")}
	if err := CheckSides(good, sentinelNodes, groups); err != nil {
		t.Errorf("good sides: %v", err)
	}
	replicated := sentinelNodes[:3]
	for spec, why := range map[string]string{
		"at=1s partition sides=master|replica-9":          `no such node or group "replica-9"`,
		"at=1s partition sides=master|clients-c":          `no such node or group "clients-c"`,
		"at=1s partition sides=master|sentinels":          `no such node or group "sentinels"`,
		"at=1s partition sides=masters|master":            "master is on both sides",
		"at=1s partition sides=replica-1,master|replicas": "replica-1 is on both sides",
		"at=1s partition sides=clients-a|clients-b":       "no link joins the sides",
	} {
		err := CheckSides([]Fault{mustParse(t, spec)}, replicated, groups)
		if !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "clients, clients-a, clients-b") {
			t.Errorf("%s: %v; want ErrBadFault saying %q and the groups", spec, err, why)
		}
	}
}
