package topologies

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// PasswordEnv is the environment variable a target's password is read from
// when its URL has none.
const PasswordEnv = "LOCKBENCH_REDIS_PASSWORD"

// Target is an existing server lockbench did not start: it only uses keys
// under its own prefix there and never flushes, reconfigures or stops it.
type Target struct{ ep Endpoint }

var _ Topology = (*Target)(nil)

// ParseTarget parses redis://[user[:password]@]host:port[/db] or rediss://...
func ParseTarget(raw string, tlsInsecure bool) (Endpoint, error) {
	bad := func(why string) (Endpoint, error) {
		return Endpoint{}, fmt.Errorf("%w: %q %s (example: redis://127.0.0.1:6379/0, rediss://user@host:6380)", ErrBadSpec, redact(raw), why)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("is not a URL")
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return bad("must start with redis:// or rediss://")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || host == "" {
		return bad("needs host:port")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return bad("has a bad port")
	}
	ep := Endpoint{Addr: u.Host}
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return bad("has a bad database number")
		}
		ep.DB = n
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return bad("takes no query or fragment")
	}
	if u.User != nil {
		ep.Username = u.User.Username()
		ep.Password, _ = u.User.Password()
	}
	if ep.Password == "" {
		ep.Password = os.Getenv(PasswordEnv)
	}
	if u.Scheme == "rediss" {
		ep.TLS = &tls.Config{ServerName: host, InsecureSkipVerify: tlsInsecure, MinVersion: tls.VersionTLS12}
	}
	return ep, nil
}

// redact hides a password in a URL for messages. Input that is not a URL
// with user info (no scheme, say, or a bad escape) loses everything before
// its last @, where a password may be.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		return u.String()
	}
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return raw
	}
	if scheme, _, ok := strings.Cut(raw[:at], "://"); ok {
		return scheme + "://xxxxx" + raw[at:]
	}
	return "xxxxx" + raw[at:]
}

// OpenTarget returns the topology of an existing server. Whether it answers
// is for the client to find out.
func OpenTarget(raw string, tlsInsecure bool) (*Target, error) {
	ep, err := ParseTarget(raw, tlsInsecure)
	if err != nil {
		return nil, err
	}
	return &Target{ep: ep}, nil
}

func (t *Target) Kind() string          { return "target" }
func (t *Target) Endpoints() []Endpoint { return []Endpoint{t.ep} }
func (t *Target) Managed() bool         { return false }
func (t *Target) Representative() bool  { return true }
func (t *Target) Close() error          { return nil }

// Redacted returns the spec with any password in its target URL masked,
// for records and messages.
func (s Spec) Redacted() Spec {
	s.Target = redact(s.Target)
	return s
}
