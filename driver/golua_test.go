package driver_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// go-lua's init_ok, then the life of one lease: acquired, extended,
// released, gone; a second client excluded while it is held, busy with a
// policy that does not wait and timed out with one that does.
func TestGoLuaLease(t *testing.T) {
	cfg := config(t)
	cfg.AcquireTimeout = 300 * time.Millisecond
	cfg.Retry = variants.RetryPolicy{Kind: variants.RetryFixed, Min: 10 * time.Millisecond, Max: 10 * time.Millisecond}
	p := start(t, drivertest.GoLua(t), cfg)
	info := p.Info()
	if info.Name != "go-lua" || info.Library == "" || info.Version == "" || info.Language == "" ||
		!info.Capabilities.Extend || !info.Capabilities.Blocking || info.Capabilities.Renewal || !info.Capabilities.Supports("cluster") {
		t.Errorf("init_ok: %+v", info)
	}
	ctx := context.Background()
	a, b := p.Client(0), p.Client(1)
	lease, err := a.Acquire(ctx, key("k"))
	if err != nil {
		t.Fatal(err)
	}
	if lease.Token == "" || lease.Validity <= 0 || lease.Validity > 10*time.Second || lease.Took <= 0 {
		t.Errorf("lease %+v: want a token, a validity within the default 10 s TTL and the call's time", lease)
	}
	began := time.Now()
	_, err = b.Acquire(ctx, key("k"))
	var no *driver.NotAcquiredError
	if !errors.Is(err, variants.ErrTimeout) || !errors.As(err, &no) || no.Took < 250*time.Millisecond {
		t.Errorf("second client on a held lock: %v (%+v), want a timeout after the 300ms acquire timeout", err, no)
	}
	if waited := time.Since(began); waited < 250*time.Millisecond {
		t.Errorf("the timed-out acquire returned after %v, before its acquire timeout", waited)
	}
	if v, err := a.Extend(ctx, lease.Key, lease.Token, 20*time.Second); err != nil || v < 10*time.Second {
		t.Errorf("extend: %v, %v; want a validity near 20s", v, err)
	}
	if _, err := b.Release(ctx, lease.Key, lease.Token); !errors.Is(err, variants.ErrLeaseLost) {
		t.Errorf("another client's release of the lease: %v, want lease gone", err)
	}
	if took, err := lease.Release(ctx); err != nil || took <= 0 {
		t.Errorf("release: %v, %v", took, err)
	}
	if _, err := lease.Release(ctx); !errors.Is(err, variants.ErrLeaseLost) {
		t.Errorf("second release: %v, want lease gone", err)
	}
	if _, err := a.Extend(ctx, lease.Key, lease.Token, time.Second); !errors.Is(err, variants.ErrLeaseLost) {
		t.Errorf("extend after release: %v, want lease gone", err)
	}
	second, err := b.Acquire(ctx, key("k"))
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if second.Token == lease.Token {
		t.Errorf("two leases with one token %q", lease.Token)
	}
	if _, err := second.Release(ctx); err != nil {
		t.Error(err)
	}
	// A request longer than go-lua's read buffer (64 KB) is read whole.
	long, err := a.Acquire(ctx, key(strings.Repeat("k", 200<<10)))
	if err != nil {
		t.Fatalf("acquire of a 200 KB key: %v", err)
	}
	if _, err := long.Release(ctx); err != nil {
		t.Errorf("release of a 200 KB key: %v", err)
	}
}

