package topologies

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/inputerr"
)

// PasswordEnv is the environment variable the servers' password is read
// from (Spec.Password), unless a file gives it.
const PasswordEnv = "LOCKBENCH_REDIS_PASSWORD"

// ReadPassword returns the servers' password: the first line of file
// (--password-file), or without a file $LOCKBENCH_REDIS_PASSWORD (PasswordEnv).
// Its errors wrap ErrBadSpec and name --password-file, never the password.
func ReadPassword(file string) (string, error) {
	if file == "" {
		return os.Getenv(PasswordEnv), nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", inputerr.Errorf(ErrBadSpec, "--password-file: %w", err)
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	if line = strings.TrimSuffix(line, "\r"); line == "" {
		return "", inputerr.Errorf(ErrBadSpec, "--password-file: %s has an empty first line (want the password)", file)
	}
	return line, nil
}

// EvenMastersWarning says that an even number of independent masters (a
// Redlock topology) tolerates no more failures than one fewer; "" for any
// other spec.
func EvenMastersWarning(spec Spec) string {
	if spec.Mode() != ModeIndependent {
		return ""
	}
	n := len(spec.Targets)
	if kind, params, err := spec.LocalParams(); err == nil && kind == "redlock" {
		n = params["nodes"]
	}
	if n%2 != 0 {
		return ""
	}
	return fmt.Sprintf("%d independent masters tolerate no more failures than %d (a majority of %d needs %d)", n, n-1, n, n/2+1)
}

// ParseTarget parses redis://[user@]host:port[/db] or rediss://... A URL
// with a password is refused: given as a flag value it would show in the
// process list and the shell's history. The password comes from
// Spec.Password instead.
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
		if _, has := u.User.Password(); has {
			return bad("has a password, which would show in the process list: give it in $" + PasswordEnv + " or a file (--password-file)")
		}
		ep.Username = u.User.Username()
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

// splitAddr splits host:port.
func splitAddr(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || host == "" {
		return "", 0, fmt.Errorf("bad port in %q", addr)
	}
	return host, p, nil
}
