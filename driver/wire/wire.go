package wire

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Version is the protocol's version, sent in init's "protocol".
const Version = 1

// The message types. Requests go from lockbench to the driver; each has
// its replies. LeaseLost and Renewed are sent unasked.
const (
	TypeInit        = "init"
	TypeInitOK      = "init_ok"
	TypeAcquire     = "acquire"
	TypeAcquireOK   = "acquire_ok"
	TypeNotAcquired = "not_acquired"
	TypeRelease     = "release"
	TypeReleaseOK   = "release_ok"
	TypeLeaseGone   = "lease_gone"
	TypeExtend      = "extend"
	TypeExtendOK    = "extend_ok"
	TypeError       = "error"
	TypeLeaseLost   = "lease_lost"
	TypeRenewed     = "renewed"
	TypeClock       = "clock"
	TypeClockOK     = "clock_ok"
)

// The reasons of not_acquired.
const (
	ReasonBusy    = "busy"    // held, and the retry policy does not wait
	ReasonTimeout = "timeout" // waited acquire_timeout_ms
)

// The codes of error replies this package names; drivers may use others.
const (
	CodeUnsupported = "unsupported"
	CodeMalformed   = "malformed"
	CodeIO          = "io"
	CodeTimeout     = "timeout"
)

// The modes of Redis.Mode.
const (
	ModeSingle   = "single"   // addrs[0] is the master
	ModeSentinel = "sentinel" // addrs are the sentinels; master_name names the master
	ModeCluster  = "cluster"  // addrs are seed nodes
	ModeMasters  = "masters"  // addrs are independent masters (Redlock-style libraries)
)

// PasswordEnv is the variable lockbench passes a Redis password in.
const PasswordEnv = "LOCKBENCH_REDIS_PASSWORD"

// Message is any message of the protocol, either way. Fields a message
// type does not have stay zero and are left out of its JSON; the tables
// of docs/drivers.md say which each type has.
type Message struct {
	Type string `json:"type"`
	// ID numbers a request, unique per process; nil in a reply.
	ID *int64 `json:"id,omitempty"`
	// InReplyTo is the ID of the request a reply answers; nil in an
	// unasked message, and in the error reply to a request whose id could
	// not be read.
	InReplyTo *int64 `json:"in_reply_to,omitempty"`
	// Client is lockbench's index of the client a request is for, echoed
	// by its reply; nil in init and init_ok.
	Client *int `json:"client,omitempty"`

	// init
	Protocol int          `json:"protocol,omitempty"`
	Redis    *Redis       `json:"redis,omitempty"`
	Prefix   string       `json:"prefix,omitempty"`
	Clients  int          `json:"clients,omitempty"`
	Lock     *LockOptions `json:"lock,omitempty"`

	// init_ok
	Library      string        `json:"library,omitempty"`
	Version      string        `json:"version,omitempty"`
	Language     string        `json:"language,omitempty"`
	Capabilities *Capabilities `json:"capabilities,omitempty"`

	// acquire, release, extend
	Key   string `json:"key,omitempty"`
	Token string `json:"token,omitempty"` // also acquire_ok, lease_lost, renewed
	// Interrupt, in a release, asks the driver to release on a thread
	// interrupted just before the library's call (capabilities.interrupt).
	Interrupt bool    `json:"interrupt,omitempty"`
	TTLMs     float64 `json:"ttl_ms,omitempty"`

	// acquire_ok, extend_ok, renewed (validity); release_ok, not_acquired (took)
	Fence      uint64  `json:"fence,omitempty"`
	ValidityMs float64 `json:"validity_ms,omitempty"`
	TookUs     float64 `json:"took_us,omitempty"`

	// clock_ok: the driver's wall clock as its runtime reads it, in unix
	// milliseconds.
	NowMs float64 `json:"now_ms,omitempty"`

	// not_acquired
	Reason string `json:"reason,omitempty"`

	// error (Definite is required there), lease_lost (Text)
	Definite *bool  `json:"definite,omitempty"`
	Code     string `json:"code,omitempty"`
	Text     string `json:"text,omitempty"`
}

