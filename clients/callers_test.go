package clients

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// A ring holds a command of each caller, from rueidis' default of 1024
// slots up to 2^16.
func TestRingScale(t *testing.T) {
	for _, tc := range []struct{ callers, want int }{
		{0, rueidis.DefaultRingScale}, {16, 10}, {1024, 10}, {1025, 11},
		{1000, 10}, {5000, 13}, {10000, 14}, {65536, 16}, {1 << 20, maxRingScale},
	} {
		if got := ringScale(tc.callers); got != tc.want {
			t.Errorf("ringScale(%d) = %d, want %d", tc.callers, got, tc.want)
		}
	}
}

// allocated is the bytes the process allocated while fn ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A rueidis client for 10,000 callers builds its pipelining connection
// with a ring of 16,384 slots, and its dedicated connections with
// rueidis' default ring: a dedicated connection costs what one of a
// default client costs, its pipelining connection megabytes more.
func TestRueidisRingFollowsCallers(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	type cost struct{ dial, dedicated uint64 }
	measure := func(callers int) cost {
		var c Client
		var err error
		var got cost
		got.dial = allocated(func() {
			c, err = New(ctx, ep, Options{Library: "rueidis", Callers: callers})
		})
		if err != nil {
			t.Fatalf("New(Callers %d): %v", callers, err)
		}
		defer c.Close()
		if _, opt := c.(*rueidisConn).Rueidis(); opt.RingScaleEachConn != 0 {
			t.Errorf("Callers %d: Rueidis() gives options with RingScaleEachConn %d; want 0, rueidis' default, for the clients built from them", callers, opt.RingScaleEachConn)
		}
		got.dedicated = allocated(func() { // the first dials a connection
			err = c.Dedicated(ctx, "ring", func(conn variants.Conn) error {
				_, err := conn.Do(ctx, variants.Bare("PING"))
				return err
			})
		})
		if err != nil {
			t.Fatalf("Dedicated(Callers %d): %v", callers, err)
		}
		return got
	}
	small, large := measure(0), measure(10000)
	t.Logf("default client: dial %d B, dedicated %d B; 10,000 callers: dial %d B, dedicated %d B",
		small.dial, small.dedicated, large.dial, large.dedicated)
	// 15,360 slots more, each a node, two conditions, a mutex and a
	// channel: well over 2 MB. The second client adds its own connection.
	if large.dial < small.dial+2<<20 {
		t.Errorf("a client for 10,000 callers allocated %d B to connect, a default one %d B: want a ring of 16,384 slots, over 2 MB more", large.dial, small.dial)
	}
	if large.dedicated > small.dedicated*3/2 {
		t.Errorf("a dedicated connection of a client for 10,000 callers allocated %d B, one of a default client %d B: want the default ring", large.dedicated, small.dedicated)
	}
}

// clientID is the id Redis gives conn's connection.
func clientID(ctx context.Context, conn variants.Conn) (int64, error) {
	id, err := conn.Do(ctx, variants.Bare("CLIENT", "ID"))
	if err != nil {
		return 0, err
	}
	return id.(int64), nil
}

// Past maxSharedPool a go-redis client keeps its dedicated connections in
// a pool of their own, PoolSize - maxSharedPool of them: of 8 callers
// that each hold a dedicated connection 4 get one at once and the others
// wait, while ordinary commands run on other connections.
func TestGoRedisDedicatedPool(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	const dedicated = 4
	c, err := New(ctx, ep, Options{Library: "go-redis", PoolSize: maxSharedPool + dedicated})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var (
		mu           sync.Mutex
		dedicatedIDs = map[int64]bool{}
		wg           sync.WaitGroup
		holding      = make(chan struct{}, 2*dedicated)
		release      = make(chan struct{})
		errs         = make(chan error, 2*dedicated)
	)
	for i := range 2 * dedicated {
		wg.Go(func() {
			errs <- c.Dedicated(ctx, fmt.Sprint("pool-", i), func(conn variants.Conn) error {
				id, err := clientID(ctx, conn)
				mu.Lock()
				dedicatedIDs[id] = true
				mu.Unlock()
				holding <- struct{}{}
				<-release
				return err
			})
		})
	}
	for range dedicated {
		select {
		case <-holding:
		case <-ctx.Done():
			t.Fatalf("%d callers did not get %d dedicated connections: %v", 2*dedicated, dedicated, ctx.Err())
		}
	}
	// The dedicated pool is taken: ordinary commands still run, each on
	// a connection no dedicated caller holds.
	for range 2 * dedicated {
		id, err := clientID(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if dedicatedIDs[id] {
			t.Errorf("an ordinary command ran on connection %d, one of the dedicated pool's", id)
		}
		mu.Unlock()
	}
	mu.Lock()
	held := len(dedicatedIDs)
	mu.Unlock()
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if held != dedicated {
		t.Errorf("%d callers at once held %d dedicated connections; want the pool's %d", 2*dedicated, held, dedicated)
	}
	if len(dedicatedIDs) != dedicated {
		t.Errorf("the dedicated callers used %d connections; want the pool's %d, used again", len(dedicatedIDs), dedicated)
	}
}
