package render

import (
	"github.com/lockbench/lockbench/measure"
)

import "testing"

func TestEventLine(t *testing.T) {
	for _, tc := range []struct {
		e    measure.FaultEvent
		want string
	}{
		{measure.FaultEvent{AtS: 1.004, Fault: "at=1s partition sides=master,clients-a|replicas for=5s", Action: "partition"},
			"partition master,clients-a|replicas at 1.00s"},
		{measure.FaultEvent{AtS: 3.41, Fault: "at=3s failover node=replica-1", Action: "promoted", Node: "replica-1", DurationS: 0.41},
			"promoted replica-1 at 3.41s (0.41s after at=3s failover node=replica-1)"},
		{measure.FaultEvent{AtS: 3, Fault: "at=3s failover node=replica-1", Action: "failover", Node: "replica-1", DurationS: 2.8},
			"failover replica-1 at 3.00s (took 2.80s)"},
		{measure.FaultEvent{AtS: 2, Fault: "at=2s kill node=master", Action: "kill", Node: "master", Error: "no such node"},
			"kill master at 2.00s (failed: no such node)"},
	} {
		if got := eventLine(tc.e); got != tc.want {
			t.Errorf("eventLine(%+v) = %q; want %q", tc.e, got, tc.want)
		}
	}
}
