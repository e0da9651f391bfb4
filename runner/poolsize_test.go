package runner

import "testing"

// A run's go-redis pool has a connection per client and as many again,
// up to maxPoolSize.
func TestPoolSize(t *testing.T) {
	for _, tc := range []struct{ clients, want int }{
		{1, 10}, {16, 40}, {50, 108}, {996, 2000}, {1000, maxPoolSize}, {10000, maxPoolSize},
	} {
		if got := PoolSize(tc.clients); got != tc.want {
			t.Errorf("PoolSize(%d) = %d, want %d", tc.clients, got, tc.want)
		}
	}
}
