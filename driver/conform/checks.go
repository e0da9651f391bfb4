package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/variants"
)

// checkInit starts the driver: init_ok must name its library, version and
// language, and its modes must hold single (the suite's server).
func checkInit(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		s.broken = err
		return "", err
	}
	info := p.Info()
	s.info = info
	var missing []string
	for field, value := range map[string]string{"version": info.Version, "language": info.Language} {
		if value == "" {
			missing = append(missing, field)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("init_ok without %s", strings.Join(missing, ", "))
	}
	if !info.Capabilities.Supports(wire.ModeSingle) {
		return "", fmt.Errorf("modes %v: every driver serves single", info.Capabilities.Modes)
	}
	return fmt.Sprintf("%s %s (%s), capabilities: %s; modes: %s", info.Library, info.Version, info.Language,
		capabilities(info), strings.Join(info.Capabilities.Modes, ", ")), nil
}

// checkRoundTrip acquires a free lock, extends it (or sees extend refused
// by a driver without it), releases it, finds a second release refused,
// and acquires it again from another client.
func checkRoundTrip(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	a, b, k := p.Client(0), p.Client(1), s.key("round-trip")
	began := time.Now()
	lease, err := a.Acquire(ctx, k)
	rtt := time.Since(began)
	if err != nil {
		return "", fmt.Errorf("acquire of a free lock: %w", err)
	}
	extended := "extend refused (no extend capability)"
	_, err = a.Extend(ctx, k, lease.Token, 5*time.Second)
	switch {
	case s.info.Capabilities.Extend && err != nil:
		return "", fmt.Errorf("extend of a held lease: %w", err)
	case s.info.Capabilities.Extend:
		extended = "extended"
	case !errors.Is(err, driver.ErrUnsupported) || !errors.Is(err, driver.ErrDefinite):
		return "", fmt.Errorf("extend by a driver without the extend capability: %v, want an error \"unsupported\", definite", err)
	}
	if _, err := lease.Release(ctx); err != nil {
		return "", fmt.Errorf("release of a held lease: %w", err)
	}
	if _, err := lease.Release(ctx); !errors.Is(err, variants.ErrLeaseLost) {
		return "", fmt.Errorf("a second release of the same lease: %v, want lease_gone", err)
	}
	again, err := b.Acquire(ctx, k)
	if err != nil {
		return "", fmt.Errorf("acquire after the release, by another client: %w", err)
	}
	if _, err := again.Release(ctx); err != nil {
		return "", fmt.Errorf("release: %w", err)
	}
	took := "not reported"
	if lease.Took > 0 {
		took = lease.Took.Round(time.Microsecond).String()
	}
	return fmt.Sprintf("acquired in %v (the library's call: %s), %s, released; a second release: lease_gone",
		rtt.Round(time.Microsecond), took, extended), nil
}

// checkExclusion: while client 0 holds a lock client 1 cannot take it;
// once it is released client 1 can.
func checkExclusion(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	a, b, k := p.Client(0), p.Client(1), s.key("exclusion")
	held, err := a.Acquire(ctx, k)
	if err != nil {
		return "", fmt.Errorf("acquire of a free lock: %w", err)
	}
	second, err := b.Acquire(ctx, k)
	if err == nil {
		_, _ = second.Release(ctx)
		_, _ = held.Release(ctx)
		return "", fmt.Errorf("client 1 acquired %s while client 0 held it: no mutual exclusion", k)
	}
	if !errors.Is(err, variants.ErrBusy) && !errors.Is(err, variants.ErrTimeout) {
		_, _ = held.Release(ctx)
		return "", fmt.Errorf("client 1 on a held lock: %v, want not_acquired", err)
	}
	var no *driver.NotAcquiredError
	refused := "an error"
	if errors.As(err, &no) {
		refused = fmt.Sprintf("not_acquired %q", no.Reason)
	}
	if _, err := held.Release(ctx); err != nil {
		return "", fmt.Errorf("client 0's release: %w", err)
	}
	second, err = b.Acquire(ctx, k)
	if err != nil {
		return "", fmt.Errorf("client 1, once client 0 released: %w", err)
	}
	if _, err := second.Release(ctx); err != nil {
		return "", fmt.Errorf("client 1's release: %w", err)
	}
	return fmt.Sprintf("client 1 refused (%s) while client 0 held the lock, then acquired it once released", refused), nil
}

