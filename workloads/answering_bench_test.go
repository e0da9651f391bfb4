package workloads_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// answeringConn answers at once as Redis answers an uncontended set-nx-ex
// cycle: OK to the SET, 1 to the DEL. It stands for no Redis behaviour;
// it takes Redis and the client library out of a benchmark, so that what
// is left is lockbench's own CPU per cycle.
type answeringConn struct{}

func (answeringConn) Do(_ context.Context, cmd variants.Command) (any, error) {
	if cmd.Argv[0] == "SET" {
		return "OK", nil
	}
	return int64(1), nil
}

func (answeringConn) DoMulti(_ context.Context, cmds ...variants.Command) []variants.Result {
	return make([]variants.Result, len(cmds))
}

func (c answeringConn) Dedicated(_ context.Context, _ string, fn func(variants.Conn) error) error {
	return fn(c)
}

// BenchmarkSetNXEXWithoutRedis is lockbench's own CPU per set-nx-ex cycle
// (calibrate's), its commands answered at once by answeringConn: variant,
// set-nx-ex's Acquire and Release in a loop (its command building, lease
// and counting); harness, the whole closed loop around it as a calibrate
// cell runs it (50 clients, a key each, margins, live counters).
func BenchmarkSetNXEXWithoutRedis(b *testing.B) {
	const clients = 50
	config := func(counted *variants.Counted, env workloads.ClientEnv) variants.Config {
		return variants.Config{Conn: counted.Wrap(answeringConn{}), Prefix: "lbbench:answering:", TTL: 10 * time.Second,
			Clock: env.Clock, OnAttempt: env.OnAttempt, AtStep: env.AtStep, Note: env.Note}
	}
	b.Run("variant", func(b *testing.B) {
		l, err := variants.New("set-nx-ex", config(variants.NewCounted(answeringConn{}), workloads.ClientEnv{OnAttempt: func(error) {}}))
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for b.Loop() {
			lease, err := l.Acquire(ctx, "lock:1")
			if err == nil {
				err = lease.Release(ctx)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("harness", func(b *testing.B) {
		counted := variants.NewCounted(answeringConn{})
		spec := workloads.Spec{Clients: clients, KeyPerClient: true, Ops: int64(b.N), LeaseTTL: 10 * time.Second, Live: &workloads.Live{}}
		newLock := func(env workloads.ClientEnv) (variants.Lock, error) {
			return variants.New("set-nx-ex", config(counted, env))
		}
		b.ResetTimer()
		out, err := workloads.Run(context.Background(), spec, newLock, oracle.New(clients, 1), nil)
		if err != nil {
			b.Fatal(err)
		}
		if out.Measured.Acquisitions != int64(b.N) {
			b.Fatalf("%d acquisitions, want %d", out.Measured.Acquisitions, b.N)
		}
	})
}
