// Package faults owns the fault schedule that runs beside a workload:
// parsing fault specs (`at=5s pause node=master for=3s`), checking them
// against the topology and the run, and injecting them at their time
// through the topology's node control, recording every event with its time
// so that reports can show it against the per-second series.
//
// This first version injects node faults: pause (and resume), kill,
// restart (immediate or delayed) and failover. Network, client and step
// faults come next.
package faults
