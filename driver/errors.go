package driver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// Errors of drivers. Compare them with errors.Is. An acquire that did not
// get the lock fails with variants.ErrBusy or variants.ErrTimeout (a
// *NotAcquiredError), a release or extend of a lease no longer held with
// variants.ErrLeaseLost, as lockbench's own variants do.
var (
	// ErrBadDriver: the driver cannot be run at all: an unknown name, a
	// manifest that does not parse, a command that does not exist or is
	// not executable. The CLI answers it with exit status 2.
	ErrBadDriver = errors.New("driver: bad driver")
	// ErrExited: the driver's process ended (during init, or while
	// requests were in flight) when lockbench had not closed it.
	ErrExited = errors.New("driver: process exited")
	// ErrProtocol: the driver broke the protocol (a line that is not JSON,
	// an unknown in_reply_to, a reply for a client with no request in
	// flight, ...). The process fails: every pending and later request
	// fails with the error, which names the offending line.
	ErrProtocol = errors.New("driver: protocol violation")
	// ErrUnsupported: the driver refused what was asked of it (code
	// "unsupported"): a mode, renewal, an extend.
	ErrUnsupported = errors.New("driver: unsupported")
	// ErrDefinite: the operation certainly did not take effect. It is
	// variants.ErrDefinite, so that a driver's lock reports it as
	// lockbench's own variants do (a history's fail).
	ErrDefinite = variants.ErrDefinite
	// ErrIndefinite: the operation may have taken effect (a history
	// records it as info).
	ErrIndefinite = errors.New("driver: indefinite error")
	// ErrNoReply: no reply came before the request's deadline (the
	// acquire timeout plus a margin). It is indefinite.
	ErrNoReply = errors.New("driver: no reply before the deadline")
	// ErrClientBusy: the client still has a request in flight, one whose
	// reply lockbench stopped waiting for; nothing was sent (definite).
	ErrClientBusy = errors.New("driver: client has a request in flight")
	// ErrClosed: the process was closed.
	ErrClosed = errors.New("driver: process closed")
	// ErrLingered: the driver did not exit within the grace period after
	// its stdin closed; lockbench signalled its process group.
	ErrLingered = errors.New("driver: did not exit when its stdin closed")
)

// ReplyError is a driver's error reply to a request.
type ReplyError struct {
	Op       string // acquire, release, extend, init
	Client   int    // -1 for init
	Definite bool
	Code     string // free text, "" when the driver gave none
	Text     string
}

func (e *ReplyError) Error() string {
	kind := "indefinite"
	if e.Definite {
		kind = "definite"
	}
	if e.Code != "" {
		kind += ", " + e.Code
	}
	who := ""
	if e.Client >= 0 {
		who = fmt.Sprintf(" of client %d", e.Client)
	}
	return fmt.Sprintf("driver error on %s%s (%s): %s", e.Op, who, kind, e.Text)
}

// Unwrap makes the error ErrDefinite or ErrIndefinite, and ErrUnsupported
// for code "unsupported".
func (e *ReplyError) Unwrap() []error {
	errs := []error{ErrIndefinite}
	if e.Definite {
		errs[0] = ErrDefinite
	}
	if e.Code == "unsupported" {
		errs = append(errs, ErrUnsupported)
	}
	return errs
}

// NotAcquiredError is an acquire's not_acquired reply: variants.ErrBusy
// (reason busy) or variants.ErrTimeout (reason timeout) with the time the
// library's call took (0 when the driver did not say).
type NotAcquiredError struct {
	Reason string
	Took   time.Duration
}

func (e *NotAcquiredError) Error() string { return e.Unwrap().Error() }

// Unwrap is variants.ErrBusy or variants.ErrTimeout.
func (e *NotAcquiredError) Unwrap() error {
	if e.Reason == "timeout" {
		return variants.ErrTimeout
	}
	return variants.ErrBusy
}

// ProtocolError is a broken protocol: why, and the line that broke it
// (cut to lineMax bytes).
type ProtocolError struct {
	Driver string
	Why    string
	Line   string
}

// lineMax is how much of an offending line an error quotes.
const lineMax = 300

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("driver %s broke the protocol: %s; the line: %s", e.Driver, e.Why, e.Line)
}

func (e *ProtocolError) Unwrap() error { return ErrProtocol }

// quote is line cut to lineMax bytes.
func quote(line []byte) string {
	if len(line) > lineMax {
		return string(line[:lineMax]) + "..."
	}
	return string(line)
}

// ExitError is a driver that exited when lockbench had not closed it.
type ExitError struct {
	Driver string
	PID    int
	During string   // "init", or "" once it served
	Status string   // "exit status 1", "signal: killed", ...
	Stderr []string // its last lines
}

func (e *ExitError) Error() string {
	during := ""
	if e.During != "" {
		during = " during " + e.During
	}
	return fmt.Sprintf("driver %s (pid %d) exited%s (%s)%s", e.Driver, e.PID, during, e.Status, tailText(e.Stderr))
}

func (e *ExitError) Unwrap() error { return ErrExited }

// tailText is a driver's last stderr lines for an error message.
func tailText(lines []string) string {
	if len(lines) == 0 {
		return "; it wrote nothing on stderr"
	}
	return "; stderr: " + strings.Join(lines, " | ")
}

// failedRequest is a request that failed with its process: sent (in
// flight when the process failed: it may have taken effect, indefinite)
// or never sent (definite).
type failedRequest struct {
	failure error
	sent    bool
}

func (e failedRequest) Error() string { return e.failure.Error() }

func (e failedRequest) Unwrap() []error {
	if e.sent {
		return []error{e.failure, ErrIndefinite}
	}
	return []error{e.failure, ErrDefinite}
}
