// Package linearize gives a second opinion on a cell: it checks the
// cell's history (package history) for linearizability with porcupine
// against a lock or counting-semaphore model, per lock name, independently
// of the oracle that counted violations while the cell ran.
//
// # What is checked
//
// The model is one key holding a set of leases, at most Limit of them (1
// for a lock, N for a semaphore). Which operations it is fed is the view:
//
//   - history.CriticalSections (the default) is the protected resource,
//     what the oracle checks: a lease takes a place at its enter and gives
//     it back at its exit. Not linearizable means that in every order of
//     the enters and exits consistent with their times, more than Limit
//     holders were inside at once — the oracle's overlap, decided from the
//     recorded times alone. Where an enter and an exit are concurrent
//     (their intervals share a nanosecond), porcupine may order them the
//     harmless way, so it can miss an overlap the oracle saw but never
//     reports one the times do not prove.
//   - history.Leases is what the lock vouched for: acquire, extend,
//     release. A lease released ok is held from its acquire to its
//     release, and each ok extend needs it held. A lease whose release
//     failed (lease lost), is unknown, or never came (a crashed holder)
//     may have expired at any moment after the lock last vouched for it
//     (its acquire or last ok extend) — and before a failed release, which
//     found it gone: TTL locks lose leases, and say so.
//     Not linearizable means the lock handed out more leases than the
//     limit that it vouched for at once. There is no clock in the model:
//     a lease that expired too early but whose holder was told is not a
//     violation here (the critical-section view catches its harm).
//
// Jepsen's semantics of outcomes hold: an ok operation took effect, a
// failed one did not, an info (or never completed) one may have, at any
// moment after its call. For these models porcupine's reading of a pending
// operation (its return at the end of the history) comes down to exact
// rules, which the package applies before the search: an enter or
// acquire that did not surely succeed is left out with its lease (taking
// a place only ever hurts; but see Extends for an acquire the lock
// vouched for later), and an exit or release of unknown outcome
// returns at its call (leaving early only ever helps). The test suite
// checks these rules against a direct porcupine encoding with pending
// operations on thousands of random histories.
//
// # Extends
//
// A renewal is a lease's own: the history ties it to its lease (the
// acquire it renews) and to the lease's holder (history.Validate refuses
// an operation on another process's lease). In the leases view an ok
// extend by the holder of a lease it holds is a no-op on the state: it
// needs the lease inside and leaves the set as it was. An ok extend is the
// lock vouching that the lease is held somewhere between its call and its
// return, so one that cannot be (a violation, as a double grant is):
//
//   - after the lease's ok release, or after a release that found it lost;
//   - of a lease whose acquire failed: the lock renews a lease it refused
//     (the same for an ok release of such a lease); the window is that
//     lease alone.
//
// An ok extend (or release) of a lease whose acquire is unknown proves the
// acquire took effect, before the first of them returned: the lease then
// begins within that span rather than being left out. A failed extend
// (not renewed: the lease was found lost) and an unknown one change
// nothing, and an extend may be under way across its lease's release
// (the variant's Release waits for a renewal in flight). The
// critical-sections view has no extends: a renewal does not enter or
// leave the protected resource. These rules too are checked against the
// direct encoding, on random histories with stray renewals.
//
// # Segments
//
// Porcupine's search costs memory in the square of a partition's length,
// so each key's history is cut further, at moments where the set of
// leases inside is the same in every linearization (no end, extend or
// instant under way, and any acquire under way necessarily later because
// the place is full); each segment starts from that set. Segments are
// porcupine's partitions (Model.Partition); a history is linearizable iff
// every segment is.
//
// # Output
//
// [Check] returns a [Result]: the verdict (linearizable, not linearizable,
// or unknown when porcupine's timeout-bounded search did not finish), the
// failing keys, and the shortest offending [Window]: a smallest set of
// leases that cannot be linearized (removing any one makes the rest
// linearizable — two holders at once for a lock) with its operations and
// time span. [Result.Visualize] writes porcupine's HTML visualization of
// the window and the leases around it.
package linearize
