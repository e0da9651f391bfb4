// Package soak runs lockbench for long and judges whether the process
// stays flat: a mixed workload of locks and semaphores, short plans run
// round-robin on one topology, with a Sample of the process (resident
// memory through procfs, Go heap, goroutines) every interval. Run returns
// the first sample after the warm-up round and the last; an error
// wrapping ErrNotFlat names every figure that grew past its limit.
package soak
