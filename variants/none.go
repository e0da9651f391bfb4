package variants

import "context"

func init() {
	Register(Info{
		Name:         "none",
		Kind:         KindControl,
		Source:       "the oracle's negative control (lockbench's docs/measuring.md); the unlocked ticket sale of 【Redis应用】分布式锁 §1.2",
		Summary:      "acquire always succeeds at once without touching Redis",
		DefaultRetry: "none",
		Shapes:       []Shape{ShapeSingle, ShapeCluster, ShapeIndependent},
	}, func(cfg Config) (Lock, error) { return &noLock{base: newBase(cfg)}, nil })
}

// noLock is no lock at all: every acquire succeeds. Under contention the
// oracle must see overlaps and lost updates; if it does not, the oracle is
// broken, not the lock.
type noLock struct{ base }

var _ Lock = (*noLock)(nil)

// noLease is every lease of none: there is nothing to release, and one
// shared lease spares an allocation per acquisition.
var noLease Lease = &lease{release: func(context.Context, string, string) error { return nil }}

// Acquire is base.acquire for a try that always succeeds, without its
// deadline and timer: the harness's own cost is measured on none, so none
// costs nothing itself.
func (l *noLock) Acquire(ctx context.Context, name string) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.cfg.OnAttempt(nil)
	return noLease, nil
}