// Redis is where the driver's library connects: init's "redis".
type Redis struct {
	Mode       string          `json:"mode"`
	Addrs      []string        `json:"addrs"`
	MasterName string          `json:"master_name"`
	Username   string          `json:"username"`
	Password   *PasswordSource `json:"password,omitempty"`
	TLS        *TLS            `json:"tls,omitempty"`
}

// PasswordSource says where the password is: an environment variable or
// a file, never the message itself. nil: no password.
type PasswordSource struct {
	Env  string `json:"env,omitempty"`
	File string `json:"file,omitempty"`
}

// Read returns the password: the variable's value, or the file's text
// without its trailing newline. A nil source has the empty password.
func (p *PasswordSource) Read() (string, error) {
	switch {
	case p == nil:
		return "", nil
	case p.Env != "":
		v, ok := os.LookupEnv(p.Env)
		if !ok {
			return "", fmt.Errorf("password: $%s is not set", p.Env)
		}
		return v, nil
	case p.File != "":
		b, err := os.ReadFile(p.File)
		if err != nil {
			return "", fmt.Errorf("password: %w", err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return "", errors.New("password: names neither env nor file")
}

// TLS are the TLS settings; nil for plain TCP.
type TLS struct {
	CAFile             string `json:"ca_file"`
	CertFile           string `json:"cert_file"`
	KeyFile            string `json:"key_file"`
	ServerName         string `json:"server_name"`
	InsecureSkipVerify bool   `json:"insecure_skip_verify"`
}

// LockOptions are init's "lock": the lock as the run configures it.
type LockOptions struct {
	// TTLMs is the lease time; 0: the library's own default.
	TTLMs float64 `json:"ttl_ms"`
	Retry Retry   `json:"retry"`
	// AcquireTimeoutMs bounds one blocking acquire.
	AcquireTimeoutMs float64 `json:"acquire_timeout_ms"`
	// Limit is a semaphore's permits, 1 for a lock.
	Limit int `json:"limit"`
	// Renew asks for the library's automatic renewal.
	Renew bool `json:"renew"`
}

// Retry is the retry policy of a blocking acquire.
type Retry struct {
	// Kind is none, spin, fixed, exp, random or library (keep the
	// library's own).
	Kind  string  `json:"kind"`
	MinMs float64 `json:"min_ms"`
	MaxMs float64 `json:"max_ms"`
}

// RetryLibrary keeps the library's own retry.
const RetryLibrary = "library"

// Capabilities are what a driver's library can do: init_ok's.
type Capabilities struct {
	Extend    bool `json:"extend"`
	Renewal   bool `json:"renewal"`
	Fencing   bool `json:"fencing"`
	Semaphore bool `json:"semaphore"`
	Blocking  bool `json:"blocking"`
	// Interrupt: the driver honours a release's interrupt (a JVM's
	// Thread.interrupt on the releasing thread). Optional.
	Interrupt bool     `json:"interrupt,omitempty"`
	Modes     []string `json:"modes"`
}

// Supports reports whether mode is among c's modes.
func (c Capabilities) Supports(mode string) bool {
	for _, m := range c.Modes {
		if m == mode {
			return true
		}
	}
	return false
}

// Millis is d as a protocol duration: milliseconds, maybe fractional.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Micros is d in microseconds, as took_us.
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// FromMillis is a protocol duration in milliseconds as a time.Duration.
func FromMillis(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// FromMicros is took_us as a time.Duration.
func FromMicros(us float64) time.Duration { return time.Duration(us * float64(time.Microsecond)) }

// Int64 returns a pointer to v, for ID and InReplyTo.
func Int64(v int64) *int64 { return &v }

// Int returns a pointer to v, for Client.
func Int(v int) *int { return &v }

// Bool returns a pointer to v, for Definite.
func Bool(v bool) *bool { return &v }
