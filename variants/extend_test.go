package variants_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// A lua-release lease extended by hand outlives its TTL; one that
// expired cannot be extended.
func TestLuaReleaseExtend(t *testing.T) {
	forVariant(t, "lua-release", func(t *testing.T, h *harness) {
		l := h.lock(t, variants.Config{TTL: 300 * time.Millisecond})
		lease, err := l.Acquire(h.ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		ext, ok := lease.(variants.Extender)
		if !ok {
			t.Fatalf("lua-release's lease %T is no Extender", lease)
		}
		if err := ext.Extend(h.ctx, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		pttl, err := h.conn.Do(h.ctx, variants.Cmd("PTTL", h.prefix+"k"))
		if ms, ok := pttl.(int64); err != nil || !ok || ms < 10_000 {
			t.Errorf("PTTL after extending to 30s: %v, %v", pttl, err)
		}
		if err := lease.Release(h.ctx); err != nil {
			t.Fatal(err)
		}
		expired, err := l.Acquire(h.ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // past its 300ms TTL
		if err := expired.(variants.Extender).Extend(h.ctx, time.Second); !errors.Is(err, variants.ErrLeaseLost) {
			t.Errorf("extend of an expired lease: %v, want lease lost", err)
		}
	})
}
