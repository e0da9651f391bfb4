package runner

import (
	"testing"

	"github.com/lockbench/lockbench/plan"
)

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

// A session's clients are sized to the plan's largest client count: the
// go-redis pool by PoolSize, rueidis' rings by Callers.
func TestClientOptions(t *testing.T) {
	for _, lib := range []string{"rueidis", "go-redis"} {
		p := plan.Plan{Client: lib, Clients: []int{16, 10000, 1000}}
		got := clientOptions(p)
		if got.Library != lib || got.Callers != 10000 || got.PoolSize != PoolSize(10000) {
			t.Errorf("clientOptions(%s, clients 16,10000,1000) = %+v; want library %s, Callers 10000, PoolSize %d", lib, got, lib, PoolSize(10000))
		}
	}
}