// checkForeignToken: client 1's release of client 0's lease, with client
// 0's token or a made-up one, is refused and deletes nothing.
func checkForeignToken(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	a, b, k := p.Client(0), p.Client(1), s.key("foreign-token")
	held, err := a.Acquire(ctx, k)
	if err != nil {
		return "", fmt.Errorf("acquire of a free lock: %w", err)
	}
	for _, token := range []string{held.Token, "lockbench-foreign-token"} {
		_, err := b.Release(ctx, k, token)
		if err == nil || !errors.Is(err, variants.ErrLeaseLost) && !errors.Is(err, driver.ErrDefinite) {
			_, _ = held.Release(ctx)
			return "", fmt.Errorf("client 1's release with token %q of client 0's lock: %v, want lease_gone (or a definite error)", token, err)
		}
	}
	if _, err := held.Release(ctx); err != nil {
		return "", fmt.Errorf("client 0's release after the refused ones: %v (they deleted its lock)", err)
	}
	return "client 1's releases (client 0's token, a made-up one) refused; client 0's lock still held, then released", nil
}

// checkPrefix: while a lock is held, every key on the server starts with
// the run's prefix, or names a key under it as its hash tag: Redisson's
// unlock latch, redisson_unlock_latch:{LOCK}:ID, lives on for a moment
// after an unlock (.ci/run once found one left by the check before).
func checkPrefix(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	held, err := p.Client(0).Acquire(ctx, s.key("prefix"))
	if err != nil {
		return "", fmt.Errorf("acquire of a free lock: %w", err)
	}
	defer func() { _, _ = held.Release(ctx) }()
	conn, err := clients.New(ctx, s.access.Endpoints[0], clients.Options{})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	reply, err := conn.Do(ctx, variants.Bare("KEYS", "*"))
	if err != nil {
		return "", fmt.Errorf("KEYS: %w", err)
	}
	keys, _ := reply.([]any)
	var outside []string
	for _, k := range keys {
		if k, _ := k.(string); !strings.HasPrefix(k, s.prefix) && !strings.Contains(k, "{"+s.prefix) {
			outside = append(outside, k)
		}
	}
	switch {
	case len(outside) > 0:
		return "", fmt.Errorf("keys outside the prefix %s: %s", s.prefix, strings.Join(outside, ", "))
	case len(keys) == 0:
		return "", errors.New("no key on the server while a lock is held")
	}
	noun := "keys"
	if len(keys) == 1 {
		noun = "key"
	}
	return fmt.Sprintf("%d %s while a lock is held, all under %s", len(keys), noun, s.prefix), nil
}

// checkTimeout: an acquire of a lock held elsewhere waits out the acquire
// timeout and says "timeout" (a driver without blocking acquire: "busy").
func checkTimeout(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	a, b, k := p.Client(0), p.Client(1), s.key("timeout")
	held, err := a.Acquire(ctx, k)
	if err != nil {
		return "", fmt.Errorf("acquire of a free lock: %w", err)
	}
	began := time.Now()
	second, err := b.Acquire(ctx, k)
	waited := time.Since(began)
	if second != nil {
		_, _ = second.Release(ctx)
	}
	_, _ = held.Release(ctx)
	var no *driver.NotAcquiredError
	want, timeout := wire.ReasonTimeout, s.o.AcquireTimeout
	if !s.info.Capabilities.Blocking {
		want = wire.ReasonBusy
	}
	switch {
	case !errors.As(err, &no) || no.Reason != want:
		return "", fmt.Errorf("client 1 on a held lock with a %v acquire timeout: %v, want not_acquired %q", timeout, err, want)
	case want == wire.ReasonTimeout && waited < timeout*8/10:
		return "", fmt.Errorf("not_acquired \"timeout\" after %v, before the acquire timeout of %v", waited.Round(time.Millisecond), timeout)
	}
	return fmt.Sprintf("not_acquired %q after %v (acquire timeout %v)", no.Reason, waited.Round(time.Millisecond), timeout), nil
}

