// Package faultsuite holds the runner's tests that fault the servers they
// start (failovers, partitions, pauses, kills, clock jumps) and check what
// the record says of them. They are a package of their own so that go test
// runs them beside the runner's other tests; they use runner's exported API
// only, and the helpers of runner/runnertest.
package faultsuite
