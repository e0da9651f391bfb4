package workloads

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/variants"
)

// An acquire's outcome in the history: failed where it certainly did not
// take the lock (busy, timed out, a driver's definite error), unknown
// where it may have (a Redis error, a driver's indefinite error, the end
// of the run mid-call).
func TestAcquireOutcome(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want history.Type
	}{
		{context.Background(), nil, history.OK},
		{context.Background(), variants.ErrBusy, history.Fail},
		{context.Background(), fmt.Errorf("gave up: %w", variants.ErrTimeout), history.Fail},
		{context.Background(), errors.Join(errors.New("driver error on acquire (definite)"), variants.ErrDefinite), history.Fail},
		{context.Background(), errors.New("driver error on acquire (indefinite)"), history.Info},
		{context.Background(), &variants.ServerError{Msg: "OOM"}, history.Info},
		{ended, errors.Join(context.Canceled, variants.ErrDefinite), history.Info},
	} {
		if got := acquireOutcome(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%v (context %v): %v, want %v", tc.err, tc.ctx.Err(), got, tc.want)
		}
	}
}
