package progress

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/workloads"
)

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestExporterServes(t *testing.T) {
	e := NewExporter()
	srv, err := Listen("127.0.0.1:0", e)
	if err != nil {
		t.Fatal(err)
	}
	first, second := &workloads.Live{}, &workloads.Live{}
	e.Cell(Cell{Variant: "lua-release", Clients: 8, Live: first})
	feed(first, 3, 300*time.Microsecond)
	first.Shard(0).BusyTry()
	first.Shard(0).TimedOut()
	e.Cell(Cell{Variant: "none", Clients: 8, Live: second})
	feed(second, 2, 2*time.Millisecond)
	// A repetition of the first cell adds to its counters.
	again := &workloads.Live{}
	e.Cell(Cell{Variant: "lua-release", Clients: 8, Live: again})
	feed(again, 1, 20*time.Millisecond)
	again.Shard(1).Failed()
	body := scrape(t, srv.Addr())
	for _, want := range []string{
		`lockbench_acquisitions_total{clients="8",variant="lua-release"} 4`,
		`lockbench_acquisitions_total{clients="8",variant="none"} 2`,
		`lockbench_acquire_failures_total{clients="8",variant="lua-release"} 1`,
		`lockbench_errors_total{clients="8",variant="lua-release"} 1`,
		`lockbench_timeouts_total{clients="8",variant="lua-release"} 1`,
		`lockbench_overlaps_total{clients="8",variant="none"} 0`,
		`lockbench_acquire_latency_seconds_bucket{clients="8",variant="lua-release",le="0.00025"} 0`,
		`lockbench_acquire_latency_seconds_bucket{clients="8",variant="lua-release",le="0.0005"} 3`,
		`lockbench_acquire_latency_seconds_bucket{clients="8",variant="lua-release",le="0.025"} 4`,
		`lockbench_acquire_latency_seconds_bucket{clients="8",variant="lua-release",le="+Inf"} 4`,
		`lockbench_acquire_latency_seconds_sum{clients="8",variant="lua-release"} 0.0209`,
		`lockbench_acquire_latency_seconds_count{clients="8",variant="none"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, "go_goroutines") {
		t.Error("the global registry's metrics are served")
	}
	if t.Failed() {
		t.Log(body)
	}
	addr := srv.Addr()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Close", addr)
	}
}

func TestListenAddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if srv, err := Listen(busy.Addr().String(), NewExporter()); err == nil {
		srv.Close()
		t.Fatal("Listen on a busy address succeeded")
	}
}
