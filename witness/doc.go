// Package witness keeps a run's oracle in a Redis of its own, so that the
// shards of a run — lockbench processes on many machines, against the same
// Redis under test — are checked together.
//
// A witness is a separate Redis server that no fault touches and that the
// run does not measure. Each protected resource of a cell is a hash there,
// updated only by Lua scripts, so that every entry and exit is atomic and
// timed by the witness's one clock (TIME): holders in different processes
// overlap in the witness exactly when they overlap in time. [Oracle] does
// for a cell what [oracle.Memory] does in one process — occupancy, time
// over the limit, lost updates of the ticket counter, fencing tokens,
// unavailability — and implements the same interface ([oracle.Oracle]).
//
// The witness is also where the shards meet: [Witness.Meet] holds each
// shard at a cell's start until all have arrived (and refuses a shard
// whose plan differs from the others'), [Witness.Done] counts the shards
// that finished, and [Witness.Keep] holds each shard's record for
// lockbench merge. Every key lives under the run's prefix
// (lockbench:<run-id>:) and expires a day after its last use.
package witness
