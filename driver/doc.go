// Package driver is lockbench's side of the lock-driver protocol
// (docs/drivers.md): it runs a lock implemented in any language, behind a
// driver process that speaks newline-delimited JSON on its stdin and
// stdout, and measures it as it measures its own variants.
//
// It finds drivers (Load: the manifests drivers/*/driver.json under
// DefaultDir, $LOCKBENCH_DRIVERS or --drivers; ParseSpec: a --driver
// NAME=CMD; Find), starts one (Start: its own process group, its folder as
// working directory, init sent and init_ok read into Info), and multiplexes
// many clients' requests over it (Process.Client; Client.Acquire, Release,
// Extend): each request numbered, one reader goroutine routing the replies
// by in_reply_to in whatever order they come, unasked lease_lost and
// renewed delivered to the lease they name (Lease.Lost, RenewedAt) and to
// Config.OnNotice. Every request has a deadline, the acquire timeout plus
// Config.Margin, after which it fails with ErrNoReply, an indefinite
// error.
//
// Outcomes are typed: an acquire that did not get the lock fails with
// variants.ErrBusy or variants.ErrTimeout, a release or extend of a lease
// no longer held with variants.ErrLeaseLost (so an adapter to
// variants.Lock passes them through); a driver's error reply is a
// *ReplyError, ErrDefinite (it did not happen) or ErrIndefinite (it may
// have). A driver that breaks the protocol (a line that is not JSON, an
// unknown in_reply_to, a reply for a client with no request in flight)
// puts its process in a failed state: every pending and later request
// fails with a *ProtocolError naming the line. One that exits fails them
// with an *ExitError carrying the last lines of its stderr. A command that
// cannot run at all is ErrBadDriver, which the CLI answers with exit
// status 2.
//
// Process.PID and Process.Signal reach the driver's whole process group
// (SIGSTOP, SIGCONT, SIGKILL: a holder's pause and crash), and Close ends
// it: stdin closed, a grace period, SIGTERM, SIGKILL; whatever is left of
// its group goes with it, and the kernel kills the driver if lockbench
// dies first. Every driver process carries LOCKBENCH_DRIVER=<name> in its
// environment.
//
// Package wire holds the protocol's messages, shared with drivers written
// in Go; package conform is the conformance suite of lockbench driver
// check.
package driver
