package variants_test

import (
	"io"
	"testing"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/variants"
)

// BenchmarkAcquireRelease measures uncontended acquire+release cycles of
// every variant on every client library against one local redis-server:
// the floor each design's cost starts from, in cycles/s, in commands sent
// per cycle (cmds/op) and in allocations per cycle (allocs/op, the
// variant's and the client library's).
func BenchmarkAcquireRelease(b *testing.B) {
	conns := connectAll(b)
	for _, lib := range clients.Names {
		for _, v := range variants.Names() {
			b.Run(lib+"/"+v, func(b *testing.B) {
				if info, _ := variants.Lookup(v); !info.RunsOn(lib) {
					b.Skipf("%s does not run on %s", v, lib)
				}
				counted := variants.NewCounted(conns[lib])
				l, err := variants.New(v, variants.Config{Conn: counted, Prefix: "lbbench:" + b.Name() + ":"})
				if err != nil {
					b.Fatal(err)
				}
				if c, ok := l.(io.Closer); ok {
					defer c.Close()
				}
				ctx := b.Context()
				b.ReportAllocs()
				before := counted.Commands()
				for b.Loop() {
					lease, err := l.Acquire(ctx, "res")
					if err != nil {
						b.Fatalf("Acquire: %v", err)
					}
					if err := lease.Release(ctx); err != nil {
						b.Fatalf("Release: %v", err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
				b.ReportMetric(float64(counted.Commands()-before)/float64(b.N), "cmds/op")
			})
		}
	}
}
