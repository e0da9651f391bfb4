// Package faults owns the fault schedule that runs beside a workload:
// parsing fault specs (`at=5s pause node=master for=3s`), checking them
// against the topology and the run, and injecting them at their time —
// node faults (pause, kill, restart, failover) through the topology's node
// control, network faults (latency, partition) through an in-process TCP
// proxy in front of each node — recording every event with the time it
// was injected so that reports can show it against the per-second series,
// and, on a topology that fails over by itself, the promotions and
// demotions that follow (topologies.RoleWatcher). Client faults
// (holder pause and crash, delays and crashes at a variant's named steps)
// are parsed here and applied by package workloads, inside the clients.
package faults
