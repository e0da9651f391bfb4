package faults

import (
	"fmt"
	"slices"

	"github.com/lockbench/lockbench/topologies"
)

// CheckClocks refuses clock faults on a topology whose nodes' clocks
// cannot be moved: servers lockbench did not start, or nodes started
// without the clock shim (the error says what to install). Without clock
// faults it returns nil.
func CheckClocks(faults []Fault, topo topologies.Topology) error {
	i := slices.IndexFunc(faults, func(f Fault) bool { return f.Kind == Clock })
	if i < 0 {
		return nil
	}
	if err := topologies.ClockReady(topo); err != nil {
		return fmt.Errorf("%w %q: %w", ErrBadFault, faults[i], err)
	}
	return nil
}
