package oracle_test

import (
	"testing"

	"github.com/lockbench/lockbench/oracle"
)

// BenchmarkReport is one Report of an oracle of a million lock names of
// which 100 were taken, as a cell with --keys 1000000 asks it every
// second (the live line and the per-second series): it reads the
// resources that had an event, not every name.
//
//	go test ./oracle -run '^$' -bench Report
func BenchmarkReport(b *testing.B) {
	o := oracle.New(1_000_000, 1)
	for i := range 100 {
		e := o.Enter(i * 9973)
		o.Exit(e)
	}
	for b.Loop() {
		if rep := o.Report(); rep.CriticalSections != 100 {
			b.Fatalf("%d critical sections, want 100", rep.CriticalSections)
		}
	}
}