// checkInFlight: while one client waits on a held lock, InFlight others
// acquire and release locks of their own at once; each is answered
// before the waiter is, so the driver does not serve one request at a
// time.
func checkInFlight(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	n := s.o.InFlight
	held, err := p.Client(n).Acquire(ctx, s.key("in-flight-held"))
	if err != nil {
		return "", fmt.Errorf("acquire of a free lock: %w", err)
	}
	defer func() { _, _ = held.Release(ctx) }()
	type outcome struct {
		err error
		at  time.Time
	}
	waiter := make(chan outcome, 1)
	go func() {
		lease, err := p.Client(n+1).Acquire(ctx, s.key("in-flight-held"))
		if lease != nil {
			_, _ = lease.Release(ctx)
			err = fmt.Errorf("the waiter acquired the lock client %d held", n)
		}
		waiter <- outcome{err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond) // the waiter's request goes first
	began := time.Now()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		last time.Time
		errs []error
	)
	for i := range n {
		wg.Go(func() {
			lease, err := p.Client(i).Acquire(ctx, s.key(fmt.Sprint("in-flight-", i)))
			if err == nil {
				_, err = lease.Release(ctx)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("client %d: %w", i, err))
			}
			if now := time.Now(); now.After(last) {
				last = now
			}
		})
	}
	wg.Wait()
	w := <-waiter
	switch {
	case len(errs) > 0:
		return "", fmt.Errorf("%d of %d clients failed: %w", len(errs), n, errors.Join(errs...))
	case w.err != nil && !errors.Is(w.err, variants.ErrBusy) && !errors.Is(w.err, variants.ErrTimeout):
		return "", w.err
	case s.info.Capabilities.Blocking && w.at.Before(last):
		return "", fmt.Errorf("the %d clients were answered only after the waiting acquire ended: requests wait for a blocked library call", n)
	}
	return fmt.Sprintf("%d clients acquired and released locks of their own in %v while one waited on a held lock", n, last.Sub(began).Round(time.Millisecond)), nil
}

// checkMalformed: a line that is no JSON, an acquire without a key and a
// request of an unknown type are each answered with a definite error
// ("malformed"), and the driver serves on.
func checkMalformed(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	if err := p.WriteLine([]byte("this is not a request")); err != nil {
		return "", fmt.Errorf("write a line of no JSON: %w", err)
	}
	select {
	case m := <-p.StrayErrors():
		if m.Definite == nil || !*m.Definite || m.Code != wire.CodeMalformed {
			return "", fmt.Errorf("the error reply to a line of no JSON is not definite and \"malformed\": %+v", m)
		}
	case <-time.After(10 * time.Second):
		return "", errors.New("no error reply (in_reply_to null) to a line of no JSON within 10s")
	case <-ctx.Done():
		return "", ctx.Err()
	}
	c := p.Client(0)
	for what, msg := range map[string]wire.Message{
		"an acquire without a key": {Type: wire.TypeAcquire},
		"an unknown type":          {Type: "frobnicate", Key: s.key("malformed")},
	} {
		reply, err := c.Send(ctx, msg)
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		if reply.Type != wire.TypeError || reply.Definite == nil || !*reply.Definite || reply.Code != wire.CodeMalformed {
			return "", fmt.Errorf("%s: reply %+v, want an error \"malformed\", definite", what, reply)
		}
	}
	lease, err := c.Acquire(ctx, s.key("malformed"))
	if err == nil {
		_, err = lease.Release(ctx)
	}
	if err != nil {
		return "", fmt.Errorf("acquire and release after the malformed requests: %w", err)
	}
	return "a line of no JSON, an acquire without a key and an unknown type: each a definite \"malformed\" error; served on", nil
}

// checkExit closes the driver's stdin: it must exit by itself within the
// protocol's 2 s (and a little).
func checkExit(ctx context.Context, s *suite) (string, error) {
	p, err := s.process(ctx)
	if err != nil {
		return "", err
	}
	s.proc = nil
	began := time.Now()
	if err := p.Close(); err != nil {
		return "", err
	}
	return fmt.Sprintf("exited %v after its stdin closed", time.Since(began).Round(time.Millisecond)), nil
}
