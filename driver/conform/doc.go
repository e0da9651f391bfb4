// Package conform is the conformance suite of lock drivers, lockbench
// driver check: it starts a redis-server of its own (through package
// topologies, on a free loopback port) and the driver, and checks, one
// after another, that the driver speaks the protocol of docs/drivers.md
// and that its lock excludes: init and capabilities; an acquire/release
// round trip (and extend, or its refusal); two clients on one key
// exclude each other; a release with a foreign token is refused and
// leaves the holder's lock held; every key stays under the prefix; an
// acquire that waits out its timeout says so; many requests in flight at
// once, served while one blocks; a malformed request answered with an
// error, the driver serving on; and an exit when its stdin closes.
//
// Run returns a Report of every check's Result, each told to
// Options.OnResult as it ends; it fails only when the checks cannot run
// (no redis-server, a driver that cannot be started at all:
// driver.ErrBadDriver, the context ended).
package conform
