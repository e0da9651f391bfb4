// Package runner executes a plan: it opens the topology, connects the
// client library, builds each simulated client's lock, drives the workload
// beside the oracle (every cell, repetitions interleaved), cleans up its
// keys, and returns the run record. Sweep runs a plan step by step,
// upward in clients or offered rate, until an SLO breaks or throughput stops
// rising (its defaults and their check in sweep.go); Findings runs every
// scenario for the findings report. It also owns a run's id (NewRunID,
// CheckRunID, KeyPrefix) and reaches the witness for the records shards
// left there (ParseWitness, KeptRecords). It wires the other packages
// together; none of them calls back into it.
package runner
