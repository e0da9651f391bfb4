// Package variants owns the lock and semaphore designs lockbench measures.
//
// It defines the contracts every design implements (Lock, Lease), the narrow
// connection interface the designs talk to Redis through (Conn, implemented by
// one adapter per client library in package clients), the retry policies of a
// blocking acquire, and a registry of designs by name, like database/sql
// drivers: each variant is one file that registers itself in init, with its
// Lua scripts next to it.
//
// A few variants are thin adapters over third-party lock libraries
// (redsync, redislock, rueidislock). They reach the client library's own
// client through RueidisNative or GoRedisNative (Unwrap sees through
// Counted), count the commands the library sends into the same counter,
// keep the library's own lease time and retry unless the run sets them
// (Info.OwnTTL leaves a zero Config.TTL zero; a zero Config.Retry), and
// say which in Info.Settings.
//
// A lease's renewals can be watched as they are made: a variant that
// renews (or refreshes by hand) is an OptionsAcquirer, whose AcquireWith
// takes a RenewalObserver per lease, told just before and just after each
// renewal. That is how a workload records renewals in a cell's history
// without this package knowing of histories.
//
// A variant never reads flags and never prints; it reports what happened
// through its return values and errors (ErrBusy, ErrTimeout, ErrLeaseLost).
package variants
