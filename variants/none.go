package variants

import "context"

func init() {
	Register(Info{
		Name:         "none",
		Kind:         KindControl,
		Source:       "the oracle's negative control (DESIGN.md); the unlocked ticket sale of seed 002 §1.2",
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

func (l *noLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.acquire(ctx, func(context.Context) (Lease, error) {
		return &lease{release: func(context.Context, string, string) error { return nil }}, nil
	})
}
