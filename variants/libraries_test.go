package variants_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// The variants that wrap a lock library keep its retry, say which
// settings they use, and name the client libraries they run on.
func TestLibraryVariantsInfo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		clients []string
		own     []string // in Settings with nothing given
	}{
		{"redsync", nil, []string{"expiry 8s", "32 tries", "50-250ms"}},
		{"redislock", []string{variants.LibGoRedis}, []string{"no retry", "ttl 10s (lockbench's default"}},
		{"rueidislock", []string{variants.LibRueidis}, []string{"key validity 5s", "2 of 3 keys", "invalidations"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := variants.Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if info.DefaultRetry != "" || info.Settings == nil || !slices.Equal(info.Clients, tc.clients) {
				t.Errorf("DefaultRetry %q, Settings set %v, Clients %v; want \"\", true, %v", info.DefaultRetry, info.Settings != nil, info.Clients, tc.clients)
			}
			for _, lib := range []string{variants.LibRueidis, variants.LibGoRedis} {
				if want := len(tc.clients) == 0 || slices.Contains(tc.clients, lib); info.RunsOn(lib) != want {
					t.Errorf("RunsOn(%s) = %v; want %v", lib, !want, want)
				}
			}
			if info.Claims.Fencing {
				t.Error("a library lock claims fencing")
			}
			cfg := variants.Config{Conn: nopConn{}, Prefix: "p:"}
			own := variants.Settings(tc.name, cfg)
			for _, w := range append(tc.own, "library defaults") {
				if !strings.Contains(own, w) {
					t.Errorf("settings %q do not say %q", own, w)
				}
			}
			cfg.TTL = 3 * time.Second
			cfg.Retry, _ = variants.ParseRetry("fixed:2ms")
			given := variants.Settings(tc.name, cfg)
			for _, w := range []string{"3s (--ttl)", "fixed:2ms (--retry)"} {
				if !strings.Contains(given, w) {
					t.Errorf("settings %q do not say %q", given, w)
				}
			}
			if _, err := variants.New(tc.name, variants.Config{Conn: nopConn{}, Prefix: "p:"}); err == nil {
				t.Error("New on a connection of neither client library succeeded")
			}
		})
	}
	if s := variants.Settings("lua-release", variants.Config{Conn: nopConn{}, Prefix: "p:"}); s != "" {
		t.Errorf("lua-release's settings = %q; want none (it follows the run)", s)
	}
}

// A library lock's key lives as long as the library's default unless the
// run gives a TTL.
func TestLibraryTTL(t *testing.T) {
	for _, tc := range []struct {
		variant  string
		key      string // under the harness's prefix
		ownTTL   time.Duration
		lifetime time.Duration // how far PTTL may have fallen
	}{
		{"redsync", "res", 8 * time.Second, time.Second},
		{"redislock", "res", 10 * time.Second, time.Second}, // lockbench's default: redislock has none
		{"rueidislock", "rueidislock:0:res", 5 * time.Second, 3 * time.Second},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			forVariant(t, tc.variant, func(t *testing.T, h *harness) {
				for _, given := range []bool{false, true} {
					want, cfg := tc.ownTTL, variants.Config{}
					if given {
						want, cfg.TTL = 3*time.Second, 3*time.Second
					}
					lease := h.acquire(t, h.lock(t, cfg), "res")
					pttl, _ := h.do(t, "PTTL", h.prefix+tc.key).(int64)
					if got := time.Duration(pttl) * time.Millisecond; got > want || got < want-tc.lifetime {
						t.Errorf("TTL given %v: PTTL %v; want about %v", given, got, want)
					}
					if err := lease.Release(h.ctx); err != nil {
						t.Fatalf("Release: %v", err)
					}
				}
			})
		})
	}
}

// rueidislock learns from an invalidation that its keys were taken over,
// tells the holder (Lost), and its release says the lease was lost and
// leaves the other values alone.
func TestRueidislockReportsLoss(t *testing.T) {
	forVariant(t, "rueidislock", func(t *testing.T, h *harness) {
		lease := h.acquire(t, h.lock(t, variants.Config{}), "res")
		var keys []string
		for _, k := range h.keys(t) {
			keys = append(keys, k.(string))
		}
		if len(keys) < 2 {
			t.Fatalf("keys while held: %v; want at least 2 of 3", keys)
		}
		for _, k := range keys {
			h.do(t, "SET", k, "someone-else")
			t.Cleanup(func() { _, _ = h.conn.Do(context.Background(), variants.Cmd("DEL", k)) })
		}
		select {
		case <-lease.Lost():
		case <-time.After(2 * time.Second):
			t.Fatal("Lost() not closed 2s after the lock's keys were overwritten")
		}
		if err := lease.Release(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
			t.Errorf("Release of a lost lease = %v; want ErrLeaseLost", err)
		}
		for _, k := range keys {
			if got := h.do(t, "GET", k); got != "someone-else" {
				t.Errorf("after Release, %s holds %#v; want the other value kept", k, got)
			}
		}
	})
}
