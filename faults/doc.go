// Package faults owns the fault schedule that runs beside a workload:
// parsing fault specs (`at=5s pause node=master for=3s`), checking them
// against the topology and the run, and injecting them at their time —
// node faults (pause, kill, restart, failover, clock jumps) through the
// topology's node control, network faults (latency, partition) through
// in-process TCP proxies on the topology's links, each named by its two
// ends (clients-a→master, replica-1→master), between the clients and a
// node or between two sides (sides=master,clients-a|replicas,sentinels,clients-b).
// Every event is recorded with the time it was injected, so that reports
// can show it against the per-second series, and, on a topology that
// fails over by itself, so are the promotions and demotions that follow
// (topologies.RoleWatcher). Client faults (holder pause and crash, delays
// and crashes at a variant's named steps) are parsed here and applied by
// package workloads, inside the clients.
package faults
