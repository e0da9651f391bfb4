// Package runner executes a plan: it opens the topology, connects the
// client library, builds each simulated client's lock, drives the workload
// beside the oracle, cleans up its keys, and returns the results record.
// It wires the other packages together; none of them calls back into it.
package runner