// A policy that does not wait says busy at once.
func TestGoLuaBusy(t *testing.T) {
	cfg := config(t)
	cfg.Retry = variants.RetryPolicy{Kind: variants.RetryNone}
	p := start(t, drivertest.GoLua(t), cfg)
	ctx := context.Background()
	if _, err := p.Client(0).Acquire(ctx, key("b")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client(1).Acquire(ctx, key("b")); !errors.Is(err, variants.ErrBusy) {
		t.Errorf("second client with retry none: %v, want busy", err)
	}
}

// 64 clients on 64 keys, all at once, while a 65th waits on a held lock:
// every one of the 64 is answered before the waiter's timeout, so the
// driver serves requests while one blocks.
func TestGoLuaManyInFlight(t *testing.T) {
	cfg := config(t)
	cfg.Clients = 66
	cfg.AcquireTimeout = 3 * time.Second
	p := start(t, drivertest.GoLua(t), cfg)
	ctx := context.Background()
	if _, err := p.Client(64).Acquire(ctx, key("held")); err != nil {
		t.Fatal(err)
	}
	waiter := make(chan error, 1)
	go func() {
		_, err := p.Client(65).Acquire(ctx, key("held"))
		waiter <- err
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			c := p.Client(i)
			lease, err := c.Acquire(ctx, key(fmt.Sprint("k", i)))
			if err == nil {
				_, err = lease.Release(ctx)
			}
			if err != nil {
				errs <- fmt.Errorf("client %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	select {
	case err := <-waiter:
		t.Errorf("the waiter was answered (%v) before the 64 others: requests were served one at a time", err)
	default:
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := <-waiter; !errors.Is(err, variants.ErrTimeout) {
		t.Errorf("waiter: %v, want timeout", err)
	}
}

// A malformed request gets a definite error reply naming what is wrong,
// a line that is no JSON an error with no in_reply_to, and the driver
// serves on.
func TestGoLuaMalformed(t *testing.T) {
	p := start(t, drivertest.GoLua(t), config(t))
	ctx := context.Background()
	reply, err := p.Client(0).Send(ctx, wire.Message{Type: wire.TypeAcquire})
	if err != nil || reply.Type != wire.TypeError || reply.Definite == nil || !*reply.Definite || reply.Code != wire.CodeMalformed {
		t.Errorf("acquire without a key: %+v, %v", reply, err)
	}
	if err := p.WriteLine([]byte("{not json")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-p.StrayErrors():
		if m.Code != wire.CodeMalformed || m.InReplyTo != nil {
			t.Errorf("reply to a line of no JSON: %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Error("no error reply to a line of no JSON")
	}
	reply, err = p.Client(0).Send(ctx, wire.Message{Type: "steal", Key: key("x")})
	if err != nil || reply.Type != wire.TypeError || reply.Code != wire.CodeMalformed {
		t.Errorf("unknown type: %+v, %v", reply, err)
	}
	lease, err := p.Client(0).Acquire(ctx, key("after"))
	if err != nil {
		t.Fatalf("acquire after malformed requests: %v", err)
	}
	if _, err := lease.Release(ctx); err != nil {
		t.Error(err)
	}
	if err := p.Err(); err != nil {
		t.Errorf("the process failed: %v", err)
	}
}

// What go-lua cannot serve it refuses in init: renewal, semaphores,
// independent masters.
func TestGoLuaRefuses(t *testing.T) {
	for name, change := range map[string]func(*driver.Config){
		"renew":   func(c *driver.Config) { c.Renew = true },
		"limit":   func(c *driver.Config) { c.Limit = 3 },
		"masters": func(c *driver.Config) { c.Redis.Mode = wire.ModeMasters },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := config(t)
			change(&cfg)
			p, err := driver.Start(context.Background(), drivertest.GoLua(t), cfg)
			if err == nil {
				p.Close()
				t.Fatal("started")
			}
			if !errors.Is(err, driver.ErrUnsupported) || !errors.Is(err, driver.ErrDefinite) {
				t.Errorf("%v: want unsupported, definite", err)
			}
		})
	}
}

// Closed, go-lua exits by itself when its stdin closes.
func TestGoLuaExitsOnStdinClose(t *testing.T) {
	p := start(t, drivertest.GoLua(t), config(t))
	if err := p.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := p.Client(0).Acquire(context.Background(), key("k")); !errors.Is(err, driver.ErrClosed) || !errors.Is(err, driver.ErrDefinite) {
		t.Errorf("acquire after close: %v, want closed, definite", err)
	}
}

// 16 clients acquire and release as fast as they can: no reply is lost,
// doubled or misrouted on either side's batched writes.
func TestGoLuaStress(t *testing.T) {
	cfg := config(t)
	cfg.Clients = 16
	p := start(t, drivertest.GoLua(t), cfg)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for c := range 16 {
		wg.Go(func() {
			for i := range 300 {
				lease, err := p.Client(c).Acquire(ctx, key(fmt.Sprint("s", c)))
				if err == nil {
					_, err = lease.Release(ctx)
				}
				if err != nil {
					errs <- fmt.Errorf("client %d, cycle %d: %w", c, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// go-lua serves a Redis Cluster (keys on every master) and a master found
// through Sentinel, as init's modes say.
func TestGoLuaModes(t *testing.T) {
	for topology, mode := range map[string]string{"local:cluster": wire.ModeCluster, "local:sentinel?replicas=1&sentinels=1": wire.ModeSentinel} {
		t.Run(topology, func(t *testing.T) {
			cfg := config(t)
			cfg.Redis = driver.RedisOf(topotest.Start(t, topology).Access())
			if cfg.Redis.Mode != mode {
				t.Fatalf("mode %q, want %q", cfg.Redis.Mode, mode)
			}
			cfg.Retry = variants.RetryPolicy{Kind: variants.RetryNone}
			p := start(t, drivertest.GoLua(t), cfg)
			ctx := context.Background()
			for i := range 12 { // spread over the cluster's slots
				lease, err := p.Client(0).Acquire(ctx, key(fmt.Sprint("m", i)))
				if err != nil {
					t.Fatalf("%s: acquire %d: %v", cfg.Redis.Mode, i, err)
				}
				if _, err := p.Client(1).Acquire(ctx, lease.Key); !errors.Is(err, variants.ErrBusy) {
					t.Errorf("%s: a second client on %s: %v, want busy", cfg.Redis.Mode, lease.Key, err)
				}
				if _, err := lease.Release(ctx); err != nil {
					t.Errorf("%s: release %d: %v", cfg.Redis.Mode, i, err)
				}
			}
		})
	}
}
