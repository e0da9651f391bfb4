package faults

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse either fails with a one-line ErrBadFault or
// gives a fault in range whose String parses back to it. Seeds: the forms
// of TestParse and the README, plus testdata/fuzz/FuzzParse/.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"at=5s pause node=master for=3s",
		"kill node=node-1 at=0s",
		"at=2s restart node=node-2 delay=1s",
		"at=3s failover node=replica-1",
		"at=1s latency node=master latency=20ms jitter=5ms for=2s",
		"at=1s partition node=node-1 for=1s",
		"at=1s clock node=node-3 jump=+30s",
		"at=1s clock node=node-1 jump=-10s",
		"at=1s clock node=node-1 jump=0s",
		"at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s",
		"at=1s latency sides=masters|replicas latency=300ms",
		"at=1s partition sides=a|a",
		"at=1s partition sides=a|b|c",
		"at=500ms holder-pause for=500ms",
		"at=500ms holder-crash",
		"at=0s step-delay step=between-get-and-del delay=300ms fraction=0.5",
		"at=0s step-crash step=after-setnx count=1",
		"",
		"at=1s explode node=master",
		"at=-1s pause node=master",
		"at=1s step-crash step=x fraction=2",
		"at=1s kill node=master count=2",
		"at=1s\tpause\nnode=a=b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		ft, err := Parse(spec)
		if err != nil {
			if !errors.Is(err, ErrBadFault) {
				t.Errorf("%q: error %v does not wrap ErrBadFault", spec, err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") {
				t.Errorf("%q: error message is not one line: %q", spec, msg)
			}
			if ft != (Fault{}) {
				t.Errorf("%q: error %v with a fault %+v", spec, err, ft)
			}
			return
		}
		if !slices.Contains(Kinds, ft.Kind) {
			t.Fatalf("%q: unknown kind %q", spec, ft.Kind)
		}
		if ft.At < 0 || ft.For < 0 || ft.Delay < 0 || ft.Latency < 0 || ft.Jitter < 0 || ft.Count < 0 {
			t.Fatalf("%q: negative field: %+v", spec, ft)
		}
		if ft.Sides != "" {
			// A network fault names its sides instead of a node.
			if !ft.Kind.OnNetwork() || ft.Node != "" {
				t.Fatalf("%q: kind %s with node %q and sides %q", spec, ft.Kind, ft.Node, ft.Sides)
			}
		} else if ft.Kind.NamesNode() != (ft.Node != "") {
			t.Fatalf("%q: kind %s with node %q", spec, ft.Kind, ft.Node)
		}
		if (ft.Step != "") != (ft.Kind == StepDelay || ft.Kind == StepCrash) {
			t.Fatalf("%q: kind %s with step %q", spec, ft.Kind, ft.Step)
		}
		if ft.Step != "" && !(ft.Fraction > 0 && ft.Fraction <= 1) || ft.Step == "" && ft.Fraction != 0 {
			t.Fatalf("%q: fraction %v with step %q", spec, ft.Fraction, ft.Step)
		}
		if ft.Kind == Latency && ft.Latency == 0 || ft.Kind == HolderPause && ft.For == 0 || ft.Kind == StepDelay && ft.Delay == 0 || ft.Kind == Clock && ft.Jump == 0 {
			t.Fatalf("%q: %s without its duration: %+v", spec, ft.Kind, ft)
		}
		if (ft.Jump != 0) != (ft.Kind == Clock) || ft.Jump > MaxJump || ft.Jump < -MaxJump {
			t.Fatalf("%q: kind %s with jump %v", spec, ft.Kind, ft.Jump)
		}
		again, err := Parse(ft.String())
		if err != nil || again != ft {
			t.Fatalf("%q: String %q parses to %+v, %v; want %+v", spec, ft.String(), again, err, ft)
		}
		if err := Check([]Fault{ft}, ft.At+1, []string{ft.Node}); err != nil && ft.At+1 > ft.At {
			t.Errorf("%q: Check within the run and on its node: %v", spec, err)
		}
	})
}
