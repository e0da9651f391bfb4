// Package clientsuite holds the runner's tests whose checks are timing
// under client faults and margins: a holder that outlasts its TTL, crashes
// or is delayed between two steps, how long a lock stays unavailable, how
// late a hold ends after its lease, fencing tokens of a paused holder. They
// stay sequential among themselves (their checks feel the load) and are a
// package of their own so that go test runs them beside the runner's other
// tests, as runner/faultsuite's; they use runner's exported API only, and
// the helpers of runner/runnertest.
package clientsuite
